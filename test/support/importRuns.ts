import type { Knex } from 'knex';
import { ReferenceDataCache } from '../../account/referenceDataCache';
import { createActivities, type ActivityDeps, type ImportRef } from '../../activities/imports';
import { databaseValidator } from '../../suppliers/databaseValidator';
import { silentLog } from './stack';
import { upsertRun } from '../../imports/store';
import { importWorkflowId } from '../../imports/workflowId';
import { createSupplier } from '../../suppliers/store';
import { createTestDatabase, TestDatabase } from './db';
import { uniqueAccount } from './fixtures';

/** A test database with the demo supplier (Ongoing) and a started reference-data cache: what the import steps run against. */
export interface StepsDatabase {
  t: TestDatabase;
  cache: ReferenceDataCache;
  /** Stops the cache and drops the database. */
  drop(): Promise<void>;
}

export async function stepsDatabase(): Promise<StepsDatabase> {
  const t = await createTestDatabase();
  await createSupplier(t.db, 'DEMO_ENERGY', { status: 'Ongoing', marketParticipantId: 'DEMO' });
  const cache = new ReferenceDataCache(t.db);
  await cache.start();
  return {
    t,
    cache,
    async drop() {
      await cache.stop();
      await t.drop();
    },
  };
}

/**
 * A run of the demo supplier stored as the API stores one: PENDING, its window open for an hour,
 * `payload` (default: uniqueAccount(ext)) with the fingerprint of its validation if given.
 */
export async function storeRun(
  db: Knex,
  ext: string,
  opts: { payload?: unknown; dryRun?: boolean; validationFingerprint?: string | null } = {},
): Promise<ImportRef & { ext: string }> {
  const now = new Date();
  const p = await upsertRun(db, null, {
    importSupplier: 'DEMO_ENERGY',
    externalAccountNumber: ext,
    payload: opts.payload ?? uniqueAccount(ext),
    taskParams: {},
    isDryRun: opts.dryRun ?? false,
    scheduleWindowStart: now,
    scheduleWindowEnd: new Date(now.getTime() + 3600_000),
    workflowId: importWorkflowId('DEMO_ENERGY', ext),
    warnings: [],
    validationFingerprint: opts.validationFingerprint,
    now,
  });
  return { importProcessId: p.id, run: p.run, ext };
}

/** The import steps over the steps database, as the worker wires them (silent log; `extra` on top). */
export type StepActivities = ReturnType<typeof createActivities>;

export function stepActivities(s: StepsDatabase, subjectPrefix: string, extra: Partial<ActivityDeps> = {}): StepActivities {
  return createActivities({ db: s.t.db, validator: databaseValidator({ db: s.t.db, cache: s.cache }), subjectPrefix, log: silentLog, ...extra });
}
