// long-file (375 lines): the Account's storage described once: every table and column in one list.
import type { ColumnType, TableSpec, WriteContext } from './accountTableSpec';
import { TOP_LEVEL_MARK } from './ledgerForm';
import { platformTables } from './platformTables';

export type { ColumnType, PlanInput, Row, WriteContext } from './accountTableSpec';

/**
 * The Account's storage, described once: each table, the payload objects its rows come from, its
 * parent, and its columns with the payload field each one holds. planAccountRows (accountRows.ts)
 * derives the rows to insert from it, accountFromRows (accountAssemble.ts) the Account read back.
 * The tables themselves are made by the explicit migrations (0002 for account_references, 0003,
 * 0009); test/integration/accountTables.test.ts holds the migrated database to this description.
 *
 * Adding a payload field: account/schema.ts, a migration, and one column line here.
 */

const PERSON = {
  given_name: 'text',
  family_name: 'text',
  email: 'text',
  mobile: 'text',
  landline: 'text',
  date_of_birth: 'date',
  title: 'text',
  salutation: 'text',
} as const;

const READING = { register_id: 'text', reading_date: 'date', reading_value: 'decimal', reading_type: 'text' } as const;

function addressLines(prefix: string, from: number): Record<string, 'text'> {
  const lines: Record<string, 'text'> = {};
  for (let i = from; i <= 5; i++) lines[`${prefix}${i}`] = 'text';
  return lines;
}

function dayAfter(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/**
 * valid_to (exclusive) is the next agreement's start: validation makes them consecutive. The last
 * one runs open-ended unless the legacy system closed it (effective_to is inclusive).
 */
function validTo({ item, siblings }: WriteContext): string | null {
  const from = item.effective_from as string;
  let next: string | undefined;
  for (const s of siblings) {
    const d = s.effective_from as string;
    if (d > from && (next === undefined || d < next)) next = d;
  }
  return next ?? (item.effective_to ? dayAfter(item.effective_to as string) : null);
}

const fromInput = (key: 'accountNumber' | 'importSupplier' | 'externalAccountNumber') => (c: WriteContext) => c.input[key];

/** In insert order (parents before children); deleteAccount removes them in reverse. */
export const ACCOUNT_TABLES = {
  accounts: {
    one: true,
    columns: {
      number: { type: 'text', notNull: true, write: fromInput('accountNumber') },
      // Written from the caller's key (the same values the payload holds), read back as fields.
      import_supplier: { type: 'text', notNull: true, field: 'import_supplier', write: fromInput('importSupplier') },
      external_account_number: {
        type: 'text',
        notNull: true,
        field: 'external_account_number',
        write: fromInput('externalAccountNumber'),
      },
      billing_name: 'text',
      ...addressLines('billing_address', 1),
      billing_postcode: 'text',
      account_type: 'text',
      sales_channel: 'text',
      sales_subchannel: 'text',
      transfer_balance: 'decimal',
      last_billed_to_date: 'date',
      last_payment_review_date: 'date',
      next_bill_due_date: 'date',
      smart_read_frequency: 'text',
      smart_read_cycle_day: 'integer',
      communication_preference: 'text',
      document_accessibility: 'text',
      is_imported: { type: 'boolean', notNull: true, write: () => true },
      // Platform fields (db/migrations/0009_platform_import_surface.ts).
      unknown_occupier: 'boolean',
      operations_team_name: 'text',
      // Deprecated by the platform (db/migrations/0018_payment_instructions.ts).
      dd_reference: 'text',
    },
  },
  account_users: {
    path: 'customers',
    required: true,
    columns: {
      user_number: { type: 'text', notNull: true, write: (c) => c.input.userNumbers[c.index] },
      ...PERSON,
      // Vulnerability and authority (db/migrations/0019_platform_account.ts); the roles as JSON arrays.
      unable_to_read_meters: 'boolean',
      deceased: 'text',
      role: 'text',
      account_roles: 'jsonb',
      portfolio_roles: 'jsonb',
    },
  },
  account_user_preferences: {
    parent: 'account_users',
    path: 'customer_preferences',
    one: true,
    columns: {
      opted_into_sms: 'boolean',
      opted_into_recommended: 'boolean',
      opted_into_updates: 'boolean',
      opted_into_third_parties: 'boolean',
      opted_into_offers: 'boolean',
      is_user_psr_consent_obtained: 'boolean',
      partner_password: 'text',
    },
  },
  psr_records: {
    parent: 'account_users',
    path: 'psr',
    columns: {
      elec_industry_code: 'text',
      gas_industry_code: 'text',
      // The field as sent (a date, or the platform's date-time) and its day, queryable (migration 0019).
      effective_from_sent: { type: 'text', notNull: true, field: 'effective_from' },
      effective_from: { type: 'date', write: (c) => String(c.item.effective_from).slice(0, 10) },
      effective_to_sent: { type: 'text', field: 'effective_to' },
      effective_to: { type: 'date', write: (c) => (c.item.effective_to === undefined ? null : String(c.item.effective_to).slice(0, 10)) },
      // The payload's description; `description` below is the needs code's, from reference data.
      given_description: { type: 'text', field: 'description' },
      additional_information: 'text',
      // Not in the payload: filled from reference data by insertAccount.
      description: { type: 'text', notNull: true, write: () => '' },
    },
  },
  properties: {
    path: 'supply_addresses',
    columns: {
      ...addressLines('supply_address', 1),
      supply_postcode: 'text',
      is_landlord: 'boolean',
      customer_at_supply_address_from_date: 'date',
    },
  },
  property_administrators: { parent: 'properties', path: 'property_administrators', columns: PERSON },
  meter_points: {
    parent: 'properties',
    path: 'meter_points',
    required: true,
    columns: {
      identifier: { type: 'text', notNull: true },
      supply_type: { type: 'text', notNull: true },
      mpid: 'text',
      shipper_mpid: 'text',
      supply_start_date: 'date',
      profile_class: 'integer',
      ssc: 'text',
      et_in_progress: 'boolean',
      dr_in_progress: 'boolean',
    },
  },
  agreements: {
    parent: 'meter_points',
    path: 'agreements',
    columns: {
      tariff_code: { type: 'text', notNull: true },
      effective_from: { type: 'date', notNull: true },
      effective_to: 'date',
      valid_to: { type: 'date', write: validTo },
    },
  },
  smart_refusal_interests: {
    parent: 'meter_points',
    path: 'smart_refusal_interest',
    one: true,
    columns: { type: 'text', date: 'date', refusal_reason: 'text', source: 'text' },
  },
  eac_history: {
    parent: 'meter_points',
    path: 'eac_history',
    columns: { effective_from: 'date', tpr: 'text', consumption: 'decimal', source: 'text' },
  },
  aq_history: {
    parent: 'meter_points',
    path: 'aq_history',
    columns: { effective_from: 'date', effective_to: 'date', consumption: 'decimal' },
  },
  meters: {
    parent: 'meter_points',
    path: 'meters',
    columns: {
      meter_serial_number: 'text',
      installed_on: 'date',
      gas_number_of_digits: 'integer',
      smart_type: 'text',
      is_prepay: 'boolean',
    },
  },
  registers: {
    parent: 'meters',
    path: 'registers',
    columns: { register_id: 'text', tpr: 'text', number_of_digits: 'integer', is_settlement: 'boolean' },
  },
  transfer_readings: { parent: 'meters', path: 'transfer_readings', columns: READING },
  reading_history: { parent: 'meters', path: 'reading_history', columns: { ...READING, billed: 'boolean' } },
  prepay_details: {
    parent: 'meters',
    path: 'prepay_details',
    one: true,
    columns: {
      debt_balance: 'decimal',
      credit_balance: 'decimal',
      transfer_vend_read_date: 'date',
      // gas_debt_repayment_options is a two-field object: flattened, present when either is set.
      gas_debt_repayment_weekly_min: { type: 'decimal', field: 'gas_debt_repayment_options.weekly_min' },
      gas_debt_repayment_weekly_max: { type: 'decimal', field: 'gas_debt_repayment_options.weekly_max' },
    },
  },
  ledgers: {
    path: 'ledgers',
    columns: {
      last_statement_closing_date: 'date',
      last_statement_balance: 'decimal',
      last_statement_issue_date: 'date',
      ledger_balance: 'decimal',
      // The platform's top-level form (ledgerForm.ts): read back at the top of the Account.
      top_level_form: { type: 'boolean', field: TOP_LEVEL_MARK },
    },
  },
  ledger_transactions: {
    parent: 'ledgers',
    // Which of the ledger's two arrays the transaction came from; position counts within that array.
    split: {
      column: 'statement',
      paths: { current: 'current_statement_transactions', historical: 'historical_statement_transactions' },
    },
    columns: {
      transaction_id: 'text',
      transaction_date: 'date',
      amount: 'decimal',
      type: 'text',
      reason: 'text',
      payment_type: 'text',
    },
  },
  payment_schedules: {
    path: 'payment_schedules',
    columns: {
      amount: 'decimal',
      day_of_month: 'integer',
      frequency: 'text',
      means: 'text',
      start_date: 'date',
      is_debt_repayment_plan: 'boolean',
      debt_repayment_element: 'text',
      debt_repayment_end_date: 'date',
      // The platform's schedule detail (db/migrations/0019_platform_account.ts).
      paid_by: 'text',
      end_date: 'date',
      trigger: 'text',
      ledger_code: 'text',
      balance_threshold: 'decimal',
      delay_days: 'integer',
      delay_strategy: 'text',
      exempt_from_payment_adequacy: 'boolean',
    },
  },
  payment_instructions: {
    path: 'payment_instructions',
    columns: {
      // The tenant scope: the supplier the account was imported on (computed, not read back).
      import_supplier: { type: 'text', notNull: true, write: fromInput('importSupplier') },
      reference: { type: 'text', notNull: true },
      type: { type: 'text', notNull: true },
      vendor: { type: 'text', notNull: true },
      ledger_code: 'text',
      use_for_scheduled_payments: 'boolean',
      valid_from: 'date',
      customer_reference: 'text',
      instruction_identifier: 'text',
      sort_code: 'text',
      bank_account_number: 'text',
    },
  },
  payment_preferences: {
    path: 'payment_preferences',
    columns: {
      type: { type: 'text', notNull: true },
      ledger_identifier: { type: 'text', notNull: true },
      vendor_name: { type: 'text', field: 'instruction_reference_params.vendor_name' },
      vendor_reference: { type: 'text', field: 'instruction_reference_params.vendor_reference' },
      instruction_identifier: { type: 'text', field: 'instruction_reference_params.instruction_identifier' },
    },
  },
  notes: { path: 'notes', columns: { created_at: 'timestamptz', body: 'text' } },
  note_documents: { parent: 'notes', path: 'document_paths', columns: { document_path: 'text' } },
  statements: {
    path: 'statements',
    columns: { bill_period_from_date: 'date', bill_period_to_date: 'date', statement_path: 'text', statement_id: 'text' },
  },
  warm_home_discounts: {
    path: 'warm_home_discount',
    // The payload's `group`: renamed because GROUP is an SQL keyword that operators would have to quote.
    columns: { tax_year: 'text', account_type: 'text', discount_group: { type: 'text', field: 'group' } },
  },
  dunning_paths: {
    path: 'dunning_path',
    one: true,
    columns: {
      path_name: { type: 'text', notNull: true },
      start_date: 'date',
      dunning_process_id: { type: 'text', notNull: true, write: (c) => c.input.dunningProcessId },
    },
  },
  debts: { path: 'debts', columns: { agency_name: 'text', start_date: 'date', is_insolvent: 'boolean' } },
  aged_debts: { parent: 'debts', path: 'aged_debt', columns: { debt_amount: 'decimal', due_date: 'date' } },
  account_campaigns: { path: 'account_campaigns', columns: { slug: 'text', campaign_note: 'text' } },
  account_metadata: { path: 'metadata', columns: { key: { type: 'text', notNull: true }, value: 'jsonb' } },
  account_references: {
    path: 'references',
    byAccountNumber: true,
    columns: {
      namespace: { type: 'text', notNull: true },
      value: { type: 'text', notNull: true },
      account_number: { type: 'text', write: fromInput('accountNumber') },
      import_supplier: { type: 'text', notNull: true, write: fromInput('importSupplier') },
      external_account_number: { type: 'text', notNull: true, write: fromInput('externalAccountNumber') },
    },
  },
} as const satisfies Record<string, TableSpec>;

/**
 * The platform's other fields (platformTables.ts): columns added to the tables above and tables of
 * their own, worked out from account/platformAccount.json.
 */
const PLATFORM = platformTables(ACCOUNT_TABLES);

/** A table of the account: one of ACCOUNT_TABLES or of the platform's (platformTables.ts). */
export type AccountTable = string;

/** Every table of the account, parents before children: the hand-described ones, then the platform's. */
export const TABLE_SPECS: Readonly<Record<AccountTable, TableSpec>> = {
  ...Object.fromEntries(
    Object.entries(ACCOUNT_TABLES as Readonly<Record<string, TableSpec>>).map(([table, spec]) => [
      table,
      { ...spec, columns: { ...spec.columns, ...(PLATFORM.added[table] ?? {}) } as Record<string, ColumnType> },
    ]),
  ),
  ...PLATFORM.tables,
};

/** The platform's tables of their own (platformTables.ts), as opposed to the hand-described ones. */
export const PLATFORM_TABLES: ReadonlySet<AccountTable> = new Set(Object.keys(PLATFORM.tables));

/** Tables whose rows belong to an account through `account_id` (all but accounts and account_references). */
export const OWNED_TABLES: readonly AccountTable[] = Object.keys(TABLE_SPECS).filter(
  (t) => t !== 'accounts' && !TABLE_SPECS[t]!.byAccountNumber,
);

/** The column holding the parent's id: account_users → account_user_id, properties → property_id. */
export const PARENT_COLUMN: Readonly<Record<string, string>> = {
  account_users: 'account_user_id',
  properties: 'property_id',
  meter_points: 'meter_point_id',
  meters: 'meter_id',
  ledgers: 'ledger_id',
  notes: 'note_id',
  debts: 'debt_id',
  ...PLATFORM.parentColumns,
};
