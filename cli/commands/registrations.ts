import { Command, Option } from 'commander';
import { listRegistrations, Registration, REGISTRATION_STATUSES, RegistrationStatus } from '../../registration/store';
import { print, withDb } from '../context';
import { integerIn, json, table, withExamples } from '../format';

/**
 * `data-import registrations`: the meter points marked for registration with the industry
 * (send-registration-flows), as PostgreSQL records them.
 */

export function registrationJson(r: Registration) {
  return {
    id: r.id,
    import_supplier: r.importSupplier,
    external_account_number: r.externalAccountNumber,
    account_number: r.accountNumber,
    mpxn: r.mpxn,
    supply_type: r.supplyType,
    supply_start_date: r.supplyStartDate,
    supplier_mpid: r.supplierMpid,
    status: r.status,
    requested_by: r.requestedBy,
    requested_at: r.requestedAt.toISOString(),
    event_id: r.eventId,
  };
}

interface ListOptions {
  supplier?: string;
  status?: RegistrationStatus;
  limit: number;
  json?: boolean;
}

export function register(program: Command): void {
  const group = program
    .command('registrations')
    .description('Meter points marked for registration with the industry by send-registration-flows.');
  withExamples(group, ['data-import registrations list --supplier DEMO_ENERGY']);

  withExamples(
    group
      .command('list')
      .description(
        'List meter point registrations, newest first. Status MARKED: marked by send-registration-flows, its registration.requested event queued; ' +
          'SENT, CONFIRMED and REJECTED are set by the downstream registration process.',
      )
      .option('--supplier <code>', 'only registrations of this import supplier')
      .addOption(new Option('--status <STATUS>', 'only registrations in this status').choices(REGISTRATION_STATUSES))
      .option('--limit <n>', 'at most this many registrations (1-10000)', integerIn(1, 10_000), 100)
      .option('--json', 'print a JSON array instead of a table'),
    [
      'data-import registrations list',
      'data-import registrations list --supplier DEMO_ENERGY --status MARKED',
      'data-import registrations list --supplier DEMO_ENERGY --json',
    ],
  ).action(async (opts: ListOptions) => {
    await withDb(async (db) => {
      const rows = await listRegistrations(db, { importSupplier: opts.supplier, status: opts.status, limit: opts.limit });
      if (opts.json) return print(json(rows.map(registrationJson)));
      print(
        table(
          ['ID', 'SUPPLIER', 'EXTERNAL ACCOUNT', 'ACCOUNT', 'MPXN', 'FUEL', 'SUPPLY START', 'STATUS', 'REQUESTED BY', 'REQUESTED AT'],
          rows.map((r) => [
            r.id,
            r.importSupplier,
            r.externalAccountNumber,
            r.accountNumber,
            r.mpxn,
            r.supplyType,
            r.supplyStartDate,
            r.status,
            r.requestedBy,
            r.requestedAt,
          ]),
          '(no registrations)',
        ),
      );
    });
  });
}
