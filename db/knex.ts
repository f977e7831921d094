import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { Knex } from 'knex';
import pg from 'pg';
import { SESSION_PEER_OPTIONS } from '../lib/pgClient';
import { isDuplicateDatabase, isMissingDatabase } from './pgErrors';

// Return DATE columns as 'YYYY-MM-DD' strings, never as JS Dates shifted by the local zone,
// and BIGINT/NUMERIC as strings (exact money, no float drift).
pg.types.setTypeParser(pg.types.builtins.DATE, (v: string) => v);

export type Db = Knex;

// The server ends a silent or frozen client's session in bounded time: lib/pgClient.ts.
export { SESSION_PEER_OPTIONS };

/** How long one connection attempt of the pool may take (docs/scaling.md, "Every network call"). */
export const CONNECT_TIMEOUT_MS = 10_000;

export function createDb(url: string, poolMax = 10): Db {
  return knexFactory({
    client: 'pg',
    // node-postgres lets the URL's own parameters (options among them) win over these.
    // A connection attempt to a silent server gives up after 10 s (the kernel's own SYN retries
    // take ~2 min); an established one has TCP keepalives from 10 s of silence on.
    connection: { connectionString: url, options: SESSION_PEER_OPTIONS, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true, keepAliveInitialDelayMillis: 10_000 },
    pool: { min: 0, max: poolMax },
    migrations: { migrationSource: new DirectoryMigrationSource(), tableName: 'knex_migrations' },
  });
}

/**
 * Migrations are the files `db/migrations/NNNN_name.(ts|js)`, in name order. Reading the folder
 * (rather than knex's default loader) works the same from TypeScript sources (jest, tsx) and from
 * the compiled `dist/` tree, and the recorded name never carries the extension.
 */
export class DirectoryMigrationSource implements Knex.MigrationSource<string> {
  private readonly dir = path.join(__dirname, 'migrations');

  async getMigrations(): Promise<string[]> {
    return fs
      .readdirSync(this.dir)
      .filter((f) => /^\d{4}_.+\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'))
      .map((f) => f.replace(/\.(ts|js)$/, ''))
      .filter((v, i, a) => a.indexOf(v) === i)
      .sort();
  }

  getMigrationName(migration: string): string {
    return migration;
  }

  async getMigration(migration: string): Promise<Knex.Migration> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(path.join(this.dir, migration));
  }
}

/**
 * Creates the database named in `url` when it does not exist. The database itself is tried first:
 * a service role that may connect to its own database only (least privilege: `pg_hba.conf` names
 * that database, docs/scaling.md) never needs the `postgres` database; only when the server answers
 * that it does not exist is it created, from the `postgres` database.
 */
export async function ensureDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!name) return;
  const own = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  try {
    await own.connect();
    return;
  } catch (err) {
    if (!isMissingDatabase(err)) throw err;
  } finally {
    await own.end().catch(() => undefined);
  }
  u.pathname = '/postgres';
  const client = new pg.Client({ connectionString: u.toString(), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await client.connect();
  try {
    const r = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (r.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      } catch (err) {
        // Two processes racing to create it: the loser sees duplicate_database (42P04).
        if (!isDuplicateDatabase(err)) throw err;
      }
    }
  } finally {
    await client.end();
  }
}

/** The API's readiness check of PostgreSQL (lib/readiness.ts has the others): one round trip. */
export const postgresCheck = (db: Knex) => async () => {
  await db.raw('SELECT 1');
};

/** Raises the session's idle-in-transaction limit for the caller's transaction only (SET LOCAL). */
export async function setIdleInTransactionTimeout(trx: Knex, ms: number): Promise<void> {
  await trx.raw(`SET LOCAL idle_in_transaction_session_timeout = ${ms}`);
}
