import type { Stack } from './stack';

/**
 * The environment of an API or worker process a test spawns over its stack (a real process, with
 * its own heap flags, where the test needs one): this run's servers and the stack's database, task
 * queue, stream and subject prefix, so the process sees what the stack's in-process parts see.
 * Inherited `OTEL_*` settings and `WORKER_METRICS_PORT` are dropped (a test that wants them sets
 * them in `extra`), as is everything `extra` overrides.
 */
export function stackProcessEnv(s: Stack, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_') && k !== 'WORKER_METRICS_PORT'));
  return {
    ...inherited,
    APP_ENV: 'test',
    AUTH_SIGNING_KEY: s.config.auth.signingKey,
    LOG_LEVEL: 'warn',
    DATABASE_URL: s.t.url,
    DATABASE_POOL_MAX: '3',
    NATS_URL: s.config.nats.url,
    TEMPORAL_ADDRESS: s.config.temporal.address,
    TEMPORAL_TASK_QUEUE: s.taskQueue,
    EVENTS_SUBJECT_PREFIX: s.subjectPrefix,
    EVENTS_STREAM: s.stream,
    EVENTS_MAX_AGE_MS: String(s.config.nats.maxAgeMs),
    EVENTS_DUPLICATE_WINDOW_MS: String(s.config.nats.duplicateWindowMs),
    OPS_BIND: 'off',
    ...extra,
  };
}
