import fs from 'node:fs';
import { buildReferenceData, DEFAULT_REFERENCE_DATA_ROWS, type ReferenceDataRow } from '../account/referenceData';
import { createAccountValidator, type Issue } from '../account/validator';

/** Validates one mapped account as the API would: its errors, [] when valid. */
export type MapValidator = (account: Record<string, unknown>) => Promise<Issue[]>;

/**
 * The service's own validator (account/validator.ts), run in process on each mapped account: the
 * same rules and codes as POST …/validate/, with the supplier's reference data from a file
 * (`[{kind, code, fuel?}]`, as `data-import reference-data` loads it) or the service's defaults.
 * The supplier is taken as Ongoing and documents as present: a book `map` writes is then checked
 * again by `migrate --validate-first` against the live supplier.
 */
export function createMapValidator(referenceDataFile?: string): MapValidator {
  const rows: readonly ReferenceDataRow[] = referenceDataFile ? (JSON.parse(fs.readFileSync(referenceDataFile, 'utf8')) as ReferenceDataRow[]) : DEFAULT_REFERENCE_DATA_ROWS;
  const referenceData = buildReferenceData(rows);
  const validator = createAccountValidator({
    referenceData: () => referenceData,
    suppliers: async (code) => ({ code, status: 'Ongoing', documentRoot: '', checkDocumentExistence: false, sendCustomerEmails: false }),
    documentStore: { exists: async () => true },
  });
  return async (account) => {
    const outcome = await validator.validate(account, { mode: 'validate' });
    return outcome.ok ? [] : outcome.errors;
  };
}
