// long-file (517 lines): the whole Account reads top to bottom like the spec's field tables (see below).
/**
 * The Account payload of docs/spec/data-import-api.md as TypeBox schemas (plain JSON Schema data).
 * Compiled once by account/ajv.ts; the same data will produce the OpenAPI document.
 * One file over 300 lines on purpose: the whole Account reads top to bottom like the spec's field
 * tables; field groups used twice (person, reading, address lines) are written once below.
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
 *   field below). `reason`, `debt_repayment_element`, `ssc` stay free text: their sets are open.
 * - Extension: agreements accept an optional `effective_to` so that "no gaps or overlaps" can be
 *   checked when the legacy system closes agreements; without it, each agreement runs until the
 *   next one starts.
 * - `metadata[].value` is the only free-form object (spec: "value object (free-form)"): freeForm().
 * - Array caps (maxItems) bound hostile payloads: readings 20,000 per meter, transactions 100,000
 *   per ledger array, other arrays as written below (generous for any real account).
 */
import { Type, type Static, type TOptional, type TSchema, type TString, type TProperties } from '@sinclair/typebox';
import { withPlatformValues as platform } from './platformAccount';
import { freeForm, platformRest } from './platformSchema';

const ID_PREFIX = 'https://schemas.data-import/account/';

/**
 * An object of the Account: its hand-written fields, then the platform's other fields of the object
 * at `platformPath` in account/platformAccount.json (account/platformSchema.ts builds them from
 * the document's facts; they are not in the static type, rules read them loosely).
 */
function obj<T extends TProperties>(name: string, properties: T, platformPath?: string) {
  const rest = platformPath === undefined ? {} : platformRest(platformPath, Object.keys(properties));
  return Type.Object({ ...rest, ...properties } as T, { $id: `${ID_PREFIX}${name}.json`, additionalProperties: false });
}

const arr = <T extends TSchema>(items: T, maxItems: number) => Type.Array(items, { maxItems });

/** Descriptive text: may be an empty string (spec general rule 6). */
const Text = (maxLength = 255) => Type.String({ maxLength });
/** Identifying text: must not be blank. */
const Code = (maxLength = 255) => Type.String({ minLength: 1, maxLength });
const DateStr = () => Type.String({ format: 'date' });
const DateTimeStr = () => Type.String({ format: 'date-time' });
/** A day, or an instant (the platform's PSR `effective_from` is a date-time, the spec's a date): kept as sent. */
const DayOrInstant = () => Type.String({ format: 'date-or-date-time', maxLength: 64 });
const Decimal = () => Type.String({ format: 'decimal', maxLength: 40 });
// A plain `enum` keyword (not anyOf of literals): one ajv error per bad value, and plain OpenAPI.
const Enum = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });
const Opt = Type.Optional;

/** Optional descriptive address lines `<prefix>N`, in the order given (the platform's 512 characters). */
function addressLines<P extends string, N extends number>(prefix: P, numbers: readonly N[]) {
  return Object.fromEntries(numbers.map((n) => [`${prefix}${n}`, Opt(Text(512))])) as {
    [K in `${P}${N}`]: TOptional<TString>;
  };
}

export const SUPPLY_TYPES = ['ELECTRICITY', 'GAS'] as const;
/*
 * Value sets: the spec's values, then those the platform's document adds (account/platformAccount.json,
 * at the platform's path of the field): every platform value of a shared field is accepted, and a
 * spec value the platform lacks still is (test/unit/account/platformAccount.test.ts). An empty
 * string is one of the platform's values of some optional fields (`sales_channel`…): accepted and
 * kept as sent.
 */
const METER = 'supply_addresses.*.meter_points.*.meters.*';
const MP = 'supply_addresses.*.meter_points.*';
const SMART_INTEREST = `${MP}.smart_refusal_interest`;
export const READING_TYPES = platform(['CUSTOMER', 'ROUTINE', 'ESTIMATED', 'SMART', 'DEEMED', 'INDUSTRY'], `${METER}.reading_history.*.reading_type`);
export const SMART_TYPES = platform(['SMETS1', 'SMETS2'], `${METER}.smart_type`);
export const SMART_INTEREST_TYPES = platform(['INTERESTED', 'NOT_INTERESTED', 'REFUSED'], `${SMART_INTEREST}.type`);
export const SMART_REFUSAL_REASONS = platform(
  ['DO_NOT_OWN_HOME', 'HEALTH_CONCERNS', 'PRIVACY_CONCERNS', 'NO_BENEFIT', 'ACCESS_ISSUES', 'OTHER'],
  `${SMART_INTEREST}.refusal_reason`,
);
export const CONTACT_SOURCES = platform(['EMAIL', 'PHONE', 'POST', 'ONLINE', 'SMS', 'FIELD_VISIT'], `${SMART_INTEREST}.source`);
export const ACCOUNT_TYPES = platform(['DOMESTIC', 'BUSINESS'], 'account_type');
export const SALES_CHANNELS = platform(
  ['DIRECT', 'PRICE_COMPARISON', 'BROKER', 'PARTNERSHIPS', 'TELESALES', 'FIELD_SALES', 'ACQUISITION'],
  'sales_channel',
);
export const SMART_READ_FREQUENCIES = platform(['HALF_HOURLY', 'DAILY', 'MONTHLY'], 'smart_read_frequency');
export const COMMUNICATION_PREFERENCES = platform(['ONLINE', 'POST'], 'communication_preference');
export const DOCUMENT_ACCESSIBILITY = platform(['LARGE_PRINT', 'BRAILLE', 'AUDIO'], 'document_accessibility');
// The platform keeps transactions at the top of the Account; the spec under ledgers[]: the same transaction.
export const TRANSACTION_TYPES = platform(['PAYMENT', 'REPAYMENT', 'CREDIT', 'CHARGE'], 'current_statement_transactions.*.type');
export const PAYMENT_TYPES = platform(
  ['DD', 'CARD', 'BANK_TRANSFER', 'CHEQUE', 'CASH', 'PAYPOINT', 'PAYZONE', 'POST_OFFICE'],
  'current_statement_transactions.*.payment_type',
);
export const PAYMENT_FREQUENCIES = platform(['WEEKLY', 'FORTNIGHTLY', 'MONTHLY', 'QUARTERLY'], 'payment_schedules.*.frequency');
export const PAYMENT_MEANS = platform(['DD', 'CARD', 'BANK_TRANSFER', 'CHEQUE', 'CASH', 'PAYPOINT'], 'payment_schedules.*.means');
/** The platform's PaymentInstruction `type` and `vendor` value sets. */
export const PAYMENT_INSTRUCTION_TYPES = ['BPAY', 'CARD', 'CUSTOM', 'DIRECT_DEBIT', 'GMO_REFUND', 'PAYMENT_SLIP'] as const;
export const PAYMENT_INSTRUCTION_VENDORS = ['STRIPE', 'BOTTOMLINE_GLOBAL_PAYMENTS_HUB', 'BOTTOMLINE_PTX', 'BOTTOMLINE_PTX_BATCHED'] as const;
export const WHD_ACCOUNT_TYPES = ['CREDIT', 'PREPAY'] as const;
export const WHD_GROUPS = ['CORE', 'CORE_GROUP_1', 'CORE_GROUP_2', 'BROADER'] as const;

/** Array caps; exported so tests and docs name the same numbers. */
export const LIMITS = {
  customers: 100,
  psr: 100,
  supplyAddresses: 1000,
  propertyAdministrators: 20,
  meterPoints: 100,
  agreements: 1000,
  meters: 50,
  registers: 50,
  transferReadings: 100,
  readings: 20_000,
  history: 1000,
  ledgers: 100,
  transactions: 100_000,
  records: 10_000,
  documentPaths: 100,
} as const;

/**
 * A Priority Services Register record. The platform's `effective_to` (a date or date-time, like
 * `effective_from`; not before it: psr_end_before_start), `description` and `additional_information`
 * (free text; held to 10,000 characters, the platform sets no bound).
 */
export const PsrSchema = obj('Psr', {
  elec_industry_code: Opt(Code(8)),
  gas_industry_code: Opt(Code(8)),
  effective_from: DayOrInstant(),
  effective_to: Opt(DayOrInstant()),
  description: Opt(Text(10_000)),
  additional_information: Opt(Text(10_000)),
}, 'customers.*.psr.*');

export const CustomerPreferencesSchema = obj('CustomerPreferences', {
  opted_into_sms: Opt(Type.Boolean()),
  opted_into_recommended: Opt(Type.Boolean()),
  opted_into_updates: Opt(Type.Boolean()),
  opted_into_third_parties: Opt(Type.Boolean()),
  opted_into_offers: Opt(Type.Boolean()),
  is_user_psr_consent_obtained: Opt(Type.Boolean()),
  // The platform's partner_password: the password agreed with a PSR customer, which anyone calling
  // or visiting on the supplier's behalf gives. A secret: never in events or logs (docs/api.md).
  partner_password: Opt(Code(10)),
}, 'customers.*.customer_preferences');

/** The person fields a customer and a property administrator share, the name's as given. */
const personFields = <R extends boolean>(nameRequired: R) => ({
  given_name: (nameRequired ? Text() : Opt(Text())) as R extends true ? TString : TOptional<TString>,
  family_name: (nameRequired ? Code() : Opt(Code())) as R extends true ? TString : TOptional<TString>,
  email: Opt(Text(254)),
  mobile: Opt(Text(32)),
  landline: Opt(Text(32)),
  date_of_birth: Opt(DateStr()),
  title: Opt(Text(64)),
  salutation: Opt(Text()),
});

/** The platform's roles of a person on an account (power of attorney, carer, levels of authority…). */
export const CUSTOMER_ROLES = platform([], 'customers.*.role');
/** The platform's `deceased` values (its '' too: not reported). */
export const DECEASED_VALUES = platform([], 'customers.*.deceased');

// A customer's name stays required (this service's rule: customer e-mails greet, and the account's
// user rows name, the person); a property administrator's is optional, as on the platform.
export const CustomerSchema = obj('Customer', {
  ...personFields(true),
  psr: Opt(arr(PsrSchema, LIMITS.psr)),
  customer_preferences: Opt(CustomerPreferencesSchema),
  // Vulnerability and authority (issue 35, area 2): the platform's fields, as it documents them.
  unable_to_read_meters: Opt(Type.Boolean()),
  deceased: Opt(Enum(DECEASED_VALUES)),
  role: Opt(Enum(CUSTOMER_ROLES)),
  account_roles: Opt(arr(Enum(CUSTOMER_ROLES), CUSTOMER_ROLES.length)),
  portfolio_roles: Opt(arr(Enum(CUSTOMER_ROLES), CUSTOMER_ROLES.length)),
}, 'customers.*');

export const PropertyAdministratorSchema = obj('PropertyAdministrator', personFields(false), 'supply_addresses.*.property_administrators.*');

export const AgreementSchema = obj('Agreement', {
  tariff_code: Code(128),
  effective_from: DateStr(),
  effective_to: Opt(DateStr()),
}, `${MP}.agreements.*`);

export const RegisterSchema = obj('Register', {
  register_id: Code(32),
  tpr: Opt(Code(8)),
  number_of_digits: Opt(Type.Integer({ minimum: 1, maximum: 15 })),
  is_settlement: Opt(Type.Boolean()),
}, `${METER}.registers.*`);

/** The fields a transfer reading and a historical reading share. */
const readingFields = () => ({
  register_id: Opt(Code(32)),
  reading_date: DateStr(),
  reading_value: Decimal(),
  reading_type: Enum(READING_TYPES),
});

export const TransferReadingSchema = obj('TransferReading', readingFields(), `${METER}.transfer_readings.*`);

export const HistoricalReadingSchema = obj('HistoricalReading', {
  ...readingFields(),
  billed: Opt(Type.Boolean()),
}, `${METER}.reading_history.*`);

export const GasDebtRepaymentOptionsSchema = obj('GasDebtRepaymentOptions', {
  weekly_min: Opt(Decimal()),
  weekly_max: Opt(Decimal()),
}, `${METER}.prepay_details.gas_debt_repayment_options`);

export const PrepayDetailsSchema = obj('PrepayDetails', {
  debt_balance: Opt(Decimal()),
  credit_balance: Opt(Decimal()),
  transfer_vend_read_date: Opt(DateStr()),
  gas_debt_repayment_options: Opt(GasDebtRepaymentOptionsSchema),
}, `${METER}.prepay_details`);

export const MeterSchema = obj('Meter', {
  meter_serial_number: Code(64),
  installed_on: Opt(DateStr()),
  registers: Opt(arr(RegisterSchema, LIMITS.registers)),
  gas_number_of_digits: Opt(Type.Integer({ minimum: 1, maximum: 15 })),
  smart_type: Opt(Enum(SMART_TYPES)),
  transfer_readings: Opt(arr(TransferReadingSchema, LIMITS.transferReadings)),
  reading_history: Opt(arr(HistoricalReadingSchema, LIMITS.readings)),
  is_prepay: Opt(Type.Boolean()),
  prepay_details: Opt(PrepayDetailsSchema),
}, METER);

export const SmartRefusalInterestSchema = obj('SmartRefusalInterest', {
  type: Enum(SMART_INTEREST_TYPES),
  date: Opt(DateStr()),
  refusal_reason: Opt(Enum(SMART_REFUSAL_REASONS)),
  source: Opt(Enum(CONTACT_SOURCES)),
}, SMART_INTEREST);

export const EacSchema = obj('Eac', {
  effective_from: DateStr(),
  tpr: Code(16),
  consumption: Decimal(),
  source: Opt(Text(255)),
}, `${MP}.eac_history.*`);

export const AqSchema = obj('Aq', {
  effective_from: DateStr(),
  effective_to: Opt(DateStr()),
  consumption: Decimal(),
}, `${MP}.aq_history.*`);

export const MeterPointSchema = obj('MeterPoint', {
  identifier: Code(32),
  supply_type: Enum(SUPPLY_TYPES),
  agreements: Opt(arr(AgreementSchema, LIMITS.agreements)),
  mpid: Opt(Code(4)),
  shipper_mpid: Opt(Code(3)),
  supply_start_date: Opt(DateStr()),
  profile_class: Opt(Type.Integer({ minimum: 0, maximum: 8 })),
  ssc: Opt(Text(8)),
  meters: Opt(arr(MeterSchema, LIMITS.meters)),
  et_in_progress: Opt(Type.Boolean()),
  dr_in_progress: Opt(Type.Boolean()),
  smart_refusal_interest: Opt(SmartRefusalInterestSchema),
  eac_history: Opt(arr(EacSchema, LIMITS.history)),
  aq_history: Opt(arr(AqSchema, LIMITS.history)),
}, MP);

export const SupplyAddressSchema = obj('SupplyAddress', {
  supply_address1: Code(512),
  ...addressLines('supply_address', [2, 3, 4, 5]),
  supply_postcode: Code(16),
  is_landlord: Opt(Type.Boolean()),
  customer_at_supply_address_from_date: Opt(DateStr()),
  meter_points: arr(MeterPointSchema, LIMITS.meterPoints),
  property_administrators: Opt(arr(PropertyAdministratorSchema, LIMITS.propertyAdministrators)),
}, 'supply_addresses.*');

export const TransactionSchema = obj('Transaction', {
  transaction_id: Opt(Code(128)),
  transaction_date: DateStr(),
  amount: Decimal(),
  type: Enum(TRANSACTION_TYPES),
  reason: Opt(Text(128)),
  payment_type: Opt(Enum(PAYMENT_TYPES)),
}, 'current_statement_transactions.*');

export const LedgerSchema = obj('Ledger', {
  // By $ref: the one sub-schema used twice (ajv refuses one $id at two places).
  current_statement_transactions: Opt(arr(Type.Ref(TransactionSchema), LIMITS.transactions)),
  historical_statement_transactions: Opt(arr(Type.Ref(TransactionSchema), LIMITS.transactions)),
  last_statement_closing_date: Opt(DateStr()),
  last_statement_balance: Opt(Decimal()),
  last_statement_issue_date: Opt(DateStr()),
  ledger_balance: Decimal(),
});

export const PAYMENT_PAID_BY = platform([], 'payment_schedules.*.paid_by');
export const PAYMENT_TRIGGERS = platform([], 'payment_schedules.*.trigger');
export const PAYMENT_DELAY_STRATEGIES = platform([], 'payment_schedules.*.delay_strategy');

export const PaymentScheduleSchema = obj('PaymentSchedule', {
  amount: Opt(Decimal()),
  day_of_month: Opt(Type.Integer({ minimum: 1, maximum: 28 })),
  frequency: Opt(Enum(PAYMENT_FREQUENCIES)),
  means: Enum(PAYMENT_MEANS),
  start_date: DateStr(),
  is_debt_repayment_plan: Opt(Type.Boolean()),
  debt_repayment_element: Opt(Text(64)),
  debt_repayment_end_date: Opt(DateStr()),
  // The platform's schedule detail (issue 35, area 3): who pays (FUEL_DIRECT: deductions from the
  // customer's benefits), when the schedule ends, what triggers a collection, its ledger, a delay.
  paid_by: Opt(Enum(PAYMENT_PAID_BY)),
  end_date: Opt(DateStr()),
  trigger: Opt(Enum(PAYMENT_TRIGGERS)),
  ledger_code: Opt(Code(255)),
  balance_threshold: Opt(Decimal()),
  delay_days: Opt(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  delay_strategy: Opt(Enum(PAYMENT_DELAY_STRATEGIES)),
  exempt_from_payment_adequacy: Opt(Type.Boolean()),
}, 'payment_schedules.*');

/**
 * A payment instruction (a Direct Debit mandate, a card…): the platform's PaymentInstruction, with
 * this service's optional bank details of a Direct Debit (`sort_code`, `bank_account_number`,
 * format- and modulus-checked: rules/paymentInstructions.ts). `reference` is held to 128
 * characters (the platform takes 512 but answers at most 128 in its CreatePaymentInstruction
 * answers). Any number per Account, as the platform's list (its ledger-code rule, "all or none",
 * presumes several); "one active instruction" is the payment-instruction/create operation's rule.
 */
export const PaymentInstructionSchema = obj('PaymentInstruction', {
  reference: Code(128),
  type: Enum(PAYMENT_INSTRUCTION_TYPES),
  vendor: Enum(PAYMENT_INSTRUCTION_VENDORS),
  ledger_code: Opt(Code(64)),
  use_for_scheduled_payments: Opt(Type.Boolean()),
  valid_from: Opt(DateStr()),
  customer_reference: Opt(Text(512)),
  instruction_identifier: Opt(Code(512)),
  sort_code: Opt(Text(16)),
  bank_account_number: Opt(Text(16)),
}, 'payment_instructions.*');

/** The platform's PaymentPreference `type` values (its discriminator). */
export const PAYMENT_PREFERENCE_TYPES = ['ACTIVE_EXISTING', 'ACTIVE_NEW', 'PASSIVE'] as const;

/**
 * The instruction a preference uses: an existing one at the vendor (ACTIVE_EXISTING: the
 * platform's ExistingPaymentInstructionReference, `vendor_name` and `vendor_reference`) or one of
 * the Account's `payment_instructions` by its `instruction_identifier` (ACTIVE_NEW: the platform's
 * NewPaymentInstructionReference). One object with the fields of both; rules/paymentInstructions.ts
 * holds each type to its own (the platform's oneOf by `type`).
 */
export const InstructionReferenceParamsSchema = obj('InstructionReferenceParams', {
  vendor_name: Opt(Enum(PAYMENT_INSTRUCTION_VENDORS)),
  vendor_reference: Opt(Code(512)),
  instruction_identifier: Opt(Code(512)),
}, 'payment_preferences.*.instruction_reference_params');

/** The platform's PaymentPreference: how a ledger of the account pays (PASSIVE: no instruction). */
export const PaymentPreferenceSchema = obj('PaymentPreference', {
  type: Enum(PAYMENT_PREFERENCE_TYPES),
  ledger_identifier: Code(128),
  instruction_reference_params: Opt(InstructionReferenceParamsSchema),
}, 'payment_preferences.*');

export const ReferenceSchema = obj('Reference', {
  namespace: Code(64),
  value: Code(255),
}, 'references.*');

export const DocumentPathSchema = obj('DocumentPath', {
  document_path: Code(1024),
}, 'notes.*.document_paths.*');

export const NoteSchema = obj('Note', {
  created_at: Opt(DateTimeStr()),
  body: Opt(Text(100_000)),
  document_paths: Opt(arr(DocumentPathSchema, LIMITS.documentPaths)),
}, 'notes.*');

export const StatementSchema = obj('Statement', {
  bill_period_from_date: DateStr(),
  bill_period_to_date: DateStr(),
  statement_path: Opt(Code(1024)),
  statement_id: Code(128),
}, 'statements.*');

export const WarmHomeDiscountSchema = obj('WarmHomeDiscount', {
  tax_year: Opt(Code(7)),
  account_type: Opt(Enum(WHD_ACCOUNT_TYPES)),
  group: Opt(Enum(WHD_GROUPS)),
}, 'warm_home_discount.*');

export const DunningPathSchema = obj('DunningPath', {
  path_name: Code(256),
  // Optional, as on the platform; not in the past (date_in_past, as the platform refuses it).
  start_date: Opt(DateStr()),
}, 'dunning_path');

export const AgedDebtSchema = obj('AgedDebt', {
  debt_amount: Opt(Decimal()),
  due_date: Opt(DateStr()),
}, 'debts.*.aged_debt.*');

export const DebtSchema = obj('Debt', {
  agency_name: Opt(Text(256)),
  start_date: Opt(DateStr()),
  is_insolvent: Opt(Type.Boolean()),
  aged_debt: Opt(arr(AgedDebtSchema, LIMITS.records)),
}, 'debts.*');

// A campaign is named by its slug (this service's reference data) or by the platform's campaign_name,
// exactly one of them (campaign_name_and_slug_provided / campaign_name_or_slug_not_provided).
export const AccountCampaignSchema = obj('AccountCampaign', {
  slug: Opt(Code(128)),
  campaign_note: Opt(Text(1000)),
}, 'account_campaigns.*');

export const MetadataSchema = obj('Metadata', {
  key: Code(1024),
  // Free-form by the spec: the one object that accepts any properties.
  value: Type.Object({}, freeForm({ additionalProperties: true })),
}, 'metadata.*');

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
export type Customer = Static<typeof CustomerSchema>;
export type Psr = Static<typeof PsrSchema>;
export type SupplyAddress = Static<typeof SupplyAddressSchema>;
export type PropertyAdministrator = Static<typeof PropertyAdministratorSchema>;
export type MeterPoint = Static<typeof MeterPointSchema>;
export type Agreement = Static<typeof AgreementSchema>;
export type Meter = Static<typeof MeterSchema>;
export type Register = Static<typeof RegisterSchema>;
export type TransferReading = Static<typeof TransferReadingSchema>;
export type HistoricalReading = Static<typeof HistoricalReadingSchema>;
export type PrepayDetails = Static<typeof PrepayDetailsSchema>;
export type SmartRefusalInterest = Static<typeof SmartRefusalInterestSchema>;
export type Eac = Static<typeof EacSchema>;
export type Aq = Static<typeof AqSchema>;
export type Ledger = Static<typeof LedgerSchema>;
export type Transaction = Static<typeof TransactionSchema>;
export type PaymentSchedule = Static<typeof PaymentScheduleSchema>;
export type PaymentInstruction = Static<typeof PaymentInstructionSchema>;
export type PaymentPreference = Static<typeof PaymentPreferenceSchema>;
export type Reference = Static<typeof ReferenceSchema>;
export type Note = Static<typeof NoteSchema>;
export type Statement = Static<typeof StatementSchema>;
export type WarmHomeDiscount = Static<typeof WarmHomeDiscountSchema>;
export type DunningPath = Static<typeof DunningPathSchema>;
export type Debt = Static<typeof DebtSchema>;
export type AccountCampaign = Static<typeof AccountCampaignSchema>;
export type Metadata = Static<typeof MetadataSchema>;
