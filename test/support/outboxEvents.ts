import { enqueueEvents, NewEvent } from '../../events/outbox';
import type { Db } from '../../db/knex';

/**
 * `count` `complete` events per import key, each import written in a transaction of its own, as
 * the import steps write them: the relay tests' outbox. Returns the event ids in outbox order.
 */
export async function writeCompleteEvents(db: Db, subjectPrefix: string, imports: string[], count: number): Promise<string[]> {
  const ids: string[] = [];
  for (const key of imports) {
    const events: NewEvent[] = Array.from({ length: count }, (_, i) => ({
      type: 'data_import.import_process.complete',
      version: 'v1',
      data: { resource_type: 'account', external_identifier: key, identifier: `A-${i}` },
      key: `${key}:event-${i}`,
      orderingKey: key,
      occurredAt: new Date(),
    }));
    ids.push(...(await db.transaction((trx) => enqueueEvents(trx, subjectPrefix, events))));
  }
  return ids;
}
