import type { Knex } from 'knex';
import { createSupplier } from '../db/stores/suppliers';

export const DEMO_SUPPLIER = 'DEMO_ENERGY';
export const DEMO_ORGANISATION = 'DEMO';

/**
 * Demo data of the quick start: import supplier DEMO_ENERGY (Ongoing, no document existence
 * check, no customer emails). Idempotent.
 */
export async function seedDemo(db: Knex): Promise<Record<string, string | undefined>> {
  const created = await createSupplier(db, DEMO_SUPPLIER, { status: 'Ongoing', documentRoot: '', checkDocumentExistence: false, sendCustomerEmails: false, marketParticipantId: 'DEMO' });
  process.stderr.write(`[data-import] import supplier ${DEMO_SUPPLIER}: ${created ? 'created' : 'exists'}\n`);
  return {};
}
