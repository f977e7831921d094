import { Argument, Command, Option } from 'commander';
import type { Knex } from 'knex';
import {
  createSupplier,
  getSupplier,
  ImportSupplier,
  listSuppliers,
  SUPPLIER_STATUSES,
  SupplierSettings,
  SupplierStatus,
  updateSupplier,
} from '../../suppliers/store';
import { listReferenceData } from '../../account/referenceDataStore';
import { CliError } from '../errors';
import { print, withDb } from '../context';
import { details, integerIn, json, table, withExamples } from '../format';

/**
 * `data-import import-suppliers`: the import suppliers and their configuration, which the spec
 * says the operator sets "not through this API".
 */

// A supplier code is a URL path segment and part of the workflow id `account-import:<code>:<ext>`,
// so it may not contain ':' or '/'; 64 is the column width.
const SUPPLIER_CODE = /^[A-Za-z0-9_-]{1,64}$/;
// The column is 8 wide; market participant ids are short upper-case codes (DEMO, LOND).
const MPID = /^[A-Z0-9]{1,8}$/;

interface SettingsOptions {
  status?: SupplierStatus;
  documentRoot?: string;
  checkDocumentExistence?: boolean;
  sendCustomerEmails?: boolean;
  registrationLeadDays?: number;
  marketParticipantId?: string | false;
  emailFromName?: string | false;
  emailFromAddress?: string | false;
  emailReplyTo?: string | false;
  emailRate?: number;
}

// Deliberately simple: one @, no spaces; the relay is the judge of the rest.
const EMAIL_ADDRESS = /^[^\s@<>",]+@[^\s@<>",]+\.[^\s@<>",]+$/;

function emailAddress(option: string, v: string | false | undefined): string | null | undefined {
  if (v === false) return null;
  if (v === undefined) return undefined;
  if (v.length > 320 || !EMAIL_ADDRESS.test(v)) throw new CliError(`${option} ${JSON.stringify(v)}: expected an e-mail address such as welcome@example.org`);
  return v;
}

function ratePerSecond(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n >= 0.001 && n <= 1000)) throw new CliError(`--email-rate ${JSON.stringify(value)}: expected messages per second from 0.001 to 1000`);
  return n;
}

function addSettingsOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--status <status>', 'migration status: Ongoing accepts new accounts, Paused and Complete reject them').choices(
        SUPPLIER_STATUSES,
      ),
    )
    .option('--document-root <path>', 'file-storage location that payload document paths (statement_path, document_path) are relative to')
    .option('--check-document-existence', 'reject accounts whose documents do not exist under the document root')
    .option('--no-check-document-existence', 'do not check that documents exist')
    .option('--send-customer-emails', 'send customers the usual emails once their account is imported')
    .option('--no-send-customer-emails', 'send no customer emails for imported accounts')
    .option(
      '--registration-lead-days <n>',
      "working days' notice before the earliest supply start date of an industry registration (0-365)",
      integerIn(0, 365),
    )
    .option('--market-participant-id <mpid>', "the supplier's market participant id; must be a market_participant of the reference data")
    .option('--no-market-participant-id', 'clear the market participant id')
    .option('--email-from-name <name>', 'sender name of customer e-mails (also the brand the templates show); default the supplier code')
    .option('--no-email-from-name', 'clear the sender name')
    .option('--email-from-address <address>', 'sender address of customer e-mails (required to send them)')
    .option('--no-email-from-address', 'clear the sender address')
    .option('--email-reply-to <address>', 'Reply-To address of customer e-mails')
    .option('--no-email-reply-to', 'clear the Reply-To address')
    .option('--email-rate <per-second>', 'customer e-mails per second for this supplier, across all workers (default 2)', ratePerSecond);
}

async function toSettings(db: Knex, o: SettingsOptions): Promise<SupplierSettings> {
  const s: SupplierSettings = {};
  if (o.status !== undefined) s.status = o.status;
  if (o.documentRoot !== undefined) {
    if (o.documentRoot.includes('\0')) throw new CliError('--document-root must not contain a NUL character');
    s.documentRoot = o.documentRoot;
  }
  if (o.checkDocumentExistence !== undefined) s.checkDocumentExistence = o.checkDocumentExistence;
  if (o.sendCustomerEmails !== undefined) s.sendCustomerEmails = o.sendCustomerEmails;
  if (o.registrationLeadDays !== undefined) s.registrationLeadDays = o.registrationLeadDays;
  if (o.emailFromName === false) s.emailFromName = null;
  else if (o.emailFromName !== undefined) {
    if (o.emailFromName.length > 128 || /[\r\n]/.test(o.emailFromName)) throw new CliError('--email-from-name: at most 128 characters on one line');
    s.emailFromName = o.emailFromName;
  }
  const from = emailAddress('--email-from-address', o.emailFromAddress);
  if (from !== undefined) s.emailFromAddress = from;
  const replyTo = emailAddress('--email-reply-to', o.emailReplyTo);
  if (replyTo !== undefined) s.emailReplyTo = replyTo;
  if (o.emailRate !== undefined) s.emailRatePerSecond = o.emailRate;
  if (o.marketParticipantId === false) s.marketParticipantId = null;
  else if (o.marketParticipantId !== undefined) {
    const mpid = o.marketParticipantId;
    if (!MPID.test(mpid)) throw new CliError(`--market-participant-id ${JSON.stringify(mpid)}: expected 1 to 8 upper-case letters or digits`);
    // A typo here would only surface much later, when registrations are requested.
    const known = await listReferenceData(db, 'market_participant');
    if (!known.some((r) => r.code === mpid)) {
      throw new CliError(`--market-participant-id ${mpid}: not a known market participant (add it with \`data-import reference-data load\`)`);
    }
    s.marketParticipantId = mpid;
  }
  return s;
}

/** The JSON form of a supplier: snake_case like the HTTP API. */
export function supplierJson(s: ImportSupplier) {
  return {
    code: s.code,
    status: s.status,
    document_root: s.documentRoot,
    check_document_existence: s.checkDocumentExistence,
    send_customer_emails: s.sendCustomerEmails,
    registration_lead_days: s.registrationLeadDays,
    market_participant_id: s.marketParticipantId,
    email_from_name: s.emailFromName,
    email_from_address: s.emailFromAddress,
    email_reply_to: s.emailReplyTo,
    email_rate_per_second: s.emailRatePerSecond,
    created_at: s.createdAt.toISOString(),
    modified_at: s.modifiedAt.toISOString(),
  };
}

function supplierDetails(s: ImportSupplier): string {
  return details([
    ['code', s.code],
    ['status', s.status],
    ['document root', s.documentRoot],
    ['check document existence', s.checkDocumentExistence],
    ['send customer emails', s.sendCustomerEmails],
    ['registration lead days', s.registrationLeadDays],
    ['market participant id', s.marketParticipantId],
    ['e-mail sender', s.emailFromAddress ? `${s.emailFromName ?? s.code} <${s.emailFromAddress}>` : null],
    ['e-mail reply-to', s.emailReplyTo],
    ['e-mail rate (per second)', s.emailRatePerSecond],
    ['created at', s.createdAt],
    ['modified at', s.modifiedAt],
  ]);
}

async function requireSupplier(db: Knex, code: string): Promise<ImportSupplier> {
  const s = await getSupplier(db, code);
  if (!s) throw new CliError(`import supplier ${code} not found`);
  return s;
}

export function register(program: Command): void {
  const group = program
    .command('import-suppliers')
    .description('Create, list, show and configure import suppliers (status, document root, emails, registration lead time).');
  withExamples(group, ['data-import import-suppliers list', 'data-import import-suppliers create ACME_ENERGY --status Paused']);

  withExamples(
    addSettingsOptions(
      group
        .command('create')
        .description('Create an import supplier. Settings not given take their defaults: status Ongoing, empty document root, no document check, no customer emails, 1 lead day.')
        .argument('<code>', 'supplier code: letters, digits, _ and -, at most 64 (the import_supplier of account payloads)'),
    ),
    [
      'data-import import-suppliers create ACME_ENERGY',
      'data-import import-suppliers create ACME_ENERGY --status Paused --document-root /srv/documents/acme --check-document-existence --registration-lead-days 2 --market-participant-id DEMO',
    ],
  ).action(async (code: string, opts: SettingsOptions) => {
    if (!SUPPLIER_CODE.test(code)) throw new CliError(`supplier code ${JSON.stringify(code)}: expected 1 to 64 letters, digits, _ or -`);
    await withDb(async (db) => {
      const created = await createSupplier(db, code, await toSettings(db, opts));
      if (!created) throw new CliError(`import supplier ${code} already exists (change it with \`data-import import-suppliers configure\`)`);
      print(`Created import supplier ${code}.\n${supplierDetails(await requireSupplier(db, code))}`);
    });
  });

  withExamples(
    group
      .command('list')
      .description('List every import supplier with its status and settings.')
      .option('--json', 'print a JSON array instead of a table'),
    ['data-import import-suppliers list', 'data-import import-suppliers list --json'],
  ).action(async (opts: { json?: boolean }) => {
    await withDb(async (db) => {
      const all = await listSuppliers(db);
      if (opts.json) return print(json(all.map(supplierJson)));
      print(
        table(
          ['CODE', 'STATUS', 'DOCUMENT ROOT', 'CHECK DOCS', 'EMAILS', 'LEAD DAYS', 'MPID'],
          all.map((s) => [s.code, s.status, s.documentRoot, s.checkDocumentExistence, s.sendCustomerEmails, s.registrationLeadDays, s.marketParticipantId]),
          '(no import suppliers)',
        ),
      );
    });
  });

  withExamples(
    group
      .command('show')
      .description('Show one import supplier and all its settings.')
      .argument('<code>', 'supplier code')
      .option('--json', 'print a JSON object instead of text'),
    ['data-import import-suppliers show DEMO_ENERGY', 'data-import import-suppliers show DEMO_ENERGY --json'],
  ).action(async (code: string, opts: { json?: boolean }) => {
    await withDb(async (db) => {
      const s = await requireSupplier(db, code);
      print(opts.json ? json(supplierJson(s)) : supplierDetails(s));
    });
  });

  withExamples(
    group
      .command('set-status')
      .description('Set the migration status of an import supplier: Ongoing accepts new accounts; Paused (more later) and Complete (no more) reject them.')
      .argument('<code>', 'supplier code')
      .addArgument(new Argument('<status>', 'the new status').choices(SUPPLIER_STATUSES)),
    ['data-import import-suppliers set-status ACME_ENERGY Paused', 'data-import import-suppliers set-status ACME_ENERGY Complete'],
  ).action(async (code: string, status: SupplierStatus) => {
    await withDb(async (db) => {
      const before = await requireSupplier(db, code);
      await updateSupplier(db, code, { status });
      print(`Import supplier ${code}: status ${before.status} -> ${status}.`);
    });
  });

  withExamples(
    addSettingsOptions(
      group
        .command('configure')
        .description('Change settings of an existing import supplier; settings not given stay as they are.')
        .argument('<code>', 'supplier code'),
    ),
    [
      'data-import import-suppliers configure ACME_ENERGY --document-root /srv/documents/acme --check-document-existence',
      'data-import import-suppliers configure ACME_ENERGY --no-send-customer-emails --registration-lead-days 5',
      'data-import import-suppliers configure ACME_ENERGY --send-customer-emails --email-from-name "Acme Energy" --email-from-address welcome@acme.example --email-reply-to help@acme.example --email-rate 5',
    ],
  ).action(async (code: string, opts: SettingsOptions) => {
    await withDb(async (db) => {
      await requireSupplier(db, code);
      const settings = await toSettings(db, opts);
      if (Object.keys(settings).length === 0) throw new CliError('nothing to change: give at least one setting (see --help)');
      await updateSupplier(db, code, settings);
      print(`Configured import supplier ${code}.\n${supplierDetails(await requireSupplier(db, code))}`);
    });
  });
}
