import fs from 'node:fs';
import path from 'node:path';
import type { DocumentStore } from '../../../account/documents';
import { buildReferenceData, DEFAULT_REFERENCE_DATA_ROWS, type ReferenceData } from '../../../account/referenceData';
import {
  createAccountValidator,
  type Issue,
  type SupplierConfig,
  type ValidationOutcome,
  type ValidatorDeps,
} from '../../../account/validator';

/** Today for every test: 2026-11-21, mid-morning in London. */
export const NOW = new Date('2026-11-21T10:00:00Z');

const EXAMPLE = fs.readFileSync(path.join(__dirname, '../../../examples/account-dual-fuel.json'), 'utf8');

/** A fresh deep copy of the shared example account (any shape: tests corrupt it). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function example(): any {
  return JSON.parse(EXAMPLE);
}

export const DEMO_SUPPLIER: SupplierConfig = {
  code: 'DEMO_ENERGY',
  status: 'Ongoing',
  documentRoot: '/srv/documents/demo',
  checkDocumentExistence: false,
  sendCustomerEmails: true,
};

export const DEFAULT_REF: ReferenceData = buildReferenceData(DEFAULT_REFERENCE_DATA_ROWS);

export const NO_DOCUMENTS: DocumentStore = { exists: async () => false };

export function validator(overrides: Partial<ValidatorDeps> & { supplier?: Partial<SupplierConfig> } = {}) {
  const supplier = { ...DEMO_SUPPLIER, ...overrides.supplier };
  return createAccountValidator({
    referenceData: () => DEFAULT_REF,
    suppliers: async (code) => (code === supplier.code ? supplier : null),
    documentStore: NO_DOCUMENTS,
    now: () => NOW,
    ...overrides,
  });
}

/** Validates in 'validate' mode with the default deps. */
export async function check(body: unknown, mode: 'validate' | 'create' = 'validate'): Promise<ValidationOutcome> {
  return validator().validate(body, { mode });
}

/** The errors of an outcome as `code@attr` strings (empty when ok). */
export function errorsOf(outcome: ValidationOutcome): string[] {
  return outcome.ok ? [] : outcome.errors.map((e) => `${e.code}@${e.attr}`);
}

export function warningsOf(outcome: ValidationOutcome): string[] {
  return outcome.warnings.map((e: Issue) => `${e.code}@${e.attr}`);
}

export const ELEC = 'supply_addresses.0.meter_points.0';
export const GAS = 'supply_addresses.0.meter_points.1';
