import type { Columns, PgType } from './unnestInsert';

/**
 * The columns the account store writes, per table, with their types (the UNNEST casts). Kept beside
 * db/migrations/0003_account_tables.ts: a column added there and not here is simply not written.
 */

function decimal(name: string): Record<string, PgType> {
  return { [name]: 'numeric', [`${name}_text`]: 'text' };
}

const OWNED = { id: 'bigint', account_id: 'bigint', position: 'integer' } as const;
const OWNED_SINGLE = { id: 'bigint', account_id: 'bigint' } as const;

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

export const ACCOUNT_TABLE_COLUMNS = {
  accounts: {
    id: 'bigint',
    number: 'text',
    import_supplier: 'text',
    external_account_number: 'text',
    billing_name: 'text',
    billing_address1: 'text',
    billing_address2: 'text',
    billing_address3: 'text',
    billing_address4: 'text',
    billing_address5: 'text',
    billing_postcode: 'text',
    account_type: 'text',
    sales_channel: 'text',
    sales_subchannel: 'text',
    ...decimal('transfer_balance'),
    last_billed_to_date: 'date',
    last_payment_review_date: 'date',
    next_bill_due_date: 'date',
    smart_read_frequency: 'text',
    smart_read_cycle_day: 'integer',
    communication_preference: 'text',
    document_accessibility: 'text',
    is_imported: 'boolean',
    // Platform fields (db/migrations/0009_platform_import_surface.ts).
    unknown_occupier: 'boolean',
    operations_team_name: 'text',
  },
  account_users: { ...OWNED, user_number: 'text', ...PERSON },
  account_user_preferences: {
    ...OWNED_SINGLE,
    account_user_id: 'bigint',
    opted_into_sms: 'boolean',
    opted_into_recommended: 'boolean',
    opted_into_updates: 'boolean',
    opted_into_third_parties: 'boolean',
    opted_into_offers: 'boolean',
    is_user_psr_consent_obtained: 'boolean',
  },
  psr_records: {
    ...OWNED,
    account_user_id: 'bigint',
    elec_industry_code: 'text',
    gas_industry_code: 'text',
    effective_from: 'date',
    description: 'text',
  },
  properties: {
    ...OWNED,
    supply_address1: 'text',
    supply_address2: 'text',
    supply_address3: 'text',
    supply_address4: 'text',
    supply_address5: 'text',
    supply_postcode: 'text',
    is_landlord: 'boolean',
    customer_at_supply_address_from_date: 'date',
  },
  property_administrators: { ...OWNED, property_id: 'bigint', ...PERSON },
  meter_points: {
    ...OWNED,
    property_id: 'bigint',
    identifier: 'text',
    supply_type: 'text',
    mpid: 'text',
    shipper_mpid: 'text',
    supply_start_date: 'date',
    profile_class: 'integer',
    ssc: 'text',
    et_in_progress: 'boolean',
    dr_in_progress: 'boolean',
  },
  agreements: {
    ...OWNED,
    meter_point_id: 'bigint',
    tariff_code: 'text',
    effective_from: 'date',
    effective_to: 'date',
    valid_to: 'date',
  },
  smart_refusal_interests: {
    ...OWNED_SINGLE,
    meter_point_id: 'bigint',
    type: 'text',
    date: 'date',
    refusal_reason: 'text',
    source: 'text',
  },
  eac_history: {
    ...OWNED,
    meter_point_id: 'bigint',
    effective_from: 'date',
    tpr: 'text',
    ...decimal('consumption'),
    source: 'text',
  },
  aq_history: {
    ...OWNED,
    meter_point_id: 'bigint',
    effective_from: 'date',
    effective_to: 'date',
    ...decimal('consumption'),
  },
  meters: {
    ...OWNED,
    meter_point_id: 'bigint',
    meter_serial_number: 'text',
    installed_on: 'date',
    gas_number_of_digits: 'integer',
    smart_type: 'text',
    is_prepay: 'boolean',
  },
  registers: {
    ...OWNED,
    meter_id: 'bigint',
    register_id: 'text',
    tpr: 'text',
    number_of_digits: 'integer',
    is_settlement: 'boolean',
  },
  transfer_readings: {
    ...OWNED,
    meter_id: 'bigint',
    register_id: 'text',
    reading_date: 'date',
    ...decimal('reading_value'),
    reading_type: 'text',
  },
  reading_history: {
    ...OWNED,
    meter_id: 'bigint',
    register_id: 'text',
    reading_date: 'date',
    ...decimal('reading_value'),
    reading_type: 'text',
    billed: 'boolean',
  },
  prepay_details: {
    ...OWNED_SINGLE,
    meter_id: 'bigint',
    ...decimal('debt_balance'),
    ...decimal('credit_balance'),
    transfer_vend_read_date: 'date',
    ...decimal('gas_debt_repayment_weekly_min'),
    ...decimal('gas_debt_repayment_weekly_max'),
  },
  ledgers: {
    ...OWNED,
    last_statement_closing_date: 'date',
    ...decimal('last_statement_balance'),
    last_statement_issue_date: 'date',
    ...decimal('ledger_balance'),
  },
  ledger_transactions: {
    ...OWNED,
    ledger_id: 'bigint',
    statement: 'text',
    transaction_id: 'text',
    transaction_date: 'date',
    ...decimal('amount'),
    type: 'text',
    reason: 'text',
    payment_type: 'text',
  },
  payment_schedules: {
    ...OWNED,
    ...decimal('amount'),
    day_of_month: 'integer',
    frequency: 'text',
    means: 'text',
    start_date: 'date',
    is_debt_repayment_plan: 'boolean',
    debt_repayment_element: 'text',
    debt_repayment_end_date: 'date',
  },
  notes: { ...OWNED, created_at: 'timestamptz', body: 'text' },
  note_documents: { ...OWNED, note_id: 'bigint', document_path: 'text' },
  statements: {
    ...OWNED,
    bill_period_from_date: 'date',
    bill_period_to_date: 'date',
    statement_path: 'text',
    statement_id: 'text',
  },
  warm_home_discounts: { ...OWNED, tax_year: 'text', account_type: 'text', discount_group: 'text' },
  dunning_paths: { ...OWNED_SINGLE, path_name: 'text', start_date: 'date', dunning_process_id: 'text' },
  debts: { ...OWNED, agency_name: 'text', start_date: 'date', is_insolvent: 'boolean' },
  aged_debts: { ...OWNED, debt_id: 'bigint', ...decimal('debt_amount'), due_date: 'date' },
  account_campaigns: { ...OWNED, slug: 'text', campaign_note: 'text' },
  account_metadata: { ...OWNED, key: 'text', value: 'jsonb' },
  // Owned by db/migrations/0002_reference_data.ts: no id of ours, keyed by the account number.
  account_references: {
    namespace: 'text',
    value: 'text',
    account_number: 'text',
    import_supplier: 'text',
    external_account_number: 'text',
  },
} as const satisfies Record<string, Columns>;

export type AccountTable = keyof typeof ACCOUNT_TABLE_COLUMNS;

/** Tables whose rows belong to an account through `account_id` (all but accounts and account_references). */
export const OWNED_TABLES = Object.keys(ACCOUNT_TABLE_COLUMNS).filter(
  (t) => t !== 'accounts' && t !== 'account_references',
) as Exclude<AccountTable, 'accounts' | 'account_references'>[];

/** Foreign-key column → the table whose local ids it holds until allocateIds gives real ones. */
export const PARENT_OF: Readonly<Record<string, AccountTable>> = {
  account_user_id: 'account_users',
  property_id: 'properties',
  meter_point_id: 'meter_points',
  meter_id: 'meters',
  ledger_id: 'ledgers',
  note_id: 'notes',
  debt_id: 'debts',
};
