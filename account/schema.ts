/**
 * The Account payload of docs/spec/data-import-api.md as TypeBox schemas (plain JSON Schema data).
 * Compiled once by account/ajv.ts; the same data produces the OpenAPI document (api/openapi.ts).
 * The Account itself is below; its sections are in account/schema/, each reading top to bottom
 * like the spec's field tables: customers.ts (customers, PSR, property administrators),
 * supply.ts (supply addresses, meter points, meters, readings), payments.ts (ledgers,
 * transactions, payment schedules, instructions and preferences), records.ts (references, notes,
 * statements, Warm Home Discount, dunning, debts, campaigns, metadata); common.ts holds the
 * building blocks (text, dates, decimals, enums, array caps). Field groups used twice (person,
 * reading, address lines) are written once.
 *
 * Required vs optional (the spec leaves it "not shown"; general rule 1: optional fields with no
 * data are omitted):
 * - Required: fields that identify a record or give it structure, without which the record
 *   means nothing — import_supplier, external_account_number, customers, supply_addresses;
 *   customer given_name/family_name; supply_address1, supply_postcode, meter_points;
 *   identifier, supply_type, meters; meter_serial_number; register_id; reading_date,
 *   reading_value, reading_type; agreement tariff_code/effective_from; eac/aq effective_from,
 *   consumption (+ eac tpr); ledger_balance; transaction_date, amount, type; payment schedule
 *   amount, frequency, means, start_date; reference namespace/value;
 *   statement bill period dates and statement_id; warm home discount fields; dunning_path path_name;
 *   aged_debt debt_amount/due_date; campaign slug; metadata key/value; PSR effective_from;
 *   smart_refusal_interest type; gas_debt_repayment_options weekly_min/weekly_max.
 * - Optional: every descriptive field, every field marked `?` in the spec, and fields whose
 *   absence is reported by a domain rule with its own code (register `tpr` →
 *   registers_missing_for_active_electricity_meter, `transaction_id` → missing_transaction_id,
 *   PSR industry codes → psr_industry_code_not_provided, debt `agency_name` →
 *   debt_collection_agency_name_required), so the integrator gets the documented code.
 * - Text: identifying text (`Code`) must not be blank (`blank`); descriptive text (`Text`) may
 *   be an empty string (spec general rule 6).
 * - Enumerations: the values the spec lists plus the rest of the obvious set (documented per
 *   field in its section). `reason`, `debt_repayment_element`, `ssc` stay free text: their sets are open.
 * - Extension: agreements accept an optional `effective_to` so that "no gaps or overlaps" can be
 *   checked when the legacy system closes agreements; without it, each agreement runs until the
 *   next one starts.
 * - `metadata[].value` is the only free-form object (spec: "value object (free-form)"): freeForm().
 * - Array caps (maxItems) bound hostile payloads: readings 20,000 per meter, transactions 100,000
 *   per ledger array, other arrays as written in the sections (generous for any real account).
 */
import { Type, type Static } from '@sinclair/typebox';
import { withPlatformValues as platform } from './platformAccount';
import { obj, arr, Text, Code, DateStr, Decimal, Enum, Opt, addressLines, LIMITS } from './schema/common';
import { CustomerSchema } from './schema/customers';
import { SupplyAddressSchema } from './schema/supply';
import { TransactionSchema, LedgerSchema, PaymentScheduleSchema, PaymentInstructionSchema, PaymentPreferenceSchema } from './schema/payments';
import {
  ReferenceSchema,
  NoteSchema,
  StatementSchema,
  WarmHomeDiscountSchema,
  DunningPathSchema,
  DebtSchema,
  AccountCampaignSchema,
  MetadataSchema,
} from './schema/records';

export { LIMITS } from './schema/common';
export * from './schema/customers';
export * from './schema/supply';
export * from './schema/payments';
export * from './schema/records';

/*
 * Value sets: the spec's values, then those the platform's document adds (account/platformAccount.json,
 * at the platform's path of the field): every platform value of a shared field is accepted, and a
 * spec value the platform lacks still is (test/unit/account/platformAccount.test.ts). An empty
 * string is one of the platform's values of some optional fields (`sales_channel`…): accepted and
 * kept as sent. The sets of the Account's own fields are here; the sections' with their section.
 */
export const ACCOUNT_TYPES = platform(['DOMESTIC', 'BUSINESS'], 'account_type');
export const SALES_CHANNELS = platform(
  ['DIRECT', 'PRICE_COMPARISON', 'BROKER', 'PARTNERSHIPS', 'TELESALES', 'FIELD_SALES', 'ACQUISITION'],
  'sales_channel',
);
export const SMART_READ_FREQUENCIES = platform(['HALF_HOURLY', 'DAILY', 'MONTHLY'], 'smart_read_frequency');
export const COMMUNICATION_PREFERENCES = platform(['ONLINE', 'POST'], 'communication_preference');
export const DOCUMENT_ACCESSIBILITY = platform(['LARGE_PRINT', 'BRAILLE', 'AUDIO'], 'document_accessibility');

/** Schemas that AccountSchema reaches by `$ref`: register them (ajv.addSchema) before compiling it. */
export const REFERENCED_SCHEMAS = [TransactionSchema] as const;

export const AccountSchema = obj('Account', {
  import_supplier: Code(64),
  external_account_number: Code(128),
  customers: arr(CustomerSchema, LIMITS.customers),
  billing_name: Opt(Text(510)),
  ...addressLines('billing_address', [1, 2, 3, 4, 5]),
  billing_postcode: Opt(Text(512)),
  account_type: Opt(Enum(ACCOUNT_TYPES)),
  sales_channel: Opt(Enum(SALES_CHANNELS)),
  sales_subchannel: Opt(Text()),
  supply_addresses: Opt(arr(SupplyAddressSchema, LIMITS.supplyAddresses)),
  transfer_balance: Opt(Decimal()),
  ledgers: Opt(arr(LedgerSchema, LIMITS.ledgers)),
  // The platform's top-level ledger form: one ledger's transactions and last statement at the top
  // of the Account, an alternative to ledgers[] (not both: ledger_forms_mixed). Stored as that
  // ledger (db/stores/ledgerForm.ts); read back in the form it came in.
  current_statement_transactions: Opt(arr(Type.Ref(TransactionSchema), LIMITS.transactions)),
  historical_statement_transactions: Opt(arr(Type.Ref(TransactionSchema), LIMITS.transactions)),
  last_statement_closing_date: Opt(DateStr()),
  last_statement_balance: Opt(Decimal()),
  last_statement_issue_date: Opt(DateStr()),
  last_billed_to_date: Opt(DateStr()),
  payment_schedules: Opt(arr(PaymentScheduleSchema, LIMITS.records)),
  payment_instructions: Opt(arr(PaymentInstructionSchema, LIMITS.records)),
  payment_preferences: Opt(arr(PaymentPreferenceSchema, LIMITS.ledgers)),
  // Deprecated by the platform (its payment_instructions.reference): the active Direct Debit instruction's reference.
  dd_reference: Opt(Code(512)),
  references: Opt(arr(ReferenceSchema, LIMITS.records)),
  notes: Opt(arr(NoteSchema, LIMITS.records)),
  statements: Opt(arr(StatementSchema, LIMITS.records)),
  warm_home_discount: Opt(arr(WarmHomeDiscountSchema, LIMITS.records)),
  dunning_path: Opt(DunningPathSchema),
  debts: Opt(arr(DebtSchema, LIMITS.records)),
  last_payment_review_date: Opt(DateStr()),
  next_bill_due_date: Opt(DateStr()),
  smart_read_frequency: Opt(Enum(SMART_READ_FREQUENCIES)),
  smart_read_cycle_day: Opt(Type.Integer({ minimum: 1, maximum: 31 })),
  communication_preference: Opt(Enum(COMMUNICATION_PREFERENCES)),
  document_accessibility: Opt(Enum(DOCUMENT_ACCESSIBILITY)),
  account_campaigns: Opt(arr(AccountCampaignSchema, LIMITS.records)),
  metadata: Opt(arr(MetadataSchema, LIMITS.records)),
  // Platform fields (platform EnergyAccount): a nullable boolean — true means the account belongs
  // to an unknown occupier and carries no customers (customer_with_unknown_occupier) — and the
  // operations team the account is assigned to on creation (a name, never blank).
  unknown_occupier: Opt(Type.Unsafe<boolean | null>({ type: ['boolean', 'null'] })),
  operations_team_name: Opt(Code(128)),
}, '');

export type Account = Static<typeof AccountSchema>;
