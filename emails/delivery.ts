import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import { loadAccount } from '../db/stores/accountStore';
import { customerName } from '../db/stores/accountLookups';
import { setIdleInTransactionTimeout } from '../db/knex';
import type { Account } from '../account/schema';
import { getSupplier, ImportSupplier } from '../suppliers';
import { enqueueEvents } from '../events/outbox';
import { CustomerEmail, emailLocked, failQueued, getEmail, listEmails, recordAttempt } from './store';
import { classifySmtpError, type ConfirmedMail, MailTransport } from './transport';
import { SessionNotConfirmedError, transactionAnswers } from './confirmedEnd';
import { reserveSendingSlot } from './rateStore';
import { RenderedMail, TemplateCode, TemplateContext, TemplateRenderer } from './templates';
import { bouncedEvent } from './events';
import { claimItem, isItemSetAside, itemDone, itemFailed, itemGiveBack } from '../db/stores/queueItems';
import type { QueuePolicy } from '../db/stores/digestQueue';
import { emailQueuePolicy, isDatabaseOutage, LEAD_MAX_MS, SEND_IDLE_MARGIN_MS } from './attempts';
import type { Metrics } from '../lib/metrics';

export interface DeliveryDeps {
  db: Knex;
  transport: MailTransport;
  renderer: TemplateRenderer;
  subjectPrefix: string;
  log: Logger;
  now?: () => Date;
  /** Called while waiting and sending, so a Temporal activity keeps heartbeating. */
  heartbeat?: () => void;
  /** Waits (cancellably, in an activity). */
  sleep?: (ms: number) => Promise<void>;
  /** SMTP_TIMEOUT_MS: the send's transaction may stay idle for this long plus 10 s (below). */
  smtpTimeoutMs: number;
  /** The e-mail queue's attempt bound and lease (default emailQueuePolicy(smtpTimeoutMs)). */
  policy?: QueuePolicy;
  metrics?: Pick<Metrics, 'queueItemFailures' | 'queueItemsSetAside'>;
}

export interface DeliveryResult {
  sent: number;
  bounced: number;
  /** Answered 4xx / not reached: still QUEUED, to be retried. */
  deferred: number;
  /** The last temporary answer's SMTP code (no addresses: safe to put in a failure message). */
  lastDeferredCode: number | null;
  /** Failed for a reason of their own (not the relay's): still QUEUED, their attempt counted. */
  failed: number;
  /** Set aside after their last attempt (now FAILED): `data-import set-aside list --queue email`. */
  setAside: number;
}

/** The sender is not configured: nothing can be sent until an operator sets it. */
export class SenderNotConfiguredError extends Error {
  constructor(readonly importSupplier: string) {
    super(`import supplier ${importSupplier} has no sender address (data-import import-suppliers configure ${importSupplier} --email-from-address ...)`);
    this.name = 'SenderNotConfiguredError';
  }
}

/** The least lateness tolerated at high rates, where one interval is shorter than a timer's jitter. */
const LATE_TOLERANCE_MIN_MS = 200;
/** How long the send's transaction has to answer before the message's end (emails/confirmedEnd.ts): a primary silent that long is taken as gone. */
const CONFIRM_TIMEOUT_MS = 5_000;
/**
 * How long before its slot a sender starts claiming the e-mail (a pool connection, the row's lock,
 * the customer's row: round trips to PostgreSQL), learnt from the claims of every sender of this
 * process (they share its pool and its path to the database). Without it a claim that takes
 * longer than the tolerance — a loaded host, a full pool, a distant database — was late for every
 * slot it took, for ever (issue 38: imports stalled in sending_customer_emails for over a minute
 * with no fault at all; claims measured at 872 ms median, 4.4 s at most, on the hosts harness's
 * loaded machine, against a tolerance of 200 ms).
 */
let leadMs = 0;

const SUPPLY_TYPE = { ELECTRICITY: 'Electricity', GAS: 'Gas' } as Record<string, string>;

/** The parts of the template context every customer of the account shares. */
function accountContext(supplier: ImportSupplier, accountNumber: string, account: Account): Omit<TemplateContext, 'customer'> {
  const addresses = (account as unknown as { supply_addresses?: Record<string, unknown>[] }).supply_addresses ?? [];
  return {
    supplier: { code: supplier.code, name: supplier.emailFromName ?? supplier.code, replyTo: supplier.emailReplyTo },
    account: { number: accountNumber, externalNumber: String((account as unknown as { external_account_number: string }).external_account_number) },
    supplyAddresses: addresses.map((a) => ({
      lines: [1, 2, 3, 4, 5].map((i) => String(a[`supply_address${i}`] ?? '')).filter((l) => l !== '').concat(a.supply_postcode ? [String(a.supply_postcode)] : []),
      postcode: String(a.supply_postcode ?? ''),
      meterPoints: ((a.meter_points as Record<string, unknown>[] | undefined) ?? []).map((m) => {
        const agreements = (m.agreements as { tariff_code: string; effective_from: string }[] | undefined) ?? [];
        const current = [...agreements].sort((x, y) => x.effective_from.localeCompare(y.effective_from)).at(-1);
        return { supplyType: SUPPLY_TYPE[String(m.supply_type)] ?? String(m.supply_type), identifier: String(m.identifier), tariff: current?.tariff_code ?? '' };
      }),
    })),
  };
}

async function customerContext(db: Knex, userNumber: string): Promise<TemplateContext['customer']> {
  const u = await customerName(db, userNumber);
  const given = u?.given_name ?? '';
  const family = u?.family_name ?? '';
  const fullName = [u?.title, given, family].filter((x) => x).join(' ');
  return { title: u?.title ?? '', givenName: given, familyName: family, fullName, salutation: u?.salutation || `Dear ${fullName || 'customer'}` };
}

/** The rendered e-mail of one queued row (also what `data-import emails preview` prints). */
export async function renderEmail(db: Knex, renderer: TemplateRenderer, supplier: ImportSupplier, email: Pick<CustomerEmail, 'accountNumber' | 'userNumber' | 'template'>): Promise<RenderedMail> {
  const account = await loadAccount(db, email.accountNumber);
  if (!account) throw new Error(`account ${email.accountNumber} not found`);
  const context: TemplateContext = { ...accountContext(supplier, email.accountNumber, account), customer: await customerContext(db, email.userNumber) };
  return renderer.render(supplier.code, email.template as TemplateCode, context);
}

export function senderOf(s: ImportSupplier): { name: string; address: string } {
  if (!s.emailFromAddress) throw new SenderNotConfiguredError(s.code);
  return { name: s.emailFromName ?? s.code, address: s.emailFromAddress };
}

/**
 * Sends the QUEUED e-mails of one account, one at a time at the supplier's rate. Each e-mail is
 * sent inside a transaction that holds its row lock, and its outcome (SENT, BOUNCED with the
 * bounce event in the outbox, or still QUEUED with the 4xx answer and one more attempt) is
 * committed by that same transaction:
 * - an e-mail recorded SENT or BOUNCED is never sent again (the row is re-read under the lock);
 * - a sender that dies mid-send leaves the row QUEUED (the transaction rolls back when its
 *   connection drops) and the retry sends it again — with the same Message-ID;
 * - two executions of the same activity (a retry while a stuck one lingers) wait on the lock and
 *   the second finds the e-mail done.
 * One e-mail it cannot handle stops no other (issue 47, item 4): each e-mail's attempt is recorded
 * and committed before the work (queue 'email' of queue_item_attempts), an e-mail that fails for
 * itself (its template or data throw, its outcome cannot be recorded) is counted `failed` and the
 * next e-mail goes on; after `policy.maxAttempts` failed or unfinished attempts (a worker killed
 * while handling it) it is set aside and FAILED. A temporary SMTP answer or an unreachable relay
 * or database is not the e-mail's: its attempt is given back. A bounce is the e-mail's own end.
 */
export async function deliverAccountEmails(d: DeliveryDeps, accountNumber: string): Promise<DeliveryResult> {
  const now = d.now ?? (() => new Date());
  const sleep = d.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const result: DeliveryResult = { sent: 0, bounced: 0, deferred: 0, lastDeferredCode: null, failed: 0, setAside: 0 };
  const sendIdleMs = Math.floor(d.smtpTimeoutMs + SEND_IDLE_MARGIN_MS);
  const queued = await listEmails(d.db, { accountNumber, status: 'QUEUED' }, 1000);
  if (queued.length === 0) return result;
  const supplier = await getSupplier(d.db, queued[0]!.importSupplier ?? '');
  if (!supplier) throw new Error(`import supplier of account ${accountNumber} not found`);
  const from = senderOf(supplier);
  const account = await loadAccount(d.db, accountNumber);
  if (!account) throw new Error(`account ${accountNumber} not found`);
  const shared = accountContext(supplier, accountNumber, account);
  const log = d.log.child({ importSupplier: supplier.code, accountNumber });

  // How late a send may start after its slot. A busy worker (event loop held by an import) wakes
  // late; several late senders would then reach the relay together, so one that is later than
  // this takes a new slot instead: every SMTP send starts within [slot, slot + tolerance).
  const toleranceMs = Math.max(1000 / supplier.emailRatePerSecond, LATE_TOLERANCE_MIN_MS);
  const waitForSlot = async (): Promise<number> => {
    // Pace first, outside any transaction: the wait can be long and holds no lock. The slot is at
    // least the lead ahead, and the sender wakes the lead before it.
    const reserved = await reserveSendingSlot(d.db, supplier.code, supplier.emailRatePerSecond, leadMs);
    const slotAt = Date.now() + reserved;
    let wait = reserved - leadMs;
    while (wait > 0) {
      d.heartbeat?.();
      const step = Math.min(wait, 2000);
      await sleep(step);
      wait -= step;
    }
    d.heartbeat?.();
    return slotAt;
  };

  const policy = d.policy ?? emailQueuePolicy(d.smtpTimeoutMs);
  const setAside = async (id: number, byThisCall: boolean, reason: string) => {
    // Set aside, the e-mail is FAILED: post-import reports it (post_import.error), and it is sent
    // again only once an operator retried it and resent it (docs/customer-emails.md).
    await failQueued(d.db, { id }, now());
    result.setAside++;
    if (!byThisCall) return;
    d.metrics?.queueItemsSetAside.inc({ queue: 'email' });
    log.error({ emailId: id, reason: reason.slice(0, 300) }, 'customer e-mail set aside after its last attempt (data-import set-aside list --queue email)');
  };

  for (const e of queued) {
    const item = String(e.id);
    let slotAt = await waitForSlot();
    const claimFrom = Date.now();
    // The attempt is recorded and committed before the work (db/stores/queueItems.ts): an e-mail
    // that kills its worker (out of memory) leaves its count behind and is set aside after
    // policy.maxAttempts, instead of killing every worker that takes the account's activity.
    const label = { importSupplier: e.importSupplier, externalAccountNumber: e.externalAccountNumber };
    let claim = await claimItem(d.db, 'email', item, label, policy);
    if (!claim.taken && !claim.setAside && !(await isItemSetAside(d.db, 'email', item)) && !(await emailLocked(d.db, e.id))) {
      // Attempted within the lease, but no send holds the e-mail's row: that attempt's worker died
      // (its transaction rolled back). Taken over at once, as the activity's retry always did,
      // rather than one lease later; the row lock still keeps any live send alone.
      claim = await claimItem(d.db, 'email', item, label, { ...policy, leaseMs: 0 });
    }
    if (!claim.taken) {
      if (claim.setAside || (await isItemSetAside(d.db, 'email', item))) {
        await setAside(e.id, claim.setAside, 'its attempts ran out');
      } else {
        // Another sender's attempt is sending it (a lingering execution of the same activity):
        // left to it; the retry finds it done.
        result.deferred++;
      }
      continue;
    }
    const beat = d.heartbeat ? setInterval(d.heartbeat, 2000) : undefined;
    try {
      for (let sent = false, first = true; !sent; first = false) {
        const claimedFrom = first ? claimFrom : Date.now();
        sent = await d.db.transaction(async (trx) => {
          // Every session ends a transaction idle for longer than 20 s (db/knex.ts: a frozen or
          // silent worker's locks go); this one waits on the relay inside its transaction.
          await setIdleInTransactionTimeout(trx, sendIdleMs);
          const row = await getEmail(trx, e.id, { forUpdate: true });
          if (!row || row.status !== 'QUEUED' || !row.email) {
            await itemDone(trx, 'email', item);
            return true;
          }
          const mail = d.renderer.render(supplier.code, row.template as TemplateCode, { ...shared, customer: await customerContext(trx, row.userNumber) });
          // The next claim starts this one's time (and a quarter) before its slot; the lead
          // shrinks by half at most per claim once claims are quick again.
          const claimMs = Date.now() - claimedFrom;
          leadMs = Math.min(LEAD_MAX_MS, Math.max(Math.ceil(claimMs * 1.25), Math.floor(leadMs / 2)));
          // Claimed ahead of the slot: wait for it holding the claim (the lead at most).
          for (let early = slotAt - Date.now(); early > 0; early = slotAt - Date.now()) await sleep(early);
          const lateMs = Date.now() - slotAt;
          if (lateMs > toleranceMs) {
            log.info({ emailId: row.id, claimMs, lateMs, leadMs }, 'customer e-mail late for its slot: another slot taken');
            return false;
          }
          let answer: string;
          try {
            const info = (await d.transport.sendMail({
              from,
              to: row.email,
              replyTo: supplier.emailReplyTo ?? undefined,
              messageId: row.messageId ?? undefined,
              subject: mail.subject,
              html: mail.html,
              text: mail.text,
              headers: { 'X-Data-Import-Template': row.template },
              // The relay takes the message only once this transaction still answers (emails/confirmedEnd.ts).
              confirmBeforeEnd: transactionAnswers(trx, CONFIRM_TIMEOUT_MS),
            } as Parameters<MailTransport['sendMail']>[0] & ConfirmedMail)) as { response?: string };
            answer = info.response ?? '250 OK';
          } catch (err) {
            // The transaction is gone or silent: nothing was sent; the rollback leaves it QUEUED for the retry.
            if (err instanceof SessionNotConfirmedError) throw err;
            const v = classifySmtpError(err);
            const at = now();
            if (v.kind === 'bounce') {
              // The e-mail's own end (BOUNCED, its event published): done, not a failure to retry.
              const updated = await recordAttempt(trx, row.id, { status: 'BOUNCED', response: v.response }, at);
              await enqueueEvents(trx, d.subjectPrefix, [bouncedEvent(updated, at)]);
              await itemDone(trx, 'email', item);
              result.bounced++;
              log.warn({ emailId: row.id, smtpCode: v.code }, 'customer e-mail bounced');
            } else {
              // 4xx, refused, timed out: the relay's (or an outage's), retried by the activity with
              // backoff and FAILED when those retries run out; it never counts against the e-mail.
              await recordAttempt(trx, row.id, { status: 'QUEUED', response: v.response }, at);
              await itemGiveBack(trx, 'email', item);
              result.deferred++;
              result.lastDeferredCode = v.code;
              log.warn({ emailId: row.id, smtpCode: v.code }, 'customer e-mail deferred: temporary SMTP failure');
            }
            return true;
          }
          await recordAttempt(trx, row.id, { status: 'SENT', response: answer }, now());
          await itemDone(trx, 'email', item);
          result.sent++;
          log.info({ emailId: row.id, template: row.template }, 'customer e-mail sent');
          return true;
        });
        if (!sent) slotAt = await waitForSlot();
      }
    } catch (err) {
      // The transaction rolled back: the e-mail is still QUEUED and was not sent by this attempt.
      // A transaction that stopped answering before the message's end is the database's, not the e-mail's.
      if (err instanceof SessionNotConfirmedError || isDatabaseOutage(err)) {
        await itemGiveBack(d.db, 'email', item).catch(() => undefined);
        throw err;
      }
      // Its own failure (a template that throws on its data, a row that cannot be recorded): the
      // attempt counts, and the account's other e-mails go on.
      result.failed++;
      d.metrics?.queueItemFailures.inc({ queue: 'email' });
      log.warn({ emailId: e.id, attempt: claim.attempt, err: String(err).slice(0, 300) }, 'customer e-mail failed; the others go on');
      if (await itemFailed(d.db, 'email', item, String(err), policy)) await setAside(e.id, true, String(err));
    } finally {
      if (beat) clearInterval(beat);
    }
  }
  return result;
}
