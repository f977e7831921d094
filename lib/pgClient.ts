import type pg from 'pg';

/**
 * What the server does with a session of ours whose client falls silent (a host that loses power
 * or its link closes no socket): PostgreSQL keeps such a session — and its row locks, an open
 * transaction's — for `tcp_keepalives_idle`, two hours by default, and every other worker that
 * retries the same import waits on those locks as long. Each session therefore asks the server for
 * keepalives of its own (user-settable, per session, sent in the startup packet): the first probe
 * after 10 s of silence, then every 5 s, the session ended after 3 unanswered (~25 s); and
 * `tcp_user_timeout` ends it when data the server sent stays unacknowledged for 25 s. A client
 * that is alive answers the probes from its kernel, however long its own work between two
 * statements takes — and a frozen one too (SIGSTOP, a VM paused): so a transaction left idle for
 * 20 s is ended as well (`idle_in_transaction_session_timeout`; no step of the service waits that
 * long inside a transaction but an SMTP send, which sets its own, emails/delivery.ts), and with it
 * its row locks. An `options` parameter in DATABASE_URL replaces these (`?options=` alone:
 * none, e.g. through a PgBouncer that refuses the startup parameter). docs/scaling.md, "Failover times".
 *
 * Every session of the service carries them: the pools' (db/knex.ts), and the sessions of their own
 * (a ProbeSession, lib/pgProbe.ts) — the relay's lock session (events/lease.ts) and the worker's
 * watchdog (db/watchdog.ts). Without them, each partition of a worker's links left its watchdog session open on the server for two
 * hours (the server's keepalives), idle, its worker long gone: a connection slot leaked per cut.
 */
export const SESSION_PEER_OPTIONS = '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3 -c tcp_user_timeout=25000 -c idle_in_transaction_session_timeout=20000';

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
