import type { Knex } from 'knex';
import { assertObject } from '../../http/middleware/jsonBody';
import { codesOf, common, json, plain, ref, security } from '../../http/openapi';
import { operation } from '../../http/operation';
import { checkPaymentInstructionBody, createPaymentInstruction, paymentInstructionErrorBody } from '../paymentInstruction';
import { PaymentInstructionRequestSchema } from '../schemas';

/** `POST /v1/data-import/payment-instruction/create/`: a payment instruction added to an imported account; every 400 in the platform's CreatePaymentInstructionError. */
export const paymentInstructionOperation = operation({
  method: 'post',
  path: '/v1/data-import/payment-instruction/create/',
  errors: paymentInstructionErrorBody,
  body: true,
  handler: (deps: { db: Knex }) => async (ctx) => {
    assertObject(ctx.request.body);
    const b = checkPaymentInstructionBody(ctx.request.body);
    ctx.state.logContext = { importSupplier: b.import_supplier, externalAccountNumber: b.external_account_number };
    ctx.status = 201;
    ctx.body = await createPaymentInstruction(deps.db, ctx, b);
  },
  schemas: {
    PaymentInstructionRequest: plain(PaymentInstructionRequestSchema),
    PaymentInstructionCreated: {
      type: 'object',
      description: "The platform's CreatePaymentInstructionResponse.",
      required: ['kraken_account_number', 'account_number', 'reference'],
      additionalProperties: false,
      properties: {
        kraken_account_number: { type: 'string', maxLength: 128, description: 'The platform account number of the account.' },
        account_number: { type: 'string', maxLength: 128, description: "The platform's copy of kraken_account_number." },
        reference: { type: 'string', maxLength: 128, description: 'The mandate reference stored (reference, or the deprecated instruction_reference).' },
      },
    },
    PaymentInstructionError: {
      type: 'object',
      description:
        "The platform's CreatePaymentInstructionError, with our `code` and, when there are issues, `errors`. `external_account_number`, `import_supplier` and `reference` repeat the request's (the empty string where it gave none usable: an unreadable body, a missing or over-long value).",
      required: ['error_detail', 'external_account_number', 'import_supplier', 'reference', 'code'],
      additionalProperties: false,
      properties: {
        error_detail: { type: 'string', description: 'What failed (with each issue when there are any); wording may change.' },
        external_account_number: { type: 'string', maxLength: 128 },
        import_supplier: { type: 'string', maxLength: 64 },
        reference: { type: 'string', maxLength: 128 },
        code: {
          type: 'string',
          enum: codesOf('validation_error', 'parse_error', 'invalid', 'import_process_does_not_exist', 'account_not_found', 'import_supplier_migration_not_ongoing', 'account_has_active_instruction'),
        },
        errors: { type: 'array', minItems: 1, items: ref('Issue') },
      },
    },
  },
  openapi: {
    operationId: 'createPaymentInstruction',
    tags: ['platform'],
    summary: "Add a payment instruction (a Direct Debit mandate, a card…) to an imported account.",
    description:
      "Stored with the account (it reads back as the Account's `payment_instructions` and is covered by its digest). An account has at most one active instruction, and every stored one is active; sending the same instruction again answers 201 as the first time. A DIRECT_DEBIT instruction may carry the bank account's `sort_code` and `bank_account_number` (this service's addition), format- and modulus-checked. No event is published: the events catalogue has none for a payment instruction.",
    security,
    requestBody: { required: true, content: { 'application/json': { schema: ref('PaymentInstructionRequest') } } },
    responses: {
      '201': json(ref('PaymentInstructionCreated'), 'Stored (or the same instruction was stored before).'),
      '400': json(
        ref('PaymentInstructionError'),
        "In the platform's CreatePaymentInstructionError shape: a body of the wrong shape (`validation_error`, `errors` listing the issues: codes of docs/spec/RULES.md and mutually_exclusive_field_required, invalid_sort_code, invalid_bank_account_number, bank_details_incomplete, bank_details_not_direct_debit, bank_details_failed_modulus_check), an unreadable body (`parse_error`), no import for the supplier and number (`import_process_does_not_exist`; a supplier outside your grant too), an import without its account yet (`account_not_found`), a supplier that is Paused or Complete (`import_supplier_migration_not_ongoing`), or another active instruction (`account_has_active_instruction`).",
      ),
      ...common(true),
    },
  },
});
