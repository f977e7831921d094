import { londonToday } from '../account/dates';
import type { NewEvent } from '../events/outbox';
import type { CreatedAccount } from '../db/stores/accountStore';
import { accountDataEvents } from './accountDataEvents';
import { ev, type EventScope } from './eventScope';

export type { EventScope } from './eventScope';

/** resource_type of import-process events: what the process imports. */
export const RESOURCE_TYPE = 'account';
/** resource_type of post-import events (their import_process_resource_type is RESOURCE_TYPE). */
export const POST_IMPORT_RESOURCE_TYPE = 'account_post_import';

/**
 * The events of a created account (docs/spec/DESIGN.md "Events"), in the order consumers see them: the
 * account and what hangs off it first, the import's `complete` last, so a consumer that reacts
 * to `complete` finds every other event already delivered.
 */
export function accountCreatedEvents(scope: EventScope, created: CreatedAccount): NewEvent[] {
  const n = created.accountNumber;
  const out: NewEvent[] = [];
  out.push(
    ev(scope, 'account.created', 'v1', 'account.created', {
      account_number: n,
      account_user_emails: created.users.map((u) => u.email).filter((e): e is string => !!e),
      is_imported: true,
    }),
  );
  for (const u of created.users) {
    out.push(
      ev(scope, 'account_user.created', 'v1', `account_user.created:${u.userNumber}`, {
        user_id: u.userId,
        user_email: u.email ?? '',
        user_number: u.userNumber,
        linked_accounts: [{ account_number: n }],
        initiator_type: 'data_import',
        is_customer_initiated: false,
      }),
    );
  }
  for (const a of created.agreements) {
    out.push(
      ev(scope, 'agreement.created', 'v1', `agreement.created:${a.agreementId}`, {
        agreement_id: a.agreementId,
        account_number: n,
        valid_from: a.validFrom,
        product_code: a.productCode,
        ...(a.businessContractIdentifier !== null ? { business_contract_identifier: a.businessContractIdentifier } : {}),
      }),
    );
  }
  created.metadata.forEach((m, i) => {
    out.push(
      ev(scope, 'account_metadata.created', 'v1', `account_metadata.created:${i}`, {
        account_number: n,
        key: m.key,
        // The catalogue types metadata values as strings; ours are objects, sent as JSON text.
        value: typeof m.value === 'string' ? m.value : JSON.stringify(m.value),
      }),
    );
  });
  for (const c of created.campaigns) {
    // A campaign named by its slug carries the slug as its name too; one named by campaign_name has no slug.
    const name = c.campaignName ?? c.slug ?? '';
    out.push(
      ev(scope, 'campaign_account.added', 'v1', `campaign_account.added:${c.slug ?? `name:${name}`}`, {
        account_number: n,
        campaign_name: name,
        ...(c.slug === null ? {} : { campaign_slug: c.slug }),
        // The platform's expiry_date is when the account leaves the campaign (not when the
        // campaign itself ends): the catalogue's campaign_account_expiry_date.
        ...(c.expiryDate !== null ? { campaign_account_expiry_date: c.expiryDate } : {}),
      }),
    );
  }
  out.push(...accountDataEvents(scope, created));
  if (created.dunningPath) {
    out.push(
      ev(scope, 'dunning_path_started', 'v1', 'dunning_path_started', {
        dunning_path_name: created.dunningPath.pathName,
        dunning_process_id: created.dunningPath.dunningProcessId,
        account_number: n,
        created_note: 'Dunning path carried over by data import',
        // Without a start date the platform starts the path on the migration date (delayed by its
        // import configuration's days, which this service does not have): the import's day.
        start_date: created.dunningPath.startDate ?? londonToday(scope.at),
      }),
    );
  }
  for (const u of created.users) {
    if (u.psrRecords.length === 0) continue;
    out.push(
      ev(scope, 'account_user.psr_records_updated', 'v1', `account_user.psr_records_updated:${u.userNumber}`, {
        user_id: u.userId,
        created_records: u.psrRecords.map((p) => ({
          description: p.description,
          electricity_industry_code: p.electricityIndustryCode,
          gas_industry_code: p.gasIndustryCode,
        })),
        updated_records: [],
        deleted_records: [],
      }),
    );
  }
  out.push(
    ev(scope, 'data_import.import_process.complete', 'v1', 'complete', {
      resource_type: RESOURCE_TYPE,
      external_identifier: scope.externalAccountNumber,
      identifier: n,
    }),
  );
  return out;
}

export function dryRunCompleteEvent(scope: EventScope): NewEvent {
  return ev(scope, 'data_import.import_process.dry_run_complete', 'v1', 'dry_run_complete', {
    resource_type: RESOURCE_TYPE,
    external_identifier: scope.externalAccountNumber,
  });
}

export function errorEvent(scope: EventScope, dryRun: boolean, code: string, detail: string): NewEvent {
  const type = dryRun ? 'data_import.import_process.dry_run_error' : 'data_import.import_process.error';
  return ev(scope, type, 'v1', dryRun ? 'dry_run_error' : 'error', {
    resource_type: RESOURCE_TYPE,
    external_identifier: scope.externalAccountNumber,
    error_code: code,
    error_detail: detail,
  });
}

export function cancelledEvent(scope: EventScope, windowEnd: Date): NewEvent {
  return ev(scope, 'data_import.import_process.cancelled', 'v1', 'cancelled', {
    resource_type: RESOURCE_TYPE,
    external_identifier: scope.externalAccountNumber,
    expiry_window_end: windowEnd.toISOString(),
  });
}

export function postImportCompletedEvent(scope: EventScope, accountNumber: string): NewEvent {
  return ev(scope, 'data_import.import_process.post_import.completed', 'v1', 'post_import.completed', {
    resource_type: POST_IMPORT_RESOURCE_TYPE,
    import_process_resource_type: RESOURCE_TYPE,
    import_process_external_identifier: scope.externalAccountNumber,
    identifier: accountNumber,
  });
}

export function postImportErrorEvent(scope: EventScope, code: string, detail: string): NewEvent {
  return ev(scope, 'data_import.import_process.post_import.error', 'v1', 'post_import.error', {
    resource_type: POST_IMPORT_RESOURCE_TYPE,
    import_process_resource_type: RESOURCE_TYPE,
    import_process_external_identifier: scope.externalAccountNumber,
    error_code: code,
    error_detail: detail,
  });
}
