import { loadConfig } from '../lib/config';
import { createDb, ensureDatabase } from '../db/knex';
import { seedDemo } from './seedDemo';

/**
 * Creates the database when missing, runs the migrations, and with --demo seeds the demo data
 * (docs/quick-start.md). Prints `KEY=value` lines the start script reads.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  await ensureDatabase(config.database.url);
  const db = createDb(config.database.url, 2);
  try {
    const [, applied] = await db.migrate.latest();
    process.stderr.write(`[data-import] migrations: ${applied.length ? applied.join(', ') : 'up to date'}\n`);
    if (process.argv.includes('--demo')) {
      // DEMO_API_KEY_FILE: where a run of its own (the fault suite) keeps its key, not data/demo-api-key.
      const out = await seedDemo(db, { keyFile: process.env.DEMO_API_KEY_FILE || undefined });
      for (const [k, v] of Object.entries(out)) if (v !== undefined) process.stdout.write(`${k}=${v}\n`);
    }
  } finally {
    await db.destroy();
  }
}

main().catch((err) => {
  process.stderr.write(`setup failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
