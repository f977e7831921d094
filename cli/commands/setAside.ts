import type { Command } from 'commander';
import { listSetAside, retrySetAside } from '../../db/stores/digestQueue';
import { CliError } from '../errors';
import { print, withDb } from '../context';
import { integerIn, json, table, withExamples } from '../format';

/**
 * `data-import set-aside`: the items a queue several workers share set aside after their last
 * attempt (issue 47: a poison item never stops anyone else), and putting one back once fixed.
 * docs/operations.md "Set-aside queue items".
 */
export function register(program: Command): void {
  const group = program
    .command('set-aside')
    .description(
      'Queue items set aside after their last attempt, so that one item a worker cannot handle (an error, or a crash such as running out of memory) stops no one else. Today: the digest filler (queue "digest": accounts whose stored digest could not be computed).',
    );
  withExamples(
    group
      .command('list')
      .description('Name every set-aside item: queue, id, supplier and external account number, attempts, reason, when.')
      .option('--limit <n>', 'at most this many (default 100)', integerIn(1, 100_000))
      .option('--json', 'print them as JSON')
      .action(async (o: { limit?: number; json?: boolean }) => {
        await withDb(async (db) => {
          const items = await listSetAside(db, o.limit ?? 100);
          if (o.json) return print(json(items));
          if (items.length === 0) return print('no set-aside items');
          print(table(['queue', 'id', 'supplier', 'external account', 'attempts', 'set aside at', 'reason'], items.map((i) => [i.queue, i.id, i.supplier ?? '-', i.externalAccountNumber ?? '-', i.attempts, i.setAsideAt.toISOString(), i.reason ?? '-'])));
        });
      }),
    ['data-import set-aside list', 'data-import set-aside list --json'],
  );
  withExamples(
    group
      .command('retry')
      .description('Put set-aside items back on their queue with their attempts reset (after fixing what made them fail): the ids given, or every one with --all.')
      .argument('[ids...]', 'ids as `set-aside list` names them')
      .option('--all', 'every set-aside item')
      .action(async (ids: string[], o: { all?: boolean }) => {
        if (!o.all && ids.length === 0) throw new CliError('name the ids to retry, or pass --all');
        if (o.all && ids.length > 0) throw new CliError('give ids or --all, not both');
        const numbers = ids.map((id) => {
          if (!/^[0-9]{1,18}$/.test(id)) throw new CliError(`not an id: ${id}`);
          return Number(id);
        });
        await withDb(async (db) => {
          const back = await retrySetAside(db, o.all ? null : numbers);
          print(`put back on the digest queue: ${back.length === 0 ? 'none' : back.join(', ')}`);
        });
      }),
    ['data-import set-aside retry 4211', 'data-import set-aside retry --all'],
  );
}
