/**
 * Where the integration tests find their servers. scripts/test.sh exports these after detecting
 * or starting PostgreSQL, NATS and Temporal; the defaults are this machine's own servers.
 */
export const TEST_PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
export const TEST_TEMPORAL_ADDRESS = process.env.TEST_TEMPORAL_ADDRESS ?? process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
/** The jest process's pid names this run's template and databases, so parallel runs never collide. */
export function runId(): string {
  if (!process.env.DI_TEST_RUN_ID) process.env.DI_TEST_RUN_ID = String(process.pid);
  return process.env.DI_TEST_RUN_ID;
}
export function templateDb(): string {
  return `di_tmpl_${runId()}`;
}

export function databaseUrl(name: string): string {
  const u = new URL(TEST_PG_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Whether a process of this machine with that pid is alive (a run's leftovers are told apart by their owner's pid). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
