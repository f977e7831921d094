import { ApplicationFailure } from '@temporalio/common';
import { IMPORT_FAILURE } from '../../lib/failureCodes';
import { getPayload } from '../store';
import type { ImportRef, StepDeps } from './context';

/** How many issues the failure's message names (all of them: the validate operation). */
const MAX_DETAIL_ISSUES = 10;

/** Re-validates the stored payload with today's rules and reference data. */
export async function validateImport(deps: StepDeps, ref: ImportRef): Promise<void> {
  const payload = await getPayload(deps.db, ref.importProcessId);
  const outcome = await deps.validator.validate(payload, { mode: 'create' });
  if (!outcome.ok) {
    const shown = outcome.errors
      .slice(0, MAX_DETAIL_ISSUES)
      .map((e) => `${e.code} at ${e.attr}`)
      .join('; ');
    const more = outcome.errors.length > MAX_DETAIL_ISSUES ? ` (and ${outcome.errors.length - MAX_DETAIL_ISSUES} more)` : '';
    throw ApplicationFailure.create({
      type: IMPORT_FAILURE.validation,
      message: `The account failed validation: ${shown}${more}. Run the validate operation for full details.`,
      nonRetryable: true,
      details: [outcome.errors.slice(0, 50)],
    });
  }
}
