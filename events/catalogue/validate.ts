import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { entryKey } from './entry';
import { findEntry } from './entries';

export type PayloadValidation = { ok: true } | { ok: false; errors: string[] };

// One ajv instance for the catalogue; each entry's schema is compiled the first time it is used
// and kept, so start-up does not pay for hundreds of schemas a process never publishes.
const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv);
const compiled = new Map<string, ValidateFunction>();

/** The dot path of the field an error is about; `non_field_errors` for the payload as a whole. */
function attrOf(error: ErrorObject): string {
  const segments = error.instancePath.split('/').slice(1);
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const field = params.missingProperty ?? params.additionalProperty;
  if (field !== undefined) segments.push(field);
  return segments.length > 0 ? segments.join('.') : 'non_field_errors';
}

/**
 * Each error reads `<attr>: <ajv keyword>` — both stable, so callers and tests can match them —
 * followed by ajv's message in parentheses for people.
 */
function describe(error: ErrorObject): string {
  return `${attrOf(error)}: ${error.keyword} (${error.message ?? ''})`;
}

export function validatePayload(type: string, version: string, data: unknown): PayloadValidation {
  const entry = findEntry(type, version);
  if (!entry) return { ok: false, errors: [`non_field_errors: unknown_event (${entryKey(type, version)})`] };
  const key = entryKey(type, version);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(entry.schema);
    compiled.set(key, validate);
  }
  if (validate(data)) return { ok: true };
  return { ok: false, errors: (validate.errors ?? []).map(describe) };
}
