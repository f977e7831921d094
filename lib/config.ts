// long-file (437 lines): every environment variable read and validated in one place (docs/configuration.md lists them).
import crypto from 'node:crypto';
import fs from 'node:fs';
import { BUILD_ID_PATTERN } from './buildInfo';
import { redactUrls } from './redact';

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
    // A message quoting a value (a URL with its password) never carries the credentials.
    super(`${variable}: ${redactUrls(message)}`);
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

/** The values a boolean setting reads as true. */
export const TRUE_VALUE = /^(1|true|yes|on)$/i;

function bool(env: Env, name: string, fallback: boolean): boolean {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (TRUE_VALUE.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  throw new ConfigError(name, `expected true or false, got ${JSON.stringify(v)}`);
}

/** A file the process must be able to read (a certificate, a key, a credentials file): checked at start. */
function readableFile(env: Env, name: string): string | undefined {
  const v = optStr(env, name);
  if (v === undefined) return undefined;
  try {
    fs.accessSync(v, fs.constants.R_OK);
  } catch (err) {
    throw new ConfigError(name, `cannot read ${JSON.stringify(v)} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return v;
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
/**
 * The JSON bounds (docs/security.md "What a body may parse to"): the largest generated accounts
 * reach 9,662 values, depth 11 (12 in the envelope) and 65 keys in one object, at ~21 bytes per
 * value; the defaults leave room for accounts far past those and for free-form values.
 */
function jsonBoundsOf(env: Env) {
  return {
    maxValues: int(env, 'JSON_MAX_VALUES', 500_000, 1000),
    maxDepth: int(env, 'JSON_MAX_DEPTH', 64, 16, 10_000),
    maxKeys: int(env, 'JSON_MAX_KEYS', 2_000, 100),
    /** Values one body may carry per byte at most (one per this many bytes, plus 10,000): the heap a body takes stays proportional to its bytes, which is what the body budget counts. */
    minBytesPerValue: int(env, 'JSON_MIN_BYTES_PER_VALUE', 8, 1, 1000),
  };
}

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

/**
 * NATS_URL (comma-separated servers) and how the service proves itself to NATS: a credentials file
 * (JWT and nkey seed, NATS_CREDS_FILE), a user and password (NATS_USER/NATS_PASSWORD, or in the URL:
 * nats://user:password@host:4222), or a token (NATS_TOKEN, or nats://token@host:4222) — one of
 * them; and TLS (NATS_TLS, a tls:// URL, or any of NATS_TLS_CA/CERT/KEY: then a server that offers
 * no TLS is refused). events/nats.ts natsConnectionOptions turns them into the client's options.
 */
export function natsSettings(env: Env) {
  const url = str(env, 'NATS_URL', 'nats://127.0.0.1:4222');
  const servers: string[] = [];
  const inUrl = new Set<string>();
  let urlUser: string | undefined;
  let urlPassword: string | undefined;
  let urlTls = false;
  for (const raw of url.split(',').map((x) => x.trim()).filter(Boolean)) {
    let u: URL;
    try {
      u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `nats://${raw}`);
    } catch {
      throw new ConfigError('NATS_URL', `expected nats://[user:password@]host:port (comma-separated), got ${JSON.stringify(raw)}`);
    }
    if (!['nats:', 'tls:'].includes(u.protocol)) throw new ConfigError('NATS_URL', `expected nats:// or tls:// servers, got ${JSON.stringify(u.protocol)}`);
    if (u.protocol === 'tls:') urlTls = true;
    if (u.username) {
      const user = decodeURIComponent(u.username);
      const password = u.password ? decodeURIComponent(u.password) : undefined;
      inUrl.add(`${user}\u0000${password ?? ''}`);
      urlUser = user;
      urlPassword = password;
    }
    // The servers as the client dials them, without the credentials (they never reach a log).
    servers.push(`${u.hostname.includes(':') ? `[${u.hostname}]` : u.hostname}:${u.port || '4222'}`);
  }
  if (servers.length === 0) throw new ConfigError('NATS_URL', 'names no server');
  if (inUrl.size > 1) throw new ConfigError('NATS_URL', 'its servers carry different credentials: give one user (or token) for all');
  const user = optStr(env, 'NATS_USER');
  const password = optStr(env, 'NATS_PASSWORD');
  const token = optStr(env, 'NATS_TOKEN');
  const credsFile = readableFile(env, 'NATS_CREDS_FILE');
  if ((user === undefined) !== (password === undefined)) throw new ConfigError(user === undefined ? 'NATS_USER' : 'NATS_PASSWORD', 'NATS_USER and NATS_PASSWORD go together');
  if (urlUser !== undefined && (user !== undefined || token !== undefined)) {
    throw new ConfigError('NATS_URL', 'carries credentials and NATS_USER or NATS_TOKEN is set too: give them in one place');
  }
  // nats://user:password@host is a user; nats://token@host (no password) a token, as the NATS clients read it.
  const auth = {
    user: user ?? (urlPassword !== undefined ? urlUser : undefined),
    password: password ?? (urlPassword !== undefined ? urlPassword : undefined),
    token: token ?? (urlUser !== undefined && urlPassword === undefined ? urlUser : undefined),
    credsFile,
  };
  const ways = [auth.user !== undefined, auth.token !== undefined, credsFile !== undefined].filter(Boolean).length;
  if (ways > 1) throw new ConfigError(credsFile ? 'NATS_CREDS_FILE' : 'NATS_TOKEN', 'give one way of authenticating to NATS: a credentials file, a user and password, or a token');
  const tls = {
    ca: readableFile(env, 'NATS_TLS_CA'),
    cert: readableFile(env, 'NATS_TLS_CERT'),
    key: readableFile(env, 'NATS_TLS_KEY'),
  };
  if ((tls.cert === undefined) !== (tls.key === undefined)) throw new ConfigError(tls.cert === undefined ? 'NATS_TLS_CERT' : 'NATS_TLS_KEY', 'NATS_TLS_CERT and NATS_TLS_KEY go together (the client certificate and its key)');
  const tlsRequired = bool(env, 'NATS_TLS', false) || urlTls || Object.values(tls).some((v) => v !== undefined);
  // The subject prefix of this connection's reply inboxes (JetStream acks, consumer deliveries): a
  // user whose permissions allow only its own `_INBOX_<user>.>` reads nobody else's replies.
  const inboxPrefix = str(env, 'NATS_INBOX_PREFIX', '_INBOX');
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(inboxPrefix)) throw new ConfigError('NATS_INBOX_PREFIX', `expected subject tokens without wildcards, got ${JSON.stringify(inboxPrefix)}`);
  return { url, servers, auth, inboxPrefix, tls: { required: tlsRequired, ...tls } };
}

/**
 * TLS to Temporal: TEMPORAL_TLS (the server's certificate checked against the system's CAs), or
 * mutual TLS with TEMPORAL_TLS_CA (the CA of the server's certificate), TEMPORAL_TLS_CERT and
 * TEMPORAL_TLS_KEY (this process's client certificate and key) and TEMPORAL_TLS_SERVER_NAME (the
 * name to check the server's certificate against, when not the host of TEMPORAL_ADDRESS). Any of
 * them turns TLS on. lib/temporal.ts temporalConnectionOptions reads the files.
 */
function apiTls(env: Env): { cert: string; key: string } | null {
  const cert = readableFile(env, 'API_TLS_CERT');
  const key = readableFile(env, 'API_TLS_KEY');
  if ((cert === undefined) !== (key === undefined)) throw new ConfigError(cert === undefined ? 'API_TLS_CERT' : 'API_TLS_KEY', 'API_TLS_CERT and API_TLS_KEY go together');
  return cert && key ? { cert, key } : null;
}

function temporalTls(env: Env) {
  const ca = readableFile(env, 'TEMPORAL_TLS_CA');
  const cert = readableFile(env, 'TEMPORAL_TLS_CERT');
  const key = readableFile(env, 'TEMPORAL_TLS_KEY');
  const serverName = optStr(env, 'TEMPORAL_TLS_SERVER_NAME');
  if ((cert === undefined) !== (key === undefined)) throw new ConfigError(cert === undefined ? 'TEMPORAL_TLS_CERT' : 'TEMPORAL_TLS_KEY', 'TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together (the client certificate and its key)');
  const on = bool(env, 'TEMPORAL_TLS', false) || [ca, cert, serverName].some((v) => v !== undefined);
  return on ? { ca, cert, key, serverName } : null;
}

/** The message of a start without AUTH_SIGNING_KEY (the API, or anything that issues or checks tokens). */
export const SIGNING_KEY_REQUIRED =
  'must be set (32 or more characters, e.g. `openssl rand -base64 48`) to start the API: tokens are signed with it. ' +
  '`npm run up` generates one per install (data/auth-signing-key); every other start passes its own (docs/authentication.md, "Signing key")';

/**
 * SHA-256 of signing keys that were published (the development key earlier versions of this file
 * used when AUTH_SIGNING_KEY was unset): anyone can sign tokens with them, so they are refused.
 */
const PUBLISHED_SIGNING_KEYS = new Set(['ee75539c671192963e25ca5f036a84c6acbf57c97dc8f0eeb5ebb52b443519a7']);

/**
 * AUTH_SIGNING_KEY: optional here (the worker and the CLI sign no token), required by whatever
 * issues or checks tokens (requireApiSettings, auth/tokens.ts createTokenService). When set: 32+
 * characters and not a published key.
 */
function signingKeyOf(env: Env): string | undefined {
  const v = optStr(env, 'AUTH_SIGNING_KEY');
  if (v === undefined) return undefined;
  if (v.length < 32) throw new ConfigError('AUTH_SIGNING_KEY', `must be at least 32 characters, got ${v.length}`);
  if (PUBLISHED_SIGNING_KEYS.has(crypto.createHash('sha256').update(v).digest('hex'))) {
    throw new ConfigError('AUTH_SIGNING_KEY', 'is the development key earlier versions published in their code: anyone can sign tokens with it; generate your own (`openssl rand -base64 48`)');
  }
  return v;
}

/** The settings only the API needs (api/main.ts, through lib/boot.ts): a start without them stops with exit code 2. */
export function requireApiSettings(config: Pick<Config, 'auth'>): void {
  if (!config.auth.signingKey) throw new ConfigError('AUTH_SIGNING_KEY', SIGNING_KEY_REQUIRED);
}

export function loadConfig(env: Env = process.env) {
  const appEnv = oneOf(env, 'APP_ENV', ['development', 'test', 'production'] as const, 'development');
  const signingKey = signingKeyOf(env);
  if (appEnv === 'production' && !signingKey) throw new ConfigError('AUTH_SIGNING_KEY', `${SIGNING_KEY_REQUIRED} (APP_ENV=production)`);
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
      /** A body read that brings less than 64 KiB in this time is cut off (http/middleware/jsonBody.ts). */
      bodyStallMs: int(env, 'BODY_STALL_MS', 3000, 100, 60_000),
      /** What one JSON body (or a payload read back) may parse to, checked before it is parsed (lib/jsonBounds.ts; docs/security.md gives the measurement). */
      json: jsonBoundsOf(env),
      /** HTTPS instead of HTTP: the certificate (PEM, its chain after it) and key of the listener (API_TLS_CERT, API_TLS_KEY). */
      tls: apiTls(env),
    },
    database: {
      url: url(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/data_import', ['postgres:', 'postgresql:']),
      poolMax: int(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    },
    nats: {
      ...natsSettings(env),
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
      /** A relay leader silent for this long loses the leadership to a standby (events/lease.ts). */
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
      /** null: plain gRPC (a dev server on loopback). */
      tls: temporalTls(env),
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
    email: {
      /** The mail relay (smtp:// or smtps://, credentials in the URL); `npm run up` starts a local inbox when unset. */
      smtpUrl: url(env, 'SMTP_URL', 'smtp://127.0.0.1:1025', ['smtp:', 'smtps:']),
      /**
       * Refuse to send unless the relay upgrades the connection with STARTTLS (smtp:// URLs). On by
       * default; `false` (plain SMTP) only for a relay on loopback (the local sink of `npm run up`, tests).
       */
      smtpRequireTls: bool(env, 'SMTP_REQUIRE_TLS', true),
      /** Check the relay's certificate (turn off only for a relay with a self-signed certificate). */
      smtpTlsRejectUnauthorized: bool(env, 'SMTP_TLS_REJECT_UNAUTHORIZED', true),
      /** The CA the relay's certificate is checked against (PEM), instead of the system's. */
      smtpTlsCa: readableFile(env, 'SMTP_TLS_CA'),
      /** Connection, greeting and socket timeout of one SMTP conversation. */
      smtpTimeoutMs: int(env, 'SMTP_TIMEOUT_MS', 30_000, 1000, 600_000),
      /** Per-supplier template overrides: <dir>/<SUPPLIER>/<template>/{subject,html,text}.hbs. */
      templatesDir: str(env, 'EMAIL_TEMPLATES_DIR', 'email-templates'),
    },
    auth: {
      /** No default: a key written in the code would be everyone's (requireApiSettings). */
      signingKey,
      tokenTtlSeconds: int(env, 'AUTH_TOKEN_TTL_SECONDS', 3600, 1),
      refreshTtlSeconds: int(env, 'AUTH_REFRESH_TTL_SECONDS', 7 * 24 * 3600, 60),
      rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 6000, 1),
      /** Default: ten seconds' worth of the per-minute rate may arrive at once. */
      rateLimitBurst: int(env, 'RATE_LIMIT_BURST', Math.max(1, Math.ceil(int(env, 'RATE_LIMIT_PER_MINUTE', 6000, 1) / 6)), 1),
      /**
       * The token operation (POST /v1/graphql/): per client address, and per API key or refresh
       * token sent in the variables, per replica. Each exchange writes a refresh token row.
       */
      tokenRateLimitPerMinute: int(env, 'AUTH_TOKEN_RATE_LIMIT_PER_MINUTE', 60, 1),
      tokenRateLimitBurst: int(env, 'AUTH_TOKEN_RATE_LIMIT_BURST', 30, 1),
      /**
       * GraphQL introspection and "Did you mean" suggestions on the token endpoint: a map of the
       * schema for whoever asks, so on only where APP_ENV is development (auth/http/token.ts).
       */
      graphqlIntrospection: bool(env, 'GRAPHQL_INTROSPECTION', appEnv === 'development'),
      /** How long an API key's revocation state and its organisation's grant may be reused per replica. */
      grantCacheMs: int(env, 'AUTH_GRANT_CACHE_MS', 1000, 0, 60_000),
    },
    /**
     * GET /metrics on the API port: with a token, only a request bearing it (`Authorization: Bearer`);
     * without one, only a client on loopback that no proxy forwarded (api/health.ts).
     */
    metrics: {
      token: optStr(env, 'METRICS_TOKEN'),
    },
    /** The operations page (ops/): its own listener, served by the API process. */
    ops: {
      bind: bindAddress(env, 'OPS_BIND', '127.0.0.1:8001'),
      /** Required beyond loopback; when set, every request needs it (HTTP Basic password or Bearer). */
      token: optStr(env, 'OPS_TOKEN'),
    },
  };
  const smtp = new URL(config.email.smtpUrl);
  if (!config.email.smtpRequireTls && smtp.protocol === 'smtp:' && !isLoopback(smtp.hostname.replace(/^\[|\]$/g, ''))) {
    throw new ConfigError('SMTP_REQUIRE_TLS', `plain SMTP (false) is allowed only to a relay on loopback; ${smtp.hostname} is not: customer names and addresses would cross the network in clear text (use STARTTLS or smtps://)`);
  }
  const ops = config.ops;
  if (ops.bind && !isLoopback(ops.bind.host) && !ops.token) {
    throw new ConfigError('OPS_TOKEN', `must be set when OPS_BIND (${ops.bind.host}) is beyond loopback: the operations page is then reachable from other machines`);
  }
  if (ops.token !== undefined && ops.token.length < 16) throw new ConfigError('OPS_TOKEN', 'must be at least 16 characters');
  if (config.metrics.token !== undefined && config.metrics.token.length < 16) throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters');
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
