import { setMaxListeners } from 'node:events';
import { Pool } from 'undici';
import { AbortedError, backoffMs, retryAfterMs, sleep } from './backoff';
import { AuthError, TokenSource } from './auth';
import { Availability } from './availability';

/**
 * The operations of the data-import API that a migration uses (validate, create, the status of one
 * account or of many), over one keep-alive connection pool, with this retry policy:
 * - a network error, or 5xx answers (503 request_timeout included) to everything, are an outage
 *   (availability.ts): every request waits while GET /readyz is probed with backoff, and is sent
 *   again once the API answers, without spending its retry bound;
 * - a 5xx while other requests are answered is about this request: retried with exponential
 *   backoff and jitter, at most `maxRetries` times, then returned (the account is FAILED);
 * - a create (or a stage, or a process) is safe to send again because the server answers a repeat
 *   with 409 (in progress) or 400 already-imported, never a second import (run.ts follows both);
 * - 429 waits for Retry-After (or the backoff when absent) and is retried up to MAX_THROTTLED
 *   times, not counted against `maxRetries` (being told to slow down is not a failure);
 * - 401 authentication_failed renews the token once and retries.
 */

/** Where the API is unless told (--api-url). */
export const DEFAULT_API_URL = 'http://127.0.0.1:8000';

export interface ApiResponse {
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/** The request never got an HTTP answer within the retry bound. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly code = 'network_error',
  ) {
    super(message);
  }
}

export interface ApiClientOptions {
  apiUrl: string;
  apiKey?: string;
  connections: number;
  maxRetries: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  signal?: AbortSignal;
  /** Outage bound and log of the run (availability.ts); default: wait for ever, silently. */
  outage?: { timeoutMs: number | null; log: (line: string) => void; onGiveUp: ConstructorParameters<typeof Availability>[0]['onGiveUp'] };
}

export interface ApiCounters {
  create: number;
  validate: number;
  stage: number;
  process: number;
  status: number;
  token: number;
  retries: number;
  throttled: number;
}

const MAX_THROTTLED = 50;
/**
 * Separate outages one request may fail in before it is given up as network_error: only a request
 * that hangs or breaks the connection each time while the API answers its readiness probe gets
 * there (one outage holds every request back until it is over).
 */
const MAX_OUTAGES_PER_REQUEST = 20;
/** Time allowed for one HTTP exchange; the server's own request timeout is shorter. */
const REQUEST_TIMEOUT_MS = 60_000;

export class ApiClient {
  readonly counters: ApiCounters = { create: 0, validate: 0, stage: 0, process: 0, status: 0, token: 0, retries: 0, throttled: 0 };
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly tokens: TokenSource | null;
  private readonly availability: Availability;

  constructor(private readonly opts: ApiClientOptions) {
    // Every request and backoff in flight listens to the run's signal: more than Node's default of
    // 10 with any concurrency (MaxListenersExceededWarning, issue 40).
    if (opts.signal) setMaxListeners(0, opts.signal);
    this.availability = new Availability({
      probe: () => this.probe(),
      // 1 s with the default base of 250 ms; tests with a short base probe sooner.
      probeBaseMs: Math.min(1000, opts.backoffBaseMs * 4),
      probeCapMs: opts.backoffCapMs,
      timeoutMs: opts.outage?.timeoutMs ?? null,
      signal: opts.signal ?? new AbortController().signal,
      log: opts.outage?.log ?? (() => undefined),
      onGiveUp: opts.outage?.onGiveUp ?? (() => undefined),
    });
    const url = new URL(opts.apiUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      connections: opts.connections,
      keepAliveTimeout: 30_000,
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
    this.tokens = opts.apiKey ? new TokenSource(this.pool, `${this.basePath}/v1/graphql/`, opts.apiKey) : null;
  }

  validate(account: unknown): Promise<ApiResponse> {
    this.counters.validate++;
    return this.request('POST', '/v2/data-import/accounts/validate/', account);
  }

  create(body: unknown): Promise<ApiResponse> {
    this.counters.create++;
    return this.request('POST', '/v2/data-import/accounts/', body);
  }

  /** The platform's v1 create-or-update: the account staged (201 first, 200 again), nothing imported. */
  stage(account: unknown): Promise<ApiResponse> {
    this.counters.stage++;
    return this.request('POST', '/v1/data-import/account-import-process/create-or-update/', account);
  }

  /** The platform's v1 process of a staged account: its import started (201), as a create's. */
  process(supplier: string, external: string, dryRun: boolean): Promise<ApiResponse> {
    this.counters.process++;
    return this.request('POST', '/v1/data-import/account-import-process/process/', { import_supplier_code: supplier, external_account_number: external, ...(dryRun ? { dry_run: true } : {}) });
  }

  status(supplier: string, external: string): Promise<ApiResponse> {
    this.counters.status++;
    return this.request('GET', `/v2/data-import/accounts/${encodeURIComponent(supplier)}/${encodeURIComponent(external)}/`);
  }

  /** The bulk status operation: up to 500 accounts of one supplier in one request (counted as one status request). */
  statuses(supplier: string, externals: readonly string[]): Promise<ApiResponse> {
    this.counters.status++;
    return this.request('POST', '/v2/data-import/accounts/statuses/', { import_supplier: supplier, external_account_numbers: externals });
  }

  /** Any other operation, with the same retry, outage and token handling (data-import reconcile's). */
  call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiResponse> {
    return this.request(method, path, body);
  }

  /** The outage under way, for the progress line. */
  outage() {
    return this.availability.current();
  }

  get outages() {
    return { ...this.availability.stats };
  }

  /** GET /readyz: null when the API answers it with anything but a 5xx. */
  private async probe(): Promise<string | null> {
    const r = await this.pool.request({ method: 'GET', path: `${this.basePath}/readyz`, headersTimeout: 10_000, bodyTimeout: 10_000, signal: this.opts.signal });
    await r.body.text();
    return r.statusCode >= 500 ? `readyz answered ${r.statusCode}` : null;
  }

  async close(): Promise<void> {
    this.counters.token = this.tokens?.issued ?? 0;
    await this.pool.close();
  }

  private async request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiResponse> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    let failures = 0;
    let throttled = 0;
    let renewed = false;
    let lost = 0;
    for (;;) {
      if (this.opts.signal?.aborted) throw new AbortedError();
      await this.availability.admit();
      const res = await this.attempt(method, path, payload);
      if (res === null) {
        // Part of an outage: sent again once the API answers.
        if (++lost >= MAX_OUTAGES_PER_REQUEST) throw new TransportError(`${method} ${path}: no answer in ${lost} attempts, each after the API had answered again`);
        this.counters.retries++;
        continue;
      }
      if (res.status === 429 && throttled < MAX_THROTTLED) {
        throttled++;
        this.counters.throttled++;
        await sleep(retryAfterMs(res.headers['retry-after']) ?? backoffMs(throttled, this.opts.backoffBaseMs, this.opts.backoffCapMs), this.opts.signal);
        continue;
      }
      if (res.status >= 500 && failures < this.opts.maxRetries) {
        await this.wait(failures++);
        continue;
      }
      if (res.status === 401 && this.tokens && !renewed) {
        renewed = true;
        await this.tokens.forceRenew();
        continue;
      }
      return res;
    }
  }

  /** One exchange; null when it failed as (part of) an outage. */
  private async attempt(method: 'GET' | 'POST', path: string, payload: string | undefined): Promise<ApiResponse | null> {
    let res: ApiResponse;
    try {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (payload !== undefined) headers['content-type'] = 'application/json';
      if (this.tokens) headers.authorization = await this.tokens.header();
      const r = await this.pool.request({ method, path: this.basePath + path, headers, body: payload, signal: this.opts.signal });
      const text = await r.body.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? null : JSON.parse(text);
      } catch {
        /* a proxy's HTML error page: keep the text */
      }
      res = { status: r.statusCode, body: parsed, headers: r.headers };
    } catch (err) {
      if (this.opts.signal?.aborted) throw new AbortedError();
      if (err instanceof AuthError) throw err;
      // No answer at all: the API (or the way to it) is down. Every transport error is an outage.
      const e = err as NodeJS.ErrnoException;
      this.availability.failed(e.code ?? e.message, 'transport');
      return null;
    }
    if (res.status >= 500) {
      if (this.availability.failed(`HTTP ${res.status}${errorCode(res.body) ? ` ${errorCode(res.body)}` : ''}`, 'http')) return null;
    } else {
      this.availability.answered();
    }
    return res;
  }

  private async wait(attempt: number): Promise<void> {
    this.counters.retries++;
    await sleep(backoffMs(attempt, this.opts.backoffBaseMs, this.opts.backoffCapMs), this.opts.signal);
  }
}

/** `code` of an error body (`{code}`, or the v2 already-imported `{non_field_errors: {code}}`). */
export function errorCode(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as { code?: unknown; non_field_errors?: { code?: unknown } };
  if (typeof b.code === 'string') return b.code;
  if (typeof b.non_field_errors?.code === 'string') return b.non_field_errors.code;
  return undefined;
}

export function errorDetail(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 300);
  if (typeof body !== 'object' || body === null) return '';
  const b = body as { detail?: unknown; non_field_errors?: { detail?: unknown } };
  if (typeof b.detail === 'string') return b.detail;
  if (typeof b.non_field_errors?.detail === 'string') return b.non_field_errors.detail;
  return '';
}
