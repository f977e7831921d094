import crypto from 'node:crypto';
import pg from 'pg';
import { createDb, Db } from '../../db/knex';
import { TEST_PG_URL, databaseUrl, runId, templateDb, alive } from './env';

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: TEST_PG_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export interface TestDatabase {
  db: Db;
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * A fresh database for one test file, cloned from the migrated template that the global setup
 * prepared (CREATE DATABASE ... TEMPLATE is a file copy: milliseconds, not a migration run).
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `di_test_${runId()}_${crypto.randomBytes(5).toString('hex')}`;
  const TEMPLATE_DB = templateDb();
  // Cloning needs the template to have no other connections; retry briefly if one lingers.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DB}"`));
      break;
    } catch (err) {
      if (attempt >= 20 || (err as { code?: string }).code !== '55006') throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const url = databaseUrl(name);
  const db = createDb(url, 5);
  return {
    db,
    url,
    name,
    async drop() {
      await db.destroy();
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** Builds the template: drop, create, migrate. Called once per test run by the global setup. */
export async function prepareTemplateDatabase(): Promise<void> {
  const TEMPLATE_DB = templateDb();
  await admin(async (c) => {
    await c.query(`UPDATE pg_database SET datistemplate = false WHERE datname = $1`, [TEMPLATE_DB]);
    await c.query(`DROP DATABASE IF EXISTS "${TEMPLATE_DB}" WITH (FORCE)`);
    await c.query(`CREATE DATABASE "${TEMPLATE_DB}"`);
  });
  const db = createDb(databaseUrl(TEMPLATE_DB), 1);
  try {
    await db.migrate.latest();
  } finally {
    await db.destroy();
  }
  await admin((c) => c.query(`UPDATE pg_database SET datistemplate = true WHERE datname = $1`, [TEMPLATE_DB]));
}


/**
 * Drops this run's databases (own = true), or those left behind by earlier runs whose jest
 * process is gone; a run still going on beside this one keeps its databases.
 */
export async function dropTestDatabases(own: boolean): Promise<void> {
  await admin(async (c) => {
    const r = await c.query(`SELECT datname FROM pg_database WHERE datname ~ '^di_(test|tmpl)_[0-9]+'`);
    for (const row of r.rows as { datname: string }[]) {
      const pid = Number(/^di_(?:test|tmpl)_(\d+)/.exec(row.datname)![1]);
      const mine = String(pid) === runId();
      if (own ? mine : !mine && !alive(pid)) {
        if (row.datname.startsWith('di_tmpl_')) {
          await c.query(`UPDATE pg_database SET datistemplate = false WHERE datname = $1`, [row.datname]);
        }
        await c.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
      }
    }
  });
}
