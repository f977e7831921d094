import type { CreatedAccount, CreatedConsent } from '../db/stores/accountStore';
import { ledgerNumber } from '../events/ledgerNumber';
import type { NewEvent } from '../events/outbox';
import { ev, type EventScope } from './eventScope';

// The events of the platform's Account data that the catalogue has an event for (issue 35; what
// each payload field is made of: docs/events.md "What an imported account publishes"). Each is
// named after its row's id, which a retried create reads back unchanged, so its key is stable.

/** The signing identity of the account's own consents and of a customer's (consents.consent.created). */
export const SIGNING_IDENTITY = { account: 'account', accountUser: 'account_user' } as const;

/**
 * A decimal amount of pounds (the payload's text) in whole pence, as the catalogue's int amounts
 * are: exact on the text, half a penny and more rounded away from zero ('12.345' → 1235).
 */
export function pence(decimal: string): number {
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(decimal);
  if (!m) throw new Error(`not a decimal: ${decimal}`);
  const [, sign, whole, fraction = ''] = m;
  const cents = BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, '0').slice(0, 2)) + (fraction.charAt(2) >= '5' ? 1n : 0n);
  const n = Number(cents);
  return sign && n !== 0 ? -n : n;
}

/** A free-form value (metadata, a consent type) as the catalogue's str: a string as it is, anything else as JSON text. */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

function consentEvent(scope: EventScope, identityType: string, identity: string, c: CreatedConsent): NewEvent {
  return ev(scope, 'consents.consent.created', 'v1', `consents.consent.created:${identityType}:${c.id}`, {
    signing_identity: { identity_type: identityType, identity },
    consent: {
      id: c.id,
      consent_type_code: asText(c.type),
      value: c.value,
      // The platform's default for a consent sent without signed_at: the time of the import.
      signed_at: c.signedAt ?? scope.at.toISOString(),
    },
  });
}

/**
 * The business, consents, metadata and deposit agreements of a created account, in that order:
 * after the account, its users and its agreements (accountCreatedEvents), before the import's end.
 */
export function accountDataEvents(scope: EventScope, created: CreatedAccount): NewEvent[] {
  const n = created.accountNumber;
  const out: NewEvent[] = [];
  if (created.business) out.push(ev(scope, 'business.created', 'v1', 'business.created', { id: created.business.id }));

  for (const c of created.consents) out.push(consentEvent(scope, SIGNING_IDENTITY.account, n, c));
  for (const u of created.users) {
    for (const c of u.consents) out.push(consentEvent(scope, SIGNING_IDENTITY.accountUser, u.userNumber, c));
  }

  for (const u of created.users) {
    for (const m of u.metadata) {
      out.push(
        ev(scope, 'account_user_metadata.created', 'v1', `account_user_metadata.created:${m.id}`, {
          user_id: u.userId,
          key: m.key,
          value: asText(m.value),
        }),
      );
    }
  }
  for (const m of created.propertyMetadata) {
    out.push(
      // The account's period at a property is its supply address (customer_at_supply_address_from/to_date): its row's id.
      ev(scope, 'account_property_effective_period_metadata.created', 'v1', `account_property_effective_period_metadata.created:${m.id}`, {
        account_property_effective_period_id: m.propertyId,
        key: m.key,
        value: asText(m.value),
      }),
    );
  }

  // A deposit is held on a ledger: the account's first. An account imported without a ledger has
  // none to name, so its deposit agreements publish nothing (docs/events.md).
  if (created.ledgerCount > 0) {
    created.depositAgreements.forEach((d, i) => {
      const fields = {
        deposit_key: `${n}-D${i + 1}`,
        reason: d.reason,
        amount: pence(d.depositAmount),
        account_number: n,
        ledger_identifier: ledgerNumber(n, 0),
      };
      if (d.acceptedAt !== null) {
        out.push(ev(scope, 'deposit_agreement.accepted', 'v1', `deposit_agreement.accepted:${d.id}`, { ...fields, accepted_at: d.acceptedAt }));
      }
      if (d.fulfilledAt !== null) {
        out.push(ev(scope, 'deposit_agreement.fulfilled', 'v1', `deposit_agreement.fulfilled:${d.id}`, { ...fields, fulfilled_at: d.fulfilledAt }));
      }
    });
  }
  return out;
}
