import Ajv from 'ajv';
import { isIsoDate, isIsoDateTime } from './dates';
import { checkEmail } from './rules/contacts';
import { FREE_FORM_KEYWORD, freeFormExcess, freeFormDetail, type FreeFormBounds } from './freeForm';

/** Decimal strings: optional minus, digits, optional fraction ("12.5", "-3.00"; not "1e3", "12,5", " 1"). */
export const DECIMAL_RE = /^-?\d+(\.\d+)?$/;
/** A time of day, 24-hour: "07:30", "23:59:59". */
export const TIME_RE = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/;

// Ajv instances, one per purpose: account input with every error (`ajv`: payloads, task
// params, top-ups, reference-data rows of the CLI), the account's first-error fast path
// (`ajvFirstError`, below), and event payloads against the catalogue (events/catalogue/validate.ts,
// with the standard formats of ajv-formats).

/**
 * The one ajv instance of the account area's input. allErrors so that a payload's every error is
 * reported; the count is bounded afterwards (errors.ts) and array sizes by the schema's maxItems.
 * Formats are our own so that their names map one-to-one to error codes (errors.ts).
 */
export const ajv = addFormats(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }));

/**
 * Stops at the first error: the fast path that answers "is it valid?" for a whole Account in one
 * pass. Only when it says no does shape.ts collect every error, node by node, bounded.
 */
export const ajvFirstError = addFormats(new Ajv({ allErrors: false, strict: true, allowUnionTypes: true }));

function addFormats(instance: Ajv): Ajv {
  instance.addFormat('date', { type: 'string', validate: isIsoDate });
  instance.addFormat('date-time', { type: 'string', validate: isIsoDateTime });
  instance.addFormat('date-or-date-time', { type: 'string', validate: (v: string) => isIsoDate(v) || isIsoDateTime(v) });
  instance.addFormat('decimal', { type: 'string', validate: (v: string) => DECIMAL_RE.test(v) });
  // The platform's other formats (account/platformSchema.ts): an e-mail address (the syntax the
  // customers' `email` rule checks), a time of day (HH:MM or HH:MM:SS).
  instance.addFormat('email', { type: 'string', validate: (v: string) => checkEmail(v) !== 'invalid_email' });
  instance.addFormat('time', { type: 'string', validate: (v: string) => TIME_RE.test(v) });
  addFreeFormKeyword(instance);
  return instance;
}

/**
 * `x-free-form: {maxValues, maxDepth, maxChars}` on a free-form node (account/freeForm.ts): the
 * value's own size, depth and number of values bounded, error keyword `x-free-form` (errors.ts
 * turns it into `free_form_too_large`). An OpenAPI extension keyword, so the published document
 * carries it as it is.
 */
function addFreeFormKeyword(instance: Ajv): void {
  instance.addKeyword({
    keyword: FREE_FORM_KEYWORD,
    schemaType: 'object',
    errors: true,
    validate: function check(bounds: FreeFormBounds, data: unknown) {
      const excess = freeFormExcess(data, bounds);
      if (excess === null) return true;
      (check as { errors?: unknown[] }).errors = [{ keyword: FREE_FORM_KEYWORD, message: freeFormDetail(excess), params: excess }];
      return false;
    },
  });
}
