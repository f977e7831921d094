import { ACCOUNT_TABLE_COLUMNS, AccountTable } from './accountColumns';
import type { Account } from './accountTypes';
import type { Row } from './accountRows';

export interface CreatedAccount {
  accountId: number;
  accountNumber: string;
  users: {
    userId: number;
    userNumber: string;
    email: string | null;
    psrRecords: { electricityIndustryCode: string; gasIndustryCode: string; description: string }[];
  }[];
  agreements: { agreementId: number; meterPointIdentifier: string; validFrom: string; productCode: string }[];
  metadata: { key: string; value: unknown }[];
  campaigns: { slug: string; campaignNote: string }[];
  dunningPath: { pathName: string; startDate: string; dunningProcessId: string } | null;
  meterPoints: {
    id: number;
    identifier: string;
    supplyType: 'ELECTRICITY' | 'GAS';
    mpid: string | null;
    supplyStartDate: string | null;
    etInProgress: boolean;
    drInProgress: boolean;
  }[];
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function dateText(v: unknown): string {
  // A DATE read without db/knex.ts's parser is a local-midnight Date: its local fields are the day.
  if (v instanceof Date) return `${pad(v.getFullYear(), 4)}-${pad(v.getMonth() + 1)}-${pad(v.getDate())}`;
  return String(v);
}

function datetimeText(v: unknown): string {
  const d = v instanceof Date ? v : new Date(String(v));
  // The spec's form is YYYY-MM-DDTHH:MM:SSZ; fractions appear only when the payload had them.
  return d.toISOString().replace('.000Z', 'Z');
}

/**
 * One database row in payload terms: ids as numbers, dates as 'YYYY-MM-DD', datetimes as ISO UTC,
 * each decimal as the text that was sent (the `_text` column when set, else numeric's own text),
 * and NULL columns left out (an optional field with no data is omitted, spec rule 1).
 */
export function fromDb(table: AccountTable, row: Row): Row {
  const columns = ACCOUNT_TABLE_COLUMNS[table] as Record<string, string>;
  const out: Row = {};
  for (const [name, type] of Object.entries(columns)) {
    if (type === 'numeric') {
      const v = row[`${name}_text`] ?? row[name];
      if (v !== null && v !== undefined) out[name] = String(v);
      continue;
    }
    if (name.endsWith('_text') && columns[name.slice(0, -5)] === 'numeric') continue;
    const v = row[name];
    if (v === null || v === undefined) continue;
    if (type === 'bigint') out[name] = Number(v);
    else if (type === 'date') out[name] = dateText(v);
    else if (type === 'timestamptz') out[name] = datetimeText(v);
    else out[name] = v;
  }
  return out;
}

export type LoadedRows = Partial<Record<AccountTable, Row[]>>;

/** Rows of `table` grouped by a parent column, in position order (the caller's SELECT orders them). */
function childrenOf(rows: LoadedRows, table: AccountTable, parentColumn: string): Map<number, Row[]> {
  const map = new Map<number, Row[]>();
  for (const row of rows[table] ?? []) {
    const key = row[parentColumn] as number;
    const list = map.get(key);
    if (list) list.push(row);
    else map.set(key, [row]);
  }
  return map;
}

function only(row: Row, fields: readonly string[]): Row {
  const out: Row = {};
  for (const f of fields) if (row[f] !== undefined) out[f] = row[f];
  return out;
}

/** Adds `key: list` when the list has elements: an empty array and an absent one read back alike. */
function withList(target: Row, key: string, list: unknown[] | undefined): void {
  if (list && list.length > 0) target[key] = list;
}

const PERSON_FIELDS = [
  'given_name',
  'family_name',
  'email',
  'mobile',
  'landline',
  'date_of_birth',
  'title',
  'salutation',
] as const;

/** The slice of an account the import workflow needs after the write (events, registration). */
export function createdFromRows(account: Row, rows: LoadedRows): CreatedAccount {
  const psrByUser = childrenOf(rows, 'psr_records', 'account_user_id');
  const meterPoints = rows.meter_points ?? [];
  const identifierById = new Map(meterPoints.map((mp) => [mp.id as number, mp.identifier as string]));
  const dunning = rows.dunning_paths?.[0];
  return {
    accountId: account.id as number,
    accountNumber: account.number as string,
    users: (rows.account_users ?? []).map((u) => ({
      userId: u.id as number,
      userNumber: u.user_number as string,
      email: (u.email as string | undefined) ?? null,
      psrRecords: (psrByUser.get(u.id as number) ?? []).map((p) => ({
        electricityIndustryCode: (p.elec_industry_code as string | undefined) ?? '',
        gasIndustryCode: (p.gas_industry_code as string | undefined) ?? '',
        description: (p.description as string | undefined) ?? '',
      })),
    })),
    agreements: (rows.agreements ?? []).map((g) => ({
      agreementId: g.id as number,
      meterPointIdentifier: identifierById.get(g.meter_point_id as number)!,
      validFrom: g.effective_from as string,
      productCode: g.tariff_code as string,
    })),
    metadata: (rows.account_metadata ?? []).map((m) => ({ key: m.key as string, value: m.value })),
    campaigns: (rows.account_campaigns ?? []).map((c) => ({
      slug: c.slug as string,
      campaignNote: (c.campaign_note as string | undefined) ?? '',
    })),
    dunningPath: dunning
      ? {
          pathName: dunning.path_name as string,
          startDate: (dunning.start_date as string | undefined) ?? '',
          dunningProcessId: dunning.dunning_process_id as string,
        }
      : null,
    meterPoints: meterPoints.map((mp) => ({
      id: mp.id as number,
      identifier: mp.identifier as string,
      supplyType: mp.supply_type as 'ELECTRICITY' | 'GAS',
      mpid: (mp.mpid as string | undefined) ?? null,
      supplyStartDate: (mp.supply_start_date as string | undefined) ?? null,
      etInProgress: mp.et_in_progress === true,
      drInProgress: mp.dr_in_progress === true,
    })),
  };
}

/** The payload again, from the rows (all converted by fromDb, each table in position order). */
export function accountFromRows(account: Row, rows: LoadedRows, references: Row[]): Account {
  const out: Row = only(account, [
    'import_supplier',
    'external_account_number',
    'billing_name',
    'billing_address1',
    'billing_address2',
    'billing_address3',
    'billing_address4',
    'billing_address5',
    'billing_postcode',
    'account_type',
    'sales_channel',
    'sales_subchannel',
    'transfer_balance',
    'last_billed_to_date',
    'last_payment_review_date',
    'next_bill_due_date',
    'smart_read_frequency',
    'smart_read_cycle_day',
    'communication_preference',
    'document_accessibility',
    'unknown_occupier',
    'operations_team_name',
  ]);

  const prefsByUser = childrenOf(rows, 'account_user_preferences', 'account_user_id');
  const psrByUser = childrenOf(rows, 'psr_records', 'account_user_id');
  // customers, supply_addresses, meter_points and meters are required arrays (account/schema.ts):
  // always written back, even empty.
  out.customers = (rows.account_users ?? []).map((u) => {
    const c = only(u, PERSON_FIELDS);
    withList(
      c,
      'psr',
      (psrByUser.get(u.id as number) ?? []).map((p) =>
        only(p, ['elec_industry_code', 'gas_industry_code', 'effective_from']),
      ),
    );
    const prefs = prefsByUser.get(u.id as number)?.[0];
    if (prefs) {
      c.customer_preferences = only(prefs, [
        'opted_into_sms',
        'opted_into_recommended',
        'opted_into_updates',
        'opted_into_third_parties',
        'opted_into_offers',
        'is_user_psr_consent_obtained',
      ]);
    }
    return c;
  });

  const adminsByProperty = childrenOf(rows, 'property_administrators', 'property_id');
  const pointsByProperty = childrenOf(rows, 'meter_points', 'property_id');
  const agreementsByPoint = childrenOf(rows, 'agreements', 'meter_point_id');
  const refusalByPoint = childrenOf(rows, 'smart_refusal_interests', 'meter_point_id');
  const eacByPoint = childrenOf(rows, 'eac_history', 'meter_point_id');
  const aqByPoint = childrenOf(rows, 'aq_history', 'meter_point_id');
  const metersByPoint = childrenOf(rows, 'meters', 'meter_point_id');
  const registersByMeter = childrenOf(rows, 'registers', 'meter_id');
  const transferByMeter = childrenOf(rows, 'transfer_readings', 'meter_id');
  const historyByMeter = childrenOf(rows, 'reading_history', 'meter_id');
  const prepayByMeter = childrenOf(rows, 'prepay_details', 'meter_id');

  const meter = (m: Row): Row => {
    const id = m.id as number;
    const out = only(m, ['meter_serial_number', 'installed_on', 'gas_number_of_digits', 'smart_type', 'is_prepay']);
    withList(
      out,
      'registers',
      (registersByMeter.get(id) ?? []).map((r) => only(r, ['register_id', 'tpr', 'number_of_digits', 'is_settlement'])),
    );
    const reading = ['register_id', 'reading_date', 'reading_value', 'reading_type'];
    withList(out, 'transfer_readings', (transferByMeter.get(id) ?? []).map((r) => only(r, reading)));
    withList(out, 'reading_history', (historyByMeter.get(id) ?? []).map((r) => only(r, [...reading, 'billed'])));
    const p = prepayByMeter.get(id)?.[0];
    if (p) {
      const details = only(p, ['debt_balance', 'credit_balance', 'transfer_vend_read_date']);
      const options = only(p, ['gas_debt_repayment_weekly_min', 'gas_debt_repayment_weekly_max']);
      if (Object.keys(options).length > 0) {
        details.gas_debt_repayment_options = {
          ...(options.gas_debt_repayment_weekly_min !== undefined && { weekly_min: options.gas_debt_repayment_weekly_min }),
          ...(options.gas_debt_repayment_weekly_max !== undefined && { weekly_max: options.gas_debt_repayment_weekly_max }),
        };
      }
      out.prepay_details = details;
    }
    return out;
  };

  const meterPoint = (mp: Row): Row => {
    const id = mp.id as number;
    const out = only(mp, [
      'identifier',
      'supply_type',
      'mpid',
      'shipper_mpid',
      'supply_start_date',
      'profile_class',
      'ssc',
      'et_in_progress',
      'dr_in_progress',
    ]);
    withList(out, 'agreements', (agreementsByPoint.get(id) ?? []).map((g) => only(g, ['tariff_code', 'effective_from', 'effective_to'])));
    out.meters = (metersByPoint.get(id) ?? []).map(meter);
    const refusal = refusalByPoint.get(id)?.[0];
    if (refusal) out.smart_refusal_interest = only(refusal, ['type', 'date', 'refusal_reason', 'source']);
    withList(
      out,
      'eac_history',
      (eacByPoint.get(id) ?? []).map((e) => only(e, ['effective_from', 'tpr', 'consumption', 'source'])),
    );
    withList(
      out,
      'aq_history',
      (aqByPoint.get(id) ?? []).map((q) => only(q, ['effective_from', 'effective_to', 'consumption'])),
    );
    return out;
  };

  out.supply_addresses = (rows.properties ?? []).map((p) => {
    const id = p.id as number;
    const s = only(p, [
      'supply_address1',
      'supply_address2',
      'supply_address3',
      'supply_address4',
      'supply_address5',
      'supply_postcode',
      'is_landlord',
      'customer_at_supply_address_from_date',
    ]);
    s.meter_points = (pointsByProperty.get(id) ?? []).map(meterPoint);
    withList(s, 'property_administrators', (adminsByProperty.get(id) ?? []).map((a) => only(a, PERSON_FIELDS)));
    return s;
  });

  const transactionsByLedger = childrenOf(rows, 'ledger_transactions', 'ledger_id');
  const transactionFields = ['transaction_id', 'transaction_date', 'amount', 'type', 'reason', 'payment_type'];
  withList(
    out,
    'ledgers',
    (rows.ledgers ?? []).map((l) => {
      const ledger = only(l, [
        'last_statement_closing_date',
        'last_statement_balance',
        'last_statement_issue_date',
        'ledger_balance',
      ]);
      const all = transactionsByLedger.get(l.id as number) ?? [];
      for (const statement of ['current', 'historical'] as const) {
        withList(
          ledger,
          `${statement}_statement_transactions`,
          all.filter((t) => t.statement === statement).map((t) => only(t, transactionFields)),
        );
      }
      return ledger;
    }),
  );

  withList(
    out,
    'payment_schedules',
    (rows.payment_schedules ?? []).map((p) =>
      only(p, [
        'amount',
        'day_of_month',
        'frequency',
        'means',
        'start_date',
        'is_debt_repayment_plan',
        'debt_repayment_element',
        'debt_repayment_end_date',
      ]),
    ),
  );
  withList(
    out,
    'references',
    references.map((r) => ({ namespace: r.namespace, value: r.value })),
  );
  const documentsByNote = childrenOf(rows, 'note_documents', 'note_id');
  withList(
    out,
    'notes',
    (rows.notes ?? []).map((n) => {
      const note = only(n, ['created_at', 'body']);
      withList(
        note,
        'document_paths',
        (documentsByNote.get(n.id as number) ?? []).map((d) => only(d, ['document_path'])),
      );
      return note;
    }),
  );
  withList(
    out,
    'statements',
    (rows.statements ?? []).map((s) =>
      only(s, ['bill_period_from_date', 'bill_period_to_date', 'statement_path', 'statement_id']),
    ),
  );
  withList(
    out,
    'warm_home_discount',
    (rows.warm_home_discounts ?? []).map((w) => {
      const { discount_group, ...rest } = only(w, ['tax_year', 'account_type', 'discount_group']);
      return discount_group === undefined ? rest : { ...rest, group: discount_group };
    }),
  );
  const dunning = rows.dunning_paths?.[0];
  if (dunning) out.dunning_path = only(dunning, ['path_name', 'start_date']);
  const agedByDebt = childrenOf(rows, 'aged_debts', 'debt_id');
  withList(
    out,
    'debts',
    (rows.debts ?? []).map((d) => {
      const debt = only(d, ['agency_name', 'start_date', 'is_insolvent']);
      withList(
        debt,
        'aged_debt',
        (agedByDebt.get(d.id as number) ?? []).map((x) => only(x, ['debt_amount', 'due_date'])),
      );
      return debt;
    }),
  );
  withList(
    out,
    'account_campaigns',
    (rows.account_campaigns ?? []).map((c) => only(c, ['slug', 'campaign_note'])),
  );
  withList(
    out,
    'metadata',
    (rows.account_metadata ?? []).map((m) => ({ key: m.key, value: m.value })),
  );
  // The rows were written from a validated Account, so reassembling them gives one back.
  return out as unknown as Account;
}
