import { ApplicationFailure } from '@temporalio/common';
import { IMPORT_FAILURE } from '../../lib/failureCodes';
import { getPayload, getPayloadText, type ImportProcess } from '../../imports/store';
import { JsonBoundsError, parseBounded } from '../../lib/jsonBounds';
import type { ImportRef, StepDeps } from './context';

/** How many issues the failure's message names (all of them: the validate operation). */
const MAX_DETAIL_ISSUES = 10;

/** Re-validates the stored payload with today's rules and reference data. */
export async function validateImport(deps: StepDeps, ref: ImportRef): Promise<void> {
  await validatePayload(deps, await readPayload(deps, ref.importProcessId));
}

/**
 * The stored payload, read back within the bounds a body arriving over HTTP is held to (issue 47):
 * a payload past them (stored before the bounds) fails the run as a validation failure naming
 * `payload_too_large`, non-retryable, instead of filling the worker's heap on every retry.
 */
export async function readPayload(deps: StepDeps, importProcessId: string): Promise<unknown> {
  if (!deps.json) return getPayload(deps.db, importProcessId);
  const text = await getPayloadText(deps.db, importProcessId);
  return text === null ? null : parsePayload(deps)(text);
}

/** How a step parses a stored payload's text: within the bounds of a body when the worker has them (payload_too_large past them, as readPayload). */
export function parsePayload(deps: StepDeps): (text: string) => unknown {
  const json = deps.json;
  if (!json) return JSON.parse;
  return (text) => {
    try {
      return parseBounded(text, json);
    } catch (err) {
      if (err instanceof JsonBoundsError) throw validationFailure([{ code: 'payload_too_large', attr: '' }]);
      throw err;
    }
  };
}

/**
 * Whether the run's stored payload needs validating again: not when the fingerprint the API
 * recorded with it equals the one a validation would have now (same rules, reference data,
 * supplier configuration and London date; account/fingerprint.ts).
 */
export async function needsRevalidation(deps: StepDeps, p: ImportProcess): Promise<boolean> {
  if (p.validationFingerprint === null) return true;
  return (await deps.validator.fingerprint(p.importSupplier, { mode: 'create' })) !== p.validationFingerprint;
}

/** The validation failure (non-retryable, IMPORT_FAILURE.validation) for a list of issues. */
export function validationFailure(errors: { code: string; attr: string }[]): ApplicationFailure {
  const shown = errors
    .slice(0, MAX_DETAIL_ISSUES)
    .map((e) => `${e.code} at ${e.attr}`)
    .join('; ');
  const more = errors.length > MAX_DETAIL_ISSUES ? ` (and ${errors.length - MAX_DETAIL_ISSUES} more)` : '';
  return ApplicationFailure.create({
    type: IMPORT_FAILURE.validation,
    message: `The account failed validation: ${shown}${more}. Run the validate operation for full details.`,
    nonRetryable: true,
    details: [errors.slice(0, 50)],
  });
}

export async function validatePayload(deps: StepDeps, payload: unknown): Promise<void> {
  const outcome = await deps.validator.validate(payload, { mode: 'create' });
  deps.metrics?.importValidations.inc({ outcome: 'validated' });
  if (!outcome.ok) throw validationFailure(outcome.errors);
}
