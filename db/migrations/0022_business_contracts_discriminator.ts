import type { Knex } from 'knex';
import type { Type } from './0020_whole_platform_account';

/**
 * The platform's Business discriminator, `enforce_business_contracts_exist` (a nullable boolean: true
 * selects its BusinessWithExistingContracts), now a field of account/platformAccount.json
 * (scripts/platformFields.ts takes a discriminator no variant declares as a field of the object):
 * its column on account_business. The data is what `npm run platform:migration` printed.
 */
export const ADDED: Record<string, Record<string, Type>> = {
  account_business: { enforce_business_contracts_exist: 'boolean' },
};
export const TABLES: { name: string; parent: string | null; parentColumn: string | null; one: boolean; columns: Record<string, Type> }[] = [];

export async function up(knex: Knex): Promise<void> {
  for (const [table, columns] of Object.entries(ADDED)) {
    await knex.schema.alterTable(table, (t) => {
      for (const [name, type] of Object.entries(columns)) t.specificType(name, type);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table, columns] of Object.entries(ADDED)) {
    await knex.schema.alterTable(table, (t) => {
      for (const name of Object.keys(columns)) t.dropColumn(name);
    });
  }
}
