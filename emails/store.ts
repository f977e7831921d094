import crypto from 'node:crypto';
import type { Knex } from 'knex';

/** Upper-case, as the operations page counts them (`customer_email_queue.status`). */
export const EMAIL_STATUSES = ['QUEUED', 'SENT', 'BOUNCED', 'FAILED', 'SKIPPED'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

export interface CustomerEmail {
  id: number;
  importSupplier: string | null;
  externalAccountNumber: string | null;
  accountNumber: string;
  userNumber: string;
  userId: number | null;
  email: string | null;
  template: string;
  status: EmailStatus;
  messageId: string | null;
  attempts: number;
  lastSmtpResponse: string | null;
  lastAttemptAt: Date | null;
  sentAt: Date | null;
  bouncedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: string | number;
  import_supplier: string | null;
  external_account_number: string | null;
  account_number: string;
  user_number: string;
  user_id: string | number | null;
  email: string | null;
  template: string;
  status: EmailStatus;
  message_id: string | null;
  attempts: number;
  last_smtp_response: string | null;
  last_attempt_at: Date | null;
  sent_at: Date | null;
  bounced_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const TABLE = 'customer_email_queue';

const toModel = (r: Row): CustomerEmail => ({
  id: Number(r.id),
  importSupplier: r.import_supplier,
  externalAccountNumber: r.external_account_number,
  accountNumber: r.account_number,
  userNumber: r.user_number,
  userId: r.user_id === null ? null : Number(r.user_id),
  email: r.email,
  template: r.template,
  status: r.status,
  messageId: r.message_id,
  attempts: r.attempts,
  lastSmtpResponse: r.last_smtp_response,
  lastAttemptAt: r.last_attempt_at,
  sentAt: r.sent_at,
  bouncedAt: r.bounced_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * The Message-ID of one e-mail: derived from account, customer and template only, so every copy
 * of it (a retry after a crash between the relay's 250 and our record, an operator's resend) has
 * the same id and a receiving system can recognise the duplicate.
 */
export function stableMessageId(accountNumber: string, userNumber: string, template: string, domain: string): string {
  const h = crypto.createHash('sha256').update(`${accountNumber}\u0000${userNumber}\u0000${template}`).digest('hex').slice(0, 32);
  return `<${h}.${template}@${domain}>`;
}

export interface QueueInput {
  importSupplier: string;
  externalAccountNumber: string;
  accountNumber: string;
  template: string;
  /** Right-hand side of the Message-IDs (the sender's domain). */
  domain: string;
  users: { userId: number; userNumber: string; email: string | null }[];
}

/** Queues one e-mail per customer (SKIPPED without an address); a second call changes nothing. */
export async function queueEmails(trx: Knex, q: QueueInput): Promise<void> {
  if (q.users.length === 0) return;
  const rows = q.users.map((u) => ({
    import_supplier: q.importSupplier,
    external_account_number: q.externalAccountNumber,
    account_number: q.accountNumber,
    user_number: u.userNumber,
    user_id: u.userId,
    email: u.email || null,
    template: q.template,
    status: u.email ? 'QUEUED' : 'SKIPPED',
    message_id: stableMessageId(q.accountNumber, u.userNumber, q.template, q.domain),
  }));
  await trx(TABLE).insert(rows).onConflict(['account_number', 'user_number', 'template']).ignore();
}

/**
 * The queue rows of the import's first post-import step (before delivery existed: histories
 * recorded then replay it): account, customer, address and template only; a second call changes
 * nothing.
 */
export async function queueAddressOnly(trx: Knex, accountNumber: string, users: { userNumber: string; email: string }[], template: string): Promise<void> {
  if (users.length === 0) return;
  const rows = users.map((u) => ({ account_number: accountNumber, user_number: u.userNumber, email: u.email, template }));
  await trx(TABLE).insert(rows).onConflict(['account_number', 'user_number', 'template']).ignore();
}

export interface EmailFilter {
  id?: number;
  importSupplier?: string;
  accountNumber?: string;
  externalAccountNumber?: string;
  status?: EmailStatus;
}

function filtered(db: Knex, f: EmailFilter) {
  const q = db<Row>(TABLE);
  if (f.id !== undefined) q.where('id', f.id);
  if (f.importSupplier) q.where('import_supplier', f.importSupplier);
  if (f.accountNumber) q.where('account_number', f.accountNumber);
  if (f.externalAccountNumber) q.where('external_account_number', f.externalAccountNumber);
  if (f.status) q.where('status', f.status);
  return q;
}

export async function listEmails(db: Knex, f: EmailFilter, limit = 100): Promise<CustomerEmail[]> {
  return (await filtered(db, f).orderBy('id').limit(limit)).map(toModel);
}

/** One round trip on `trx`'s connection: whether the send's transaction still answers (emails/confirmedEnd.ts). */
export async function pingSession(trx: Knex): Promise<void> {
  await trx.raw('SELECT 1');
}

export async function getEmail(db: Knex, id: number, opts: { forUpdate?: boolean } = {}): Promise<CustomerEmail | null> {
  const q = db<Row>(TABLE).where({ id }).first();
  if (opts.forUpdate) q.forUpdate();
  const row = await q;
  return row ? toModel(row) : null;
}

/** Each e-mail's template and account, by id (the set-aside list names its e-mails so: maintenance/setAside.ts); an id with no row is left out. */
export async function emailTemplatesOf(db: Knex, ids: readonly number[]): Promise<Map<number, { template: string; accountNumber: string }>> {
  const rows = (await db(TABLE).whereIn('id', [...ids]).select('id', 'template', 'account_number')) as { id: string; template: string; account_number: string }[];
  return new Map(rows.map((e) => [Number(e.id), { template: e.template, accountNumber: e.account_number }]));
}

/** Whether a send's transaction holds the e-mail's row now (emails/delivery.ts: is an attempt at it alive?). */
export async function emailLocked(db: Knex, id: number): Promise<boolean> {
  return (await db.raw(`SELECT id FROM ${TABLE} WHERE id = ? FOR UPDATE SKIP LOCKED`, [id])).rows.length === 0;
}

/** E-mails by status (all of them, or one account's): the metrics gauge and post-import's outcome. */
export async function countEmailsByStatus(db: Knex, f: EmailFilter = {}): Promise<Record<EmailStatus, number>> {
  const rows = (await filtered(db, f).select('status').count<{ status: EmailStatus; count: string }[]>('* as count').groupBy('status')) as unknown as { status: EmailStatus; count: string }[];
  return countsFromJson(Object.fromEntries(rows.map((r) => [r.status, r.count])));
}

/**
 * countEmailsByStatus of the account of an `import_processes` row, as an SQL expression over that
 * row (imports/store.ts lockProcessWith); read it with countsFromJson.
 */
export const EMAIL_COUNTS_OF_IMPORT_ROW = `(SELECT coalesce(json_object_agg(c.status, c.n), '{}'::json)
  FROM (SELECT status, count(*) AS n FROM ${TABLE} WHERE account_number = import_processes.kraken_identifier GROUP BY status) c)`;

/** Counts by status (EMAIL_COUNTS_OF_IMPORT_ROW's JSON object, or grouped rows), every status present. */
export function countsFromJson(value: unknown): Record<EmailStatus, number> {
  const read = (value ?? {}) as Partial<Record<string, number | string>>;
  return Object.fromEntries(EMAIL_STATUSES.map((st) => [st, Number(read[st] ?? 0)])) as Record<EmailStatus, number>;
}

export type AttemptOutcome =
  | { status: 'SENT'; response: string }
  | { status: 'BOUNCED'; response: string }
  | { status: 'QUEUED'; response: string }
  | { status: 'FAILED'; response: string };

/** Records one SMTP attempt and its answer (inside the transaction that locked the row). */
export async function recordAttempt(trx: Knex, id: number, o: AttemptOutcome, at: Date): Promise<CustomerEmail> {
  const [row] = await trx<Row>(TABLE)
    .where({ id })
    .update({
      status: o.status,
      attempts: trx.raw('attempts + 1') as unknown as number,
      last_smtp_response: o.response.slice(0, 1000),
      last_attempt_at: at,
      updated_at: at,
      ...(o.status === 'SENT' ? { sent_at: at } : {}),
      ...(o.status === 'BOUNCED' ? { bounced_at: at } : {}),
    })
    .returning('*');
  return toModel(row as Row);
}

/** Retries ran out: what is still QUEUED is FAILED (its last SMTP answer stays). */
export async function failQueued(trx: Knex, f: EmailFilter, at: Date): Promise<number> {
  return filtered(trx, { ...f, status: 'QUEUED' }).update({ status: 'FAILED', updated_at: at });
}

/** An operator's resend: FAILED or BOUNCED (or, asked for, SENT) e-mails become QUEUED again. */
export async function requeue(db: Knex, f: EmailFilter, statuses: EmailStatus[]): Promise<number[]> {
  const rows = await filtered(db, f)
    .whereIn('status', statuses)
    .whereNotNull('email')
    .update({ status: 'QUEUED', updated_at: db.fn.now() as unknown as Date })
    .returning('id');
  return rows.map((r) => Number((r as { id: unknown }).id));
}
