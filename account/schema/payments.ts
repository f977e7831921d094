/**
 * The Account's money: its ledgers and their transactions, payment schedules, payment
 * instructions and payment preferences, with their value sets.
 */
import { Type, type Static } from '@sinclair/typebox';
import { withPlatformValues as platform } from '../platformAccount';
import { obj, arr, Text, Code, DateStr, Decimal, Enum, Opt, LIMITS } from './common';

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

export type Ledger = Static<typeof LedgerSchema>;
export type Transaction = Static<typeof TransactionSchema>;
export type PaymentSchedule = Static<typeof PaymentScheduleSchema>;
export type PaymentInstruction = Static<typeof PaymentInstructionSchema>;
export type PaymentPreference = Static<typeof PaymentPreferenceSchema>;
