import { resolveDocumentPath } from '../documents';
import { list, okItems, type RuleContext } from './context';
import { debtRecords } from './debt';

/** A document path of the payload with its attr, collected for the existence check. */
export interface DocumentRef {
  attr: string;
  relative: string;
}

/**
 * Account-level rules without a home of their own: warm home discount tax years, metadata keys,
 * campaigns, notes, debts, statements and document paths. Returns the valid document paths so the
 * validator can check their existence when the supplier asks for it.
 */
export function checkMisc(ctx: RuleContext, documentRoot: string): DocumentRef[] {
  const a = ctx.account;
  for (const [whd, attr] of okItems(ctx, a.warm_home_discount, 'warm_home_discount')) {
    if (whd.tax_year !== undefined && !isTaxYear(whd.tax_year)) {
      ctx.errors.add('incorrect_format_for_tax_year', `${attr}.tax_year`, 'tax_year must be YYYY/YY with consecutive years, e.g. 2025/26.');
    }
  }
  const keys = new Set<string>();
  for (const [m, attr] of okItems(ctx, a.metadata, 'metadata')) {
    if (keys.has(m.key)) ctx.errors.add('metadata_has_duplicate_keys', `${attr}.key`, `Metadata key ${m.key} is given twice.`);
    keys.add(m.key);
  }
  const slugs = new Set<string>();
  for (const [c, attr] of okItems(ctx, a.account_campaigns, 'account_campaigns')) {
    // A campaign named by its slug or by its campaign_name: the same name twice is the same campaign.
    const name = c.slug ?? (c as { campaign_name?: unknown }).campaign_name;
    if (typeof name !== 'string') continue;
    const field = c.slug === undefined ? 'campaign_name' : 'slug';
    const key = `${field}:${name}`;
    if (slugs.has(key)) ctx.errors.add('duplicate_account_campaigns', `${attr}.${field}`, `Campaign ${name} is given twice.`);
    slugs.add(key);
  }
  for (const [debt, attr] of debtRecords(ctx)) {
    if (debt.start_date !== undefined && (debt.agency_name === undefined || debt.agency_name.trim() === '')) {
      ctx.errors.add('debt_collection_agency_name_required', `${attr}.agency_name`, 'A debt with a start date needs an agency name.');
    }
  }

  const documents: DocumentRef[] = [];
  const addDocument = (payloadPath: string, attr: string) => {
    const resolved = resolveDocumentPath(documentRoot, payloadPath);
    if (resolved === null) ctx.errors.add('invalid_document_path', attr, 'The document path must stay inside the document root.');
    else documents.push({ attr, relative: resolved.relative });
  };
  for (const [note, attr] of okItems(ctx, a.notes, 'notes')) {
    const paths = list(note.document_paths);
    if ((note.body === undefined || note.body.trim() === '') && paths.length === 0) {
      ctx.errors.add('note_body_or_document_path_not_found', `${attr}.body`, 'A note needs a body or document paths.');
    }
    for (let k = 0; k < paths.length; k++) addDocument(paths[k].document_path, `${attr}.document_paths.${k}.document_path`);
  }
  for (const [statement, attr] of okItems(ctx, a.statements, 'statements')) {
    if (statement.bill_period_to_date < statement.bill_period_from_date) {
      ctx.errors.add('start_date_later_than_end_date', `${attr}.bill_period_to_date`, 'The end date is before the start date.');
    }
    if (statement.statement_path !== undefined) addDocument(statement.statement_path, `${attr}.statement_path`);
  }
  return documents;
}

/** `YYYY/YY` where YY is the year after YYYY (2025/26; 1999/00). */
export function isTaxYear(value: string): boolean {
  const m = /^(\d{4})\/(\d{2})$/.exec(value);
  return m !== null && (Number(m[1]) + 1) % 100 === Number(m[2]);
}
