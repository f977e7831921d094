import type pg from 'pg';

/**
 * Drops a PostgreSQL client's socket at once: `end()` waits for the server's answer, which a
 * silent server (its host cut off, no reset) never sends. The relay's lock session and the worker's
 * watchdog session use it when they give a session up.
 */
export function destroyPgClient(c: pg.Client): void {
  const stream = (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
  stream?.destroy();
  c.end().catch(() => undefined);
}
