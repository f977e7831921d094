import { Command } from 'commander';
import { AuthStoreError, createOrganisation, grantSupplier, listOrganisations, revokeSupplier } from '../../auth/store';
import { CliError } from '../errors';
import { print, withDb } from '../context';
import { json, table, withExamples } from '../format';

/**
 * `data-import organisations`: the integrators' organisations and the import suppliers each may
 * import for. API keys belong to an organisation (`data-import api-keys`).
 */

// 100 is the column width; surrounding blanks would make a name nobody can type back.
const NAME_MAX = 100;

function checkName(name: string): string {
  if (name.trim() === '' || name !== name.trim() || name.length > NAME_MAX) {
    throw new CliError(`organisation name ${JSON.stringify(name)}: expected 1 to ${NAME_MAX} characters, not starting or ending with blanks`);
  }
  return name;
}

/** AuthStoreError codes as one-line messages naming what was not found. */
export function authStoreMessage(err: AuthStoreError, organisation: string, supplier?: string): string {
  switch (err.code) {
    case 'organisation_not_found':
      return `organisation ${organisation} not found`;
    case 'supplier_not_found':
      return `import supplier ${supplier ?? ''} not found`;
    default:
      return err.message;
  }
}

export function register(program: Command): void {
  const group = program
    .command('organisations')
    .description('Create and list integrator organisations, and grant or revoke the import suppliers they may import for.');
  withExamples(group, ['data-import organisations create "Acme Migrations"', 'data-import organisations grant "Acme Migrations" ACME_ENERGY']);

  withExamples(
    group
      .command('create')
      .description('Create an organisation. It can import for no supplier until granted one (organisations grant).')
      .argument('<name>', `organisation name, 1 to ${NAME_MAX} characters`),
    ['data-import organisations create "Acme Migrations"'],
  ).action(async (name: string) => {
    checkName(name);
    await withDb(async (db) => {
      if (!(await createOrganisation(db, name))) throw new CliError(`organisation ${name} already exists`);
      print(`Created organisation ${name}.`);
    });
  });

  withExamples(
    group
      .command('list')
      .description('List organisations with the import suppliers granted to each.')
      .option('--json', 'print a JSON array of {name, suppliers, created_at}'),
    ['data-import organisations list', 'data-import organisations list --json'],
  ).action(async (opts: { json?: boolean }) => {
    await withDb(async (db) => {
      const all = await listOrganisations(db);
      if (opts.json) return print(json(all.map((o) => ({ name: o.name, suppliers: o.suppliers, created_at: o.createdAt.toISOString() }))));
      print(table(['NAME', 'SUPPLIERS', 'CREATED'], all.map((o) => [o.name, o.suppliers.join(', '), o.createdAt]), '(no organisations)'));
    });
  });

  withExamples(
    group
      .command('grant')
      .description("Let an organisation's API keys import accounts of an import supplier (idempotent).")
      .argument('<organisation>', 'organisation name')
      .argument('<supplier>', 'import supplier code'),
    ['data-import organisations grant "Acme Migrations" ACME_ENERGY'],
  ).action(async (organisation: string, supplier: string) => {
    await withDb(async (db) => {
      try {
        await grantSupplier(db, organisation, supplier);
      } catch (err) {
        if (err instanceof AuthStoreError) throw new CliError(authStoreMessage(err, organisation, supplier));
        throw err;
      }
      print(`Granted import supplier ${supplier} to organisation ${organisation}.`);
    });
  });

  withExamples(
    group
      .command('revoke')
      .description("Stop an organisation's API keys from importing for an import supplier; its next requests for that supplier answer not found.")
      .argument('<organisation>', 'organisation name')
      .argument('<supplier>', 'import supplier code'),
    ['data-import organisations revoke "Acme Migrations" ACME_ENERGY'],
  ).action(async (organisation: string, supplier: string) => {
    await withDb(async (db) => {
      if (!(await revokeSupplier(db, organisation, supplier))) {
        throw new CliError(`organisation ${organisation} has no grant of import supplier ${supplier}`);
      }
      print(`Revoked import supplier ${supplier} from organisation ${organisation}.`);
    });
  });
}
