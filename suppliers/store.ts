import type { Knex } from 'knex';

export type SupplierStatus = 'Ongoing' | 'Paused' | 'Complete';
export const SUPPLIER_STATUSES: readonly SupplierStatus[] = ['Ongoing', 'Paused', 'Complete'];

export interface ImportSupplier {
  code: string;
  status: SupplierStatus;
  documentRoot: string;
  checkDocumentExistence: boolean;
  sendCustomerEmails: boolean;
  registrationLeadDays: number;
  marketParticipantId: string | null;
  /** Customer e-mails (docs/customer-emails.md): sender, reply-to, messages per second. */
  emailFromName: string | null;
  emailFromAddress: string | null;
  emailReplyTo: string | null;
  emailRatePerSecond: number;
  createdAt: Date;
  modifiedAt: Date;
}

interface Row {
  code: string;
  status: SupplierStatus;
  document_root: string;
  check_document_existence: boolean;
  send_customer_emails: boolean;
  registration_lead_days: number;
  market_participant_id: string | null;
  email_from_name: string | null;
  email_from_address: string | null;
  email_reply_to: string | null;
  email_rate_per_second: string | number;
  created_at: Date;
  modified_at: Date;
}

const toModel = (r: Row): ImportSupplier => ({
  code: r.code,
  status: r.status,
  documentRoot: r.document_root,
  checkDocumentExistence: r.check_document_existence,
  sendCustomerEmails: r.send_customer_emails,
  registrationLeadDays: r.registration_lead_days,
  marketParticipantId: r.market_participant_id,
  emailFromName: r.email_from_name,
  emailFromAddress: r.email_from_address,
  emailReplyTo: r.email_reply_to,
  emailRatePerSecond: Number(r.email_rate_per_second),
  createdAt: r.created_at,
  modifiedAt: r.modified_at,
});

export async function getSupplier(db: Knex, code: string): Promise<ImportSupplier | null> {
  const row = await db<Row>('import_suppliers').where({ code }).first();
  return row ? toModel(row) : null;
}

export async function listSuppliers(db: Knex): Promise<ImportSupplier[]> {
  return (await db<Row>('import_suppliers').orderBy('code')).map(toModel);
}

/** Every import supplier's code, in order (the operations page's selector; a small table). */
export async function supplierCodes(db: Knex): Promise<string[]> {
  return (await db('import_suppliers').select('code').orderBy('code')).map((r: { code: string }) => r.code);
}

export interface SupplierSettings {
  status?: SupplierStatus;
  documentRoot?: string;
  checkDocumentExistence?: boolean;
  sendCustomerEmails?: boolean;
  registrationLeadDays?: number;
  marketParticipantId?: string | null;
  emailFromName?: string | null;
  emailFromAddress?: string | null;
  emailReplyTo?: string | null;
  emailRatePerSecond?: number;
}

function toRow(s: SupplierSettings): Partial<Row> {
  const row: Partial<Row> = {};
  if (s.status !== undefined) row.status = s.status;
  if (s.documentRoot !== undefined) row.document_root = s.documentRoot;
  if (s.checkDocumentExistence !== undefined) row.check_document_existence = s.checkDocumentExistence;
  if (s.sendCustomerEmails !== undefined) row.send_customer_emails = s.sendCustomerEmails;
  if (s.registrationLeadDays !== undefined) row.registration_lead_days = s.registrationLeadDays;
  if (s.marketParticipantId !== undefined) row.market_participant_id = s.marketParticipantId;
  if (s.emailFromName !== undefined) row.email_from_name = s.emailFromName;
  if (s.emailFromAddress !== undefined) row.email_from_address = s.emailFromAddress;
  if (s.emailReplyTo !== undefined) row.email_reply_to = s.emailReplyTo;
  if (s.emailRatePerSecond !== undefined) row.email_rate_per_second = s.emailRatePerSecond;
  return row;
}

/** Creates the supplier; returns false when the code exists already (nothing changed). */
export async function createSupplier(db: Knex, code: string, settings: SupplierSettings = {}): Promise<boolean> {
  const inserted = await db('import_suppliers')
    .insert({ code, ...toRow(settings) })
    .onConflict('code')
    .ignore()
    .returning('code');
  return inserted.length > 0;
}

/** Updates the given settings; returns false for an unknown supplier. */
export async function updateSupplier(db: Knex, code: string, settings: SupplierSettings): Promise<boolean> {
  const n = await db('import_suppliers')
    .where({ code })
    .update({ ...toRow(settings), modified_at: db.fn.now() });
  return n > 0;
}
