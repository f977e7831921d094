import { Type, type Static } from '@sinclair/typebox';
import { PAYMENT_INSTRUCTION_TYPES, PAYMENT_INSTRUCTION_VENDORS } from '../account/schema';

const NullableBoolean = Type.Unsafe<boolean | null>({ type: ['boolean', 'null'] });
const NullableDate = Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date' });

/**
 * Body of `POST /v1/data-import/payment-instruction/create/`: the platform's LegacyPaymentInstruction
 * (type and vendor with its value sets), its references held to 128 characters (the platform's
 * answers hold at most 128), with this service's optional bank details of a Direct Debit.
 */
export const PaymentInstructionRequestSchema = Type.Object(
  {
    import_supplier: Type.String({ minLength: 1, maxLength: 64, description: 'The import supplier the account was imported on (any supplier of your grant).' }),
    external_account_number: Type.String({ minLength: 1, maxLength: 128, description: 'The account number in the source system.' }),
    type: Type.Unsafe<(typeof PAYMENT_INSTRUCTION_TYPES)[number]>({ type: 'string', enum: [...PAYMENT_INSTRUCTION_TYPES], description: 'The payment type of the instruction.' }),
    vendor: Type.Unsafe<(typeof PAYMENT_INSTRUCTION_VENDORS)[number]>({ type: 'string', enum: [...PAYMENT_INSTRUCTION_VENDORS], description: 'The payment vendor holding the instruction.' }),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'The mandate reference at the vendor. Exactly one of reference and instruction_reference.' })),
    instruction_reference: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "Deprecated by the platform: the old name of reference (stored as reference)." })),
    ledger_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The ledger the instruction is for; stored as given (this service keeps no ledger types).' })),
    use_for_scheduled_payments: Type.Optional(NullableBoolean),
    valid_from: Type.Optional(NullableDate),
    sort_code: Type.Optional(Type.String({ maxLength: 16, description: "This service's addition: the UK sort code of a DIRECT_DEBIT instruction's bank account, 6 digits; with bank_account_number." })),
    bank_account_number: Type.Optional(Type.String({ maxLength: 16, description: "This service's addition: the UK bank account number, 8 digits; with sort_code. The pair must pass the UK modulus check." })),
  },
  { additionalProperties: false },
);
export type PaymentInstructionRequestBody = Static<typeof PaymentInstructionRequestSchema>;
