import { Command } from 'commander';
import { AuthStoreError, issueApiKey, listApiKeys, revokeApiKey, setKeyRevealsBankDetails } from '../../auth/store';
import { CliError } from '../errors';
import { print, printErr, withDb } from '../context';
import { json, table, withExamples } from '../format';
import { authStoreMessage } from './organisations';

/**
 * `data-import api-keys`: the organisation API keys integrators exchange for tokens
 * (obtainKrakenToken). Keys are stored hashed: the key is printed once, when issued.
 */

// The column width of api_keys.label.
const LABEL_MAX = 200;

export function register(program: Command): void {
  const group = program.command('api-keys').description('Issue, list and revoke the API keys of organisations.');
  withExamples(group, ['data-import api-keys issue --organisation "Acme Migrations" --label "bulk loader"', 'data-import api-keys list']);

  withExamples(
    group
      .command('issue')
      .description('Issue a new API key for an organisation and print it. The key is stored hashed and cannot be shown again.')
      .requiredOption('--organisation <name>', 'the organisation the key belongs to')
      .option('--label <text>', `a note saying who or what uses the key (at most ${LABEL_MAX} characters)`)
      .option('--reveal-bank-details', 'the key may read bank details in clear (GET …/account/?reveal=bank_details); without it they are masked')
      .option('--quiet', 'print only the key, for scripts')
      .option('--json', 'print {id, organisation, label, key} as JSON'),
    [
      'data-import api-keys issue --organisation "Acme Migrations" --label "bulk loader"',
      'KEY=$(data-import api-keys issue --organisation "Acme Migrations" --quiet)',
    ],
  ).action(async (opts: { organisation: string; label?: string; revealBankDetails?: boolean; quiet?: boolean; json?: boolean }) => {
    if (opts.label !== undefined && (opts.label.trim() === '' || opts.label.length > LABEL_MAX)) {
      throw new CliError(`--label: expected 1 to ${LABEL_MAX} characters`);
    }
    await withDb(async (db) => {
      let issued: { id: string; key: string };
      try {
        issued = await issueApiKey(db, opts.organisation, { label: opts.label, revealBankDetails: opts.revealBankDetails === true });
      } catch (err) {
        if (err instanceof AuthStoreError) throw new CliError(authStoreMessage(err, opts.organisation));
        throw err;
      }
      if (opts.quiet) return print(issued.key);
      if (opts.json) return print(json({ id: issued.id, organisation: opts.organisation, label: opts.label ?? null, key: issued.key }));
      print(`Issued API key ${issued.id} for organisation ${opts.organisation}${opts.label ? ` (${opts.label})` : ''}:\n\n  ${issued.key}\n`);
      printErr('Store this key now: it is kept only as a hash and cannot be shown again.');
    });
  });

  withExamples(
    group
      .command('list')
      .description('List API keys (never the keys themselves: their id, first characters, label and dates).')
      .option('--organisation <name>', 'only the keys of this organisation')
      .option('--json', 'print a JSON array of {id, organisation, label, prefix, created_at, revoked_at, last_used_at, reveal_bank_details}'),
    ['data-import api-keys list', 'data-import api-keys list --organisation "Acme Migrations" --json'],
  ).action(async (opts: { organisation?: string; json?: boolean }) => {
    await withDb(async (db) => {
      const keys = await listApiKeys(db, opts.organisation);
      if (opts.json) {
        return print(
          json(
            keys.map((k) => ({
              id: k.id,
              organisation: k.organisation,
              label: k.label,
              prefix: k.prefix,
              created_at: k.createdAt.toISOString(),
              revoked_at: k.revokedAt?.toISOString() ?? null,
              last_used_at: k.lastUsedAt?.toISOString() ?? null,
              reveal_bank_details: k.revealBankDetails,
            })),
          ),
        );
      }
      print(
        table(
          ['ID', 'ORGANISATION', 'LABEL', 'PREFIX', 'CREATED', 'LAST USED', 'REVOKED', 'BANK DETAILS'],
          keys.map((k) => [k.id, k.organisation, k.label, `${k.prefix}...`, k.createdAt, k.lastUsedAt, k.revokedAt, k.revealBankDetails ? 'clear' : 'masked']),
          '(no API keys)',
        ),
      );
    });
  });

  withExamples(
    group
      .command('permit')
      .description('Give a key the permission to read bank details in clear (GET …/account/?reveal=bank_details), or take it away; it applies within AUTH_GRANT_CACHE_MS.')
      .argument('<id>', 'the key id (from api-keys list or issue)')
      .option('--reveal-bank-details', 'may read bank details in clear')
      .option('--no-reveal-bank-details', 'may not (bank details masked, the default of a new key)'),
    ['data-import api-keys permit <id> --reveal-bank-details', 'data-import api-keys permit <id> --no-reveal-bank-details'],
  ).action(async (id: string, opts: { revealBankDetails?: boolean }) => {
    if (opts.revealBankDetails === undefined) throw new CliError('say --reveal-bank-details or --no-reveal-bank-details');
    await withDb(async (db) => {
      if (await setKeyRevealsBankDetails(db, id, opts.revealBankDetails === true)) {
        return print(`API key ${id} ${opts.revealBankDetails ? 'may now read bank details in clear' : 'now reads bank details masked'}.`);
      }
      const known = (await listApiKeys(db)).find((k) => k.id === id);
      throw new CliError(known ? `API key ${id} is revoked` : `API key ${id} not found`);
    });
  });

  withExamples(
    group
      .command('revoke')
      .description('Revoke an API key at once: tokens obtained with it stop working and its refresh tokens are revoked too.')
      .argument('<id>', 'the key id (from api-keys list or issue)'),
    ['data-import api-keys revoke <id>'],
  ).action(async (id: string) => {
    await withDb(async (db) => {
      if (await revokeApiKey(db, id)) return print(`Revoked API key ${id}.`);
      const known = (await listApiKeys(db)).find((k) => k.id === id);
      throw new CliError(known ? `API key ${id} is already revoked` : `API key ${id} not found`);
    });
  });
}
