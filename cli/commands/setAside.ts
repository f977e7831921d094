import type { Command } from 'commander';
import { listAllSetAside, retryQueue, SET_ASIDE_QUEUES, type SetAsideQueue } from '../../maintenance/setAside';
import { CliError } from '../errors';
import { print, withDb } from '../context';
import { integerIn, json, table, withExamples } from '../format';

const QUEUES_HELP = `queues: "digest" (the digest filler: accounts whose stored digest could not be computed; id = account id), "outbox" (the relay: events it could not publish; id = outbox seq; each holds the later events of its account until retried), "sweeper" (stored imports whose workflow could not be started; id = import process id), "email" (customer e-mails the sender could not handle, now FAILED; id = e-mail id; once retried, send it with data-import emails resend), "retention" (batches retention could not prune; id = the batch, <table>:<first key>..<last key>, left alone until retried)`;

function queueOf(name: string): SetAsideQueue {
  if (!(SET_ASIDE_QUEUES as readonly string[]).includes(name)) throw new CliError(`unknown queue: ${name} (one of ${SET_ASIDE_QUEUES.join(', ')})`);
  return name as SetAsideQueue;
}

/**
 * `data-import set-aside`: the items of the queues several workers share set aside after their last
 * attempt (issue 47: a poison item never stops anyone else), and putting them back once fixed.
 * docs/operations.md "Set-aside queue items".
 */
export function register(program: Command): void {
  const group = program
    .command('set-aside')
    .description(
      `Queue items set aside after their last attempt, so that one item a worker cannot handle (an error, or a crash such as running out of memory) stops no one else. The ${QUEUES_HELP}.`,
    );
  withExamples(
    group
      .command('list')
      .description('Name every set-aside item: queue, id, what it is, supplier and external account number, attempts, reason, when (outbox: how many later events it holds).')
      .option('--queue <name>', `only this queue (${SET_ASIDE_QUEUES.join(', ')})`, queueOf)
      .option('--limit <n>', 'at most this many per queue (default 100)', integerIn(1, 100_000))
      .option('--json', 'print them as JSON')
      .action(async (o: { queue?: SetAsideQueue; limit?: number; json?: boolean }) => {
        await withDb(async (db) => {
          const items = await listAllSetAside(db, { queue: o.queue, limit: o.limit ?? 100 });
          if (o.json) return print(json(items));
          if (items.length === 0) return print('no set-aside items');
          print(
            table(
              ['queue', 'id', 'item', 'supplier', 'external account', 'attempts', 'holds', 'set aside at', 'reason'],
              items.map((i) => [i.queue, i.id, i.item ?? '-', i.supplier ?? '-', i.externalAccountNumber ?? '-', i.attempts, i.held ?? '-', i.setAsideAt.toISOString(), i.reason ?? '-']),
            ),
          );
        });
      }),
    ['data-import set-aside list', 'data-import set-aside list --queue outbox --json', 'data-import set-aside list --queue email'],
  );
  withExamples(
    group
      .command('retry')
      .description(
        'Put set-aside items back on their queue with their attempts reset (after fixing what made them fail): the ids of one queue, every item of a queue with --all, or every item of every queue with --all alone. A retried outbox event is published before the events it held.',
      )
      .argument('[queue]', `the queue (${SET_ASIDE_QUEUES.join(', ')})`)
      .argument('[ids...]', 'ids as `set-aside list` names them')
      .option('--all', 'every set-aside item (of the queue given, else of every queue)')
      .action(async (queue: string | undefined, ids: string[], o: { all?: boolean }) => {
        if (queue === undefined && !o.all) throw new CliError('name the queue and the ids to retry, or pass --all');
        const queues = queue === undefined ? [...SET_ASIDE_QUEUES] : [queueOf(queue)];
        if (!o.all && ids.length === 0) throw new CliError('name the ids to retry, or pass --all');
        if (o.all && ids.length > 0) throw new CliError('give ids or --all, not both');
        // A retention batch is named by its table and key range; every other queue's id is a number.
        const named = queues.length === 1 && queues[0] === 'retention';
        const parsed = ids.map((id) => {
          if (named) {
            if (!/^[a-z_]+:[^\s]+\.\.[^\s]+$/.test(id)) throw new CliError(`not a retention batch: ${id} (<table>:<first key>..<last key>, as set-aside list names it)`);
            return id;
          }
          if (!/^[0-9]{1,18}$/.test(id)) throw new CliError(`not an id: ${id}`);
          return Number(id);
        });
        await withDb(async (db) => {
          for (const q of queues) {
            const back = await retryQueue(db, q, o.all ? null : parsed);
            print(`put back on the ${q} queue: ${back.length === 0 ? 'none' : back.join(', ')}`);
            if (q === 'email' && back.length > 0) print('the e-mails stay FAILED until sent: data-import emails resend --supplier <code> --account <number>');
          }
        });
      }),
    ['data-import set-aside retry outbox 4211', 'data-import set-aside retry email 3106', 'data-import set-aside retry retention import_processes:1200..1299', 'data-import set-aside retry digest --all', 'data-import set-aside retry --all'],
  );
}
