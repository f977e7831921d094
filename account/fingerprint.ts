import crypto from 'node:crypto';
import path from 'node:path';
import { hashFiles, sourceClosure } from '../lib/sourceHash';
import type { SupplierConfig } from './validator';

/**
 * What a validation of an account depended on besides the payload, as one string (issue "Half
 * the CPU per imported account"): the rules (the code of this folder), the reference data version
 * the validator read, the supplier's configuration, London's date and the mode. The API records
 * it with the payload it validated; the worker, re-validating moments later, compares it with the
 * same figure computed now and skips the work only when every input is unchanged. A different
 * build of the rules, a reference data change, a supplier paused or reconfigured, or midnight in
 * London all give another string, and the payload is validated again.
 *
 * Not covered by it, so never skipped on its account: the documents' existence in the file store
 * (a supplier with `checkDocumentExistence` has no fingerprint) and reference ownership, which
 * the account write checks again under the import row's lock (activities/imports/writeAccount.ts).
 */
export interface FingerprintInputs {
  referenceDataVersion: string | undefined;
  supplier: SupplierConfig;
  today: string;
  mode: 'validate' | 'create';
}

let rulesVersion: string | undefined;

/**
 * The files the validator's results depend on: this folder (its rules, its schema and the
 * platform's Account as data, account/platformAccount.json, which decides the schema of the
 * platform's 642 paths) and whatever they import from elsewhere (lib/sourceHash.ts).
 */
export function validationRulesFiles(): string[] {
  return sourceClosure([__dirname]);
}

/**
 * A hash of every file of validationRulesFiles() and of the versions of the libraries they call,
 * read once per process: two processes share a fingerprint only when they run the same rules on
 * the same description.
 */
export function validationRulesVersion(read?: (file: string) => Buffer | string): string {
  if (rulesVersion !== undefined && read === undefined) return rulesVersion;
  const hash = crypto.createHash('sha256').update(hashFiles(path.dirname(__dirname), validationRulesFiles(), read));
  // The libraries the rules call decide results too (a phone number library upgrade, say).
  for (const lib of ['ajv', 'ajv-formats', 'libphonenumber-js', 'uk-modulus-check']) {
    try {
      hash.update(`${lib}@${(require(`${lib}/package.json`) as { version: string }).version}\0`);
    } catch {
      hash.update(`${lib}@?\0`);
    }
  }
  const version = hash.digest('base64url');
  if (read === undefined) rulesVersion = version;
  return version;
}

/** The fingerprint, or null when the validation depended on something it cannot cover. */
export function validationFingerprint(i: FingerprintInputs): string | null {
  if (i.referenceDataVersion === undefined || i.supplier.checkDocumentExistence) return null;
  const s = i.supplier;
  return crypto
    .createHash('sha256')
    .update(JSON.stringify([validationRulesVersion(), i.referenceDataVersion, s.code, s.status, s.documentRoot, s.checkDocumentExistence, s.sendCustomerEmails, i.today, i.mode]))
    .digest('base64url');
}
