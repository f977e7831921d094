import type { Issue } from '../../account/issues';
import { json, ref } from '../../http/openapi';
import type { ImportProcess } from '../store';

/**
 * What the platform's v1 account import operations share (docs/api.md, "Staged imports"):
 * validate-account, the staged import (create-or-update, then process), the transfer status and
 * the payment instruction. Staging and processing go through the import service
 * (imports/staging.ts): the same validation, row lock, run, workflow start and sweeper as a v2
 * create. Same authentication and grants as every operation: another organisation's supplier is
 * an unknown one. Every 400 of validate-account, create-or-update and process is in the
 * platform's shapes (http/middleware/errorShape.ts v1AccountErrorBody).
 */

/** The answer of create-or-update and of process (the OpenAPI document's StagedAccount, ProcessStarted). */
export const answerOf = (p: ImportProcess, warnings: Issue[]) => ({ external_account_number: p.externalAccountNumber, import_supplier_code: p.importSupplier, warnings });

export const WARNINGS = { type: 'array', items: { $ref: '#/components/schemas/Issue' }, description: 'As v2 validate\'s: things worth knowing that do not stop the import.' };

/** The answer of create-or-update and of process: the account's import, named, and the warnings of its validation. */
export const accountOfImport = (description: string) => ({
  type: 'object',
  description,
  required: ['external_account_number', 'import_supplier_code', 'warnings'],
  additionalProperties: false,
  properties: { external_account_number: { type: 'string', maxLength: 128 }, import_supplier_code: { type: 'string', maxLength: 64 }, warnings: WARNINGS },
});

export const accountErrors = (what: string) =>
  json({ oneOf: [ref('V1AccountErrors'), ref('V1AlreadyImported')] }, `In the platform's shapes (its AccountAlreadyImportedResponse or DRFError): ${what}`);

export const conflict = json(ref('ImportProcessConflict'), 'A run of this account is PENDING or IN_PROGRESS (`import_process_in_progress`).');

export const bareAccountBody = { required: true, description: "The bare Account (the platform's EnergyAccount): an envelope's `payload` is an unknown field here.", content: { 'application/json': { schema: ref('Account') } } };
