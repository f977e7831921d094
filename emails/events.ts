import type { NewEvent } from '../events/outbox';
import { accountOrderingKey } from '../events/orderingKey';
import type { CustomerEmail } from './store';

/**
 * comms.customer_email_bounced-v1 (catalogue fields). Keyed by the e-mail and its attempt, so the
 * same bounce recorded twice is one event, and a resent e-mail that bounces again is a new one.
 * Ordered with the other events of the account's import.
 */
export function bouncedEvent(e: CustomerEmail, at: Date): NewEvent {
  return {
    type: 'comms.customer_email_bounced',
    version: 'v1',
    key: `customer_email:${e.id}:bounced:attempt-${e.attempts}`,
    orderingKey: accountOrderingKey(e.importSupplier ?? '', e.externalAccountNumber ?? e.accountNumber),
    occurredAt: at,
    data: {
      account_number: e.accountNumber,
      user_id: e.userId ?? 0,
      message_id: e.id,
      template_code: e.template,
      bounced_at: at.toISOString(),
    },
  };
}
