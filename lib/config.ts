import { BUILD_ID_PATTERN } from './buildInfo';

/**
 * Configuration is read once from the environment, validated and frozen.
 * A bad value stops the process with a message naming the variable.
 * Every variable is listed in docs/configuration.md.
 */

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

function optStr(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (!/^-?\d+$/.test(v.trim())) throw new ConfigError(name, `expected an integer, got ${JSON.stringify(v)}`);
  const n = Number(v);
  if (n < min || n > max) throw new ConfigError(name, `expected an integer from ${min} to ${max}, got ${n}`);
  return n;
}

/** The values a boolean setting reads as true (lib/nodeOptions.ts reads API_EAGER_START with it before the config loads). */
export const TRUE_VALUE = /^(1|true|yes|on)$/i;

function bool(env: Env, name: string, fallback: boolean): boolean {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (TRUE_VALUE.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  throw new ConfigError(name, `expected true or false, got ${JSON.stringify(v)}`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (!(allowed as readonly string[]).includes(v)) {
    throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
  }
  return v as T;
}

/** Parses sizes like "10mb", "512kb", "1048576". */
function bytes(env: Env, name: string, fallback: number): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const m = /^\s*(\d+)\s*(b|kb|mb|gb)?\s*$/i.exec(v);
  if (!m) throw new ConfigError(name, `expected a size such as 10mb, got ${JSON.stringify(v)}`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const mult = unit === 'gb' ? 1024 ** 3 : unit === 'mb' ? 1024 ** 2 : unit === 'kb' ? 1024 : 1;
  return Number(m[1]) * mult;
}

function url(env: Env, name: string, fallback: string, protocols: string[]): string {
  const v = str(env, name, fallback);
  let parsed: URL;
  try {
    parsed = new URL(v);
  } catch {
    throw new ConfigError(name, `expected a URL, got ${JSON.stringify(v)}`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL, got ${JSON.stringify(v)}`);
  }
  return v;
}

function subjectToken(env: Env, name: string, fallback: string): string {
  const v = str(env, name, fallback);
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(v)) {
    throw new ConfigError(name, `expected NATS subject tokens (letters, digits, _ and -, separated by dots), got ${JSON.stringify(v)}`);
  }
  return v;
}

/** `host:port` (IPv6 as `[::1]:8001`), or `off`: the operations page's listener. */
function bindAddress(env: Env, name: string, fallback: string): { host: string; port: number } | null {
  const v = str(env, name, fallback).trim();
  if (v === 'off') return null;
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(v);
  if (!m || Number(m[2]) > 65535) throw new ConfigError(name, `expected host:port (or off), got ${JSON.stringify(v)}`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

function deploymentName(env: Env, taskQueue: string): string {
  const given = optStr(env, 'WORKER_DEPLOYMENT_NAME');
  const v = given ?? taskQueue;
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(v)) {
    throw new ConfigError('WORKER_DEPLOYMENT_NAME', given
      ? `expected 1-100 letters, digits, '_' or '-', got ${JSON.stringify(v)}`
      : `the task queue ${JSON.stringify(taskQueue)} cannot name the worker deployment (letters, digits, '_' and '-' only): set WORKER_DEPLOYMENT_NAME`);
  }
  return v;
}

function buildIdVar(env: Env, name: string): string | undefined {
  const v = optStr(env, name);
  if (v !== undefined && !BUILD_ID_PATTERN.test(v)) {
    throw new ConfigError(name, `expected 1-64 letters, digits, '_', '-' or '.' (not starting with '-' or '.'), got ${JSON.stringify(v)}`);
  }
  return v;
}

export const isLoopback = (host: string) => /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i.test(host);

export function loadConfig(env: Env = process.env) {
  const appEnv = oneOf(env, 'APP_ENV', ['development', 'test', 'production'] as const, 'development');
  const signingKey = optStr(env, 'AUTH_SIGNING_KEY');
  if (appEnv === 'production' && (!signingKey || signingKey.length < 32)) {
    throw new ConfigError('AUTH_SIGNING_KEY', 'must be set to at least 32 characters when APP_ENV=production');
  }
  const config = {
    appEnv,
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    http: {
      host: str(env, 'HOST', '127.0.0.1'),
      port: int(env, 'PORT', 8000, 0, 65535),
      bodyLimitBytes: bytes(env, 'BODY_LIMIT', 10 * 1024 * 1024),
      /** Bytes of request bodies above 256 KiB one API process holds at once (http/middleware/jsonBody.ts). */
      bodyBudgetBytes: bytes(env, 'API_BODY_BUDGET', 16 * 1024 * 1024),
      requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000),
    },
    database: {
      url: url(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/data_import', ['postgres:', 'postgresql:']),
      poolMax: int(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    },
    nats: {
      url: str(env, 'NATS_URL', 'nats://127.0.0.1:4222'),
      subjectPrefix: subjectToken(env, 'EVENTS_SUBJECT_PREFIX', 'events'),
      stream: subjectToken(env, 'EVENTS_STREAM', 'EVENTS'),
      /** Duplicate window: longer than the relay's retry horizon so a republished id is always dropped. */
      duplicateWindowMs: int(env, 'EVENTS_DUPLICATE_WINDOW_MS', 24 * 60 * 60 * 1000, 60_000),
      maxAgeMs: int(env, 'EVENTS_MAX_AGE_MS', 30 * 24 * 60 * 60 * 1000, 0),
      maxBytes: int(env, 'EVENTS_MAX_BYTES', -1, -1),
      replicas: int(env, 'EVENTS_REPLICAS', 1, 1, 5),
    },
    relay: {
      batchSize: int(env, 'OUTBOX_BATCH_SIZE', 200, 1, 10_000),
      pollIntervalMs: int(env, 'OUTBOX_POLL_INTERVAL_MS', 250, 10),
      /** A relay leader silent for this long loses the leadership to a standby (events/relay.ts). */
      leaderLeaseMs: int(env, 'OUTBOX_LEADER_LEASE_MS', 10_000, 1000, 600_000),
    },
    /** Retention and the maintenance schedule (maintenance/retention.ts, docs/operations.md "Retention and storage per account"). */
    retention: {
      outboxRetentionSeconds: int(env, 'RETENTION_OUTBOX_HOURS', 72, 0, 24 * 3650) * 3600,
      payloadRetentionSeconds: int(env, 'RETENTION_PAYLOAD_DAYS', 7, 0, 3650) * 86_400,
      batchSize: int(env, 'RETENTION_BATCH_SIZE', 1000, 1, 100_000),
      maxRowsPerRun: int(env, 'RETENTION_MAX_ROWS_PER_RUN', 500_000, 1),
      pauseMs: int(env, 'RETENTION_PAUSE_MS', 20, 0, 60_000),
      /** Minutes between two scheduled maintenance runs; 0: no schedule (the worker deletes it at start). */
      scheduleMinutes: int(env, 'MAINTENANCE_INTERVAL_MINUTES', 60, 0, 7 * 24 * 60),
    },
    temporal: {
      address: str(env, 'TEMPORAL_ADDRESS', '127.0.0.1:7233'),
      namespace: str(env, 'TEMPORAL_NAMESPACE', 'default'),
      taskQueue: str(env, 'TEMPORAL_TASK_QUEUE', 'data-import'),
      apiKey: optStr(env, 'TEMPORAL_API_KEY'),
      tls: bool(env, 'TEMPORAL_TLS', false),
      uiUrl: str(env, 'TEMPORAL_UI_URL', 'http://127.0.0.1:8233'),
      /**
       * The Worker Deployment the workers register their build in (docs/deploys.md): one per task
       * queue by default. Temporal refuses a '.' in it.
       */
      deploymentName: deploymentName(env, str(env, 'TEMPORAL_TASK_QUEUE', 'data-import')),
    },
    worker: {
      maxConcurrentActivities: int(env, 'WORKER_MAX_CONCURRENT_ACTIVITIES', 32, 1, 10_000),
      maxConcurrentWorkflowTasks: int(env, 'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS', 32, 1, 10_000),
      /** Bytes of payloads above 256 KiB one worker holds at once (lib/payloadBudget.ts); one account at the default BODY_LIMIT fits. */
      payloadBudgetBytes: bytes(env, 'WORKER_PAYLOAD_BUDGET', 16 * 1024 * 1024),
      metricsPort: int(env, 'WORKER_METRICS_PORT', 9464, 0, 65535),
      /** The build id, for builds made outside git (lib/buildInfo.ts); a compiled build carries its own. */
      buildId: buildIdVar(env, 'WORKER_BUILD_ID'),
      /**
       * `if-none`: a worker makes its build the deployment's current version when the deployment
       * has none (the first start on a namespace); `never`: only an operator does (docs/deploys.md).
       */
      becomeCurrent: oneOf(env, 'WORKER_BECOME_CURRENT', ['if-none', 'never'] as const, 'if-none'),
      /**
       * A worker that cannot reach PostgreSQL for this long leaves (exit code 75) so that Temporal
       * hands its imports to workers that can; its supervisor starts it again (db/watchdog.ts). 0: never.
       */
      dbUnreachableExitMs: int(env, 'WORKER_DB_UNREACHABLE_EXIT_MS', 20_000, 0, 3_600_000),
    },
    eagerStart: {
      /**
       * The API process hosts a worker of the task queue (the worker processes' code and build) and
       * starts imports through its connection with eager start: the first workflow task comes back
       * with the start and runs in the API process, one frontend request and a task-queue round
       * trip fewer per import (docs/operations.md "Eager start").
       */
      enabled: bool(env, 'API_EAGER_START', false),
      /**
       * Workflow-task slots of that worker. An import it runs holds one from its start to its end
       * (its steps are local activities of that task): with fewer free slots than imports in flight,
       * starts fall back to the task queue (counted in data_import_eager_starts_total).
       */
      workflowTasks: int(env, 'API_EAGER_WORKFLOW_TASKS', 100, 1, 10_000),
    },
    email: {
      /** The mail relay (smtp:// or smtps://, credentials in the URL); `npm run up` starts a local inbox when unset. */
      smtpUrl: url(env, 'SMTP_URL', 'smtp://127.0.0.1:1025', ['smtp:', 'smtps:']),
      /** Refuse to send unless the relay upgrades the connection with STARTTLS (smtp:// URLs). */
      smtpRequireTls: bool(env, 'SMTP_REQUIRE_TLS', false),
      /** Check the relay's certificate (turn off only for a relay with a self-signed certificate). */
      smtpTlsRejectUnauthorized: bool(env, 'SMTP_TLS_REJECT_UNAUTHORIZED', true),
      /** Connection, greeting and socket timeout of one SMTP conversation. */
      smtpTimeoutMs: int(env, 'SMTP_TIMEOUT_MS', 30_000, 1000, 600_000),
      /** Per-supplier template overrides: <dir>/<SUPPLIER>/<template>/{subject,html,text}.hbs. */
      templatesDir: str(env, 'EMAIL_TEMPLATES_DIR', 'email-templates'),
    },
    auth: {
      signingKey: signingKey ?? 'development-only-signing-key-do-not-use-in-production',
      tokenTtlSeconds: int(env, 'AUTH_TOKEN_TTL_SECONDS', 3600, 1),
      refreshTtlSeconds: int(env, 'AUTH_REFRESH_TTL_SECONDS', 7 * 24 * 3600, 60),
      rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 6000, 1),
      /** Default: ten seconds' worth of the per-minute rate may arrive at once. */
      rateLimitBurst: int(env, 'RATE_LIMIT_BURST', Math.max(1, Math.ceil(int(env, 'RATE_LIMIT_PER_MINUTE', 6000, 1) / 6)), 1),
      /** How long an API key's revocation state and its organisation's grant may be reused per replica. */
      grantCacheMs: int(env, 'AUTH_GRANT_CACHE_MS', 1000, 0, 60_000),
    },
    /** The operations page (ops/): its own listener, served by the API process. */
    ops: {
      bind: bindAddress(env, 'OPS_BIND', '127.0.0.1:8001'),
      /** Required beyond loopback; when set, every request needs it (HTTP Basic password or Bearer). */
      token: optStr(env, 'OPS_TOKEN'),
    },
  };
  const ops = config.ops;
  if (ops.bind && !isLoopback(ops.bind.host) && !ops.token) {
    throw new ConfigError('OPS_TOKEN', `must be set when OPS_BIND (${ops.bind.host}) is beyond loopback: the operations page is then reachable from other machines`);
  }
  if (ops.token !== undefined && ops.token.length < 16) throw new ConfigError('OPS_TOKEN', 'must be at least 16 characters');
  if (config.nats.maxAgeMs > 0 && config.nats.duplicateWindowMs > config.nats.maxAgeMs) {
    throw new ConfigError('EVENTS_DUPLICATE_WINDOW_MS', 'must not be longer than EVENTS_MAX_AGE_MS (JetStream refuses such a stream)');
  }
  return deepFreeze(config);
}

export type Config = ReturnType<typeof loadConfig>;

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
