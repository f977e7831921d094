import { londonToday } from './dates';
import type { DocumentStore } from './documents';
import { IssueList, MAX_REPORTED_ERRORS, NON_FIELD_ERRORS, type Issue } from './issues';
import { applyPatches } from './normalise';
import type { ReferenceData } from './referenceData';
import type { Account } from './schema';
import { checkAccountShape } from './shape';
import { checkStorableText } from './storableText';
import { shapeIndex, okItems, type RuleContext } from './rules/context';
import { checkCustomers } from './rules/customers';
import { checkLedgers } from './rules/ledgers';
import { checkMeterPoints } from './rules/meterPoints';
import { checkMisc, type DocumentRef } from './rules/misc';
import { checkPaymentInstructions } from './rules/paymentInstructions';
import { checkPaymentSchedules } from './rules/paymentSchedules';
import { checkPlatformFields } from './rules/platform';
import { checkReferenceData } from './rules/reference';
import { checkSupplyAddresses } from './rules/supplyAddresses';
import { defaultTaskParams, isEnvelope, readTaskParams, type TaskParams } from './taskParams';
import { computeWarnings } from './warnings';
import { validationFingerprint } from './fingerprint';
import type { ReferencePair } from './referenceDataStore';

export type { Issue } from './issues';
export type { TaskParams } from './taskParams';
export { MAX_REPORTED_ERRORS } from './issues';

export interface SupplierConfig {
  code: string;
  status: 'Ongoing' | 'Paused' | 'Complete';
  documentRoot: string;
  checkDocumentExistence: boolean;
  sendCustomerEmails: boolean;
}

export interface ValidatorDeps {
  referenceData: () => ReferenceData;
  suppliers: (code: string) => Promise<SupplierConfig | null>;
  referenceOwners?: (
    account: { importSupplier: string; externalAccountNumber: string },
    pairs: { namespace: string; value: string }[],
  ) => Promise<{ namespace: string; value: string }[]>;
  documentStore: DocumentStore;
  now?: () => Date;
}

export type ValidationOutcome =
  | {
      ok: true;
      account: Account;
      taskParams: TaskParams;
      supplier: SupplierConfig;
      warnings: Issue[];
      /** What this validation depended on besides the payload (account/fingerprint.ts), or null. */
      fingerprint: string | null;
    }
  | { ok: false; errors: Issue[]; warnings: Issue[] };

export interface AccountValidator {
  /** mode 'create' additionally requires the supplier to be Ongoing (import_supplier_migration_not_ongoing). */
  validate(body: unknown, opts: { mode: 'validate' | 'create' }): Promise<ValidationOutcome>;
  /**
   * The fingerprint a validation of an account of `importSupplier` would have now (null when
   * none can be given: unknown supplier, document existence checked, reference data version
   * unknown). Equal to a stored one: the stored payload needs no validating again.
   */
  fingerprint(importSupplier: string, opts: { mode: 'validate' | 'create' }): Promise<string | null>;
}

/** Existence checks run at most this many at a time (file storage may be remote). */
const DOCUMENT_CHECK_CONCURRENCY = 16;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The validate operation: shape (ajv), then domain and reference rules on the parts that passed
 * the shape check, then the asynchronous checks (reference ownership, document existence).
 * Bounded: at most MAX_REPORTED_ERRORS errors are reported, followed by one
 * `{code: 'too_many_errors', attr: 'non_field_errors'}` when more were found; when the shape
 * check alone overflows, the domain rules are skipped (the payload is hostile or hopeless).
 */
export function createAccountValidator(deps: ValidatorDeps): AccountValidator {
  const clock = deps.now ?? (() => new Date());
  return {
    async validate(body, { mode }) {
      const errors = new IssueList(MAX_REPORTED_ERRORS);
      if (!isPlainObject(body)) {
        return { ok: false, errors: [{ detail: 'Expected a JSON object.', code: 'invalid', attr: NON_FIELD_ERRORS }], warnings: [] };
      }
      const now = clock();
      let candidate: unknown = body;
      let taskParams = defaultTaskParams(now);
      if (isEnvelope(body)) {
        candidate = body.payload;
        taskParams = readTaskParams(body, now, errors);
      }
      if (!isPlainObject(candidate)) {
        errors.add('invalid', NON_FIELD_ERRORS, 'Expected the account as a JSON object.');
        return { ok: false, errors: errors.result(), warnings: [] };
      }

      const firstShapeError = errors.items.length;
      checkAccountShape(candidate, errors);
      // What the store could not hold as sent is refused here, so create never refuses what validate took.
      checkStorableText(candidate, errors);
      if (errors.dropped > 0) return { ok: false, errors: errors.result(), warnings: [] };
      const ok = shapeIndex(errors.items.slice(firstShapeError).map((i) => i.attr));
      const account = candidate as unknown as Account;

      let supplier: SupplierConfig | null = null;
      if (ok('import_supplier')) {
        supplier = await deps.suppliers(account.import_supplier);
        if (supplier === null) {
          errors.add('import_supplier_not_found', 'import_supplier', `Unknown import supplier ${account.import_supplier}.`);
        } else if (mode === 'create' && supplier.status !== 'Ongoing') {
          errors.add('import_supplier_migration_not_ongoing', 'import_supplier', `The migration of ${supplier.code} is ${supplier.status}.`);
        }
      }

      const ctx: RuleContext = { account, ok, today: londonToday(now), ref: deps.referenceData(), errors, patches: [] };
      checkSupplyAddresses(ctx);
      checkCustomers(ctx);
      checkMeterPoints(ctx);
      checkLedgers(ctx);
      checkPaymentSchedules(ctx);
      checkPaymentInstructions(ctx);
      checkPlatformFields(ctx);
      const documents = checkMisc(ctx, supplier?.documentRoot ?? '');
      checkReferenceData(ctx);

      if (supplier !== null && !errors.full) {
        await checkReferenceOwners(deps, ctx, account);
        if (supplier.checkDocumentExistence) await checkDocumentsExist(deps.documentStore, supplier.documentRoot, documents, ctx);
      }

      const warnings = computeWarnings(ctx, supplier?.sendCustomerEmails).result();
      if (errors.items.length > 0 || supplier === null) return { ok: false, errors: errors.result(), warnings };
      const fingerprint = validationFingerprint({ referenceDataVersion: ctx.ref.version, supplier, today: ctx.today, mode });
      return { ok: true, account: applyPatches(account, ctx.patches), taskParams, supplier, warnings, fingerprint };
    },
    async fingerprint(importSupplier, { mode }) {
      const supplier = await deps.suppliers(importSupplier);
      if (supplier === null) return null;
      return validationFingerprint({ referenceDataVersion: deps.referenceData().version, supplier, today: londonToday(clock()), mode });
    },
  };
}

async function checkReferenceOwners(deps: ValidatorDeps, ctx: RuleContext, account: Account): Promise<void> {
  if (!deps.referenceOwners || !ctx.ok('external_account_number')) return;
  const taken = await takenReferences(
    deps.referenceOwners,
    { importSupplier: account.import_supplier, externalAccountNumber: account.external_account_number },
    [...okItems(ctx, account.references, 'references')].map(([r, attr]) => [r, attr] as const),
  );
  for (const t of taken) {
    ctx.errors.add('reference_already_exists', `${t.attr}.value`, `Reference ${t.namespace}/${t.value} belongs to another account.`);
  }
}

/**
 * The references among `items` (each with its attr) that an account other than `account` holds,
 * in the order given, found with one lookup of the distinct pairs. The validate operation and the
 * account write (which checks again under the import row's lock) both ask it.
 */
export async function takenReferences(
  owners: NonNullable<ValidatorDeps['referenceOwners']>,
  account: { importSupplier: string; externalAccountNumber: string },
  items: readonly (readonly [ReferencePair, string])[],
): Promise<(ReferencePair & { attr: string })[]> {
  const key = (r: ReferencePair) => `${r.namespace}\u0000${r.value}`;
  const pairs = new Map(items.map(([r]) => [key(r), { namespace: r.namespace, value: r.value }]));
  if (pairs.size === 0) return [];
  const taken = new Set((await owners(account, [...pairs.values()])).map(key));
  return items.filter(([r]) => taken.has(key(r))).map(([r, attr]) => ({ namespace: r.namespace, value: r.value, attr }));
}

async function checkDocumentsExist(store: DocumentStore, root: string, documents: DocumentRef[], ctx: RuleContext): Promise<void> {
  const missing: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < documents.length) {
      const doc = documents[next++];
      if (!(await store.exists(root, doc.relative))) missing.push(doc.attr);
    }
  };
  await Promise.all(Array.from({ length: Math.min(DOCUMENT_CHECK_CONCURRENCY, documents.length) }, worker));
  // Report in payload order whatever order the checks finished in.
  const order = new Map(documents.map((d, i) => [d.attr, i]));
  missing.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  for (const attr of missing) ctx.errors.add('path_does_not_exist_in_file_store', attr, 'No document at this path in the file store.');
}
