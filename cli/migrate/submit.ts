/**
 * The answers of `data-import migrate`'s requests about one account, turned into its status in the
 * state: a validate, a create, a v1 stage or process (docs/bulk-migration.md, "data-import
 * migrate"), and a status answer (a resumed account's, or the follower's).
 */
import { errorCode, errorDetail, type ApiClient, type ApiResponse } from '../shared/api';
import type { InputRecord } from '../shared/input';
import type { FollowItem } from './follow';
import type { MigrationState } from './state';
import { API_STATUSES, TERMINAL_API_STATUSES, type AccountStatus, type ApiStatus, type ErrorItem, type MigrationMode, type MigrationOptions } from './types';

/** A failure of the run itself (not of one account): bad credentials, an API that wants them. */
export class MigrationError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

type AccountInput = Extract<InputRecord, { kind: 'account' }>;

function isApiStatus(s: unknown): s is ApiStatus {
  return typeof s === 'string' && (API_STATUSES as readonly string[]).includes(s);
}

function validationErrors(body: unknown): ErrorItem[] {
  const errors = (body as { errors?: unknown })?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.map((e: { code?: unknown; attr?: unknown; detail?: unknown }) => ({
    code: String(e.code ?? ''),
    attr: String(e.attr ?? ''),
    detail: String(e.detail ?? ''),
  }));
}

/** What the submitter needs of the run. */
export interface SubmitContext {
  api: Pick<ApiClient, 'validate' | 'create' | 'stage' | 'process'>;
  state: MigrationState;
  mode: MigrationMode;
  opts: Pick<MigrationOptions, 'apiKey' | 'dryRunTasks'>;
  /** Counts an account's final status. */
  final: (status: AccountStatus) => void;
  /** Follows an account the API took to its final status. */
  follow: (item: FollowItem) => void;
  /** Latencies from an accepted create to PROCESSED, milliseconds: added to here. */
  latencies: number[];
}

export class Submitter {
  constructor(private readonly ctx: SubmitContext) {}

  /** A failure of one account: FAILED with this error (a re-run retries it). */
  fail(rec: AccountInput, code: string, detail: string): void {
    this.ctx.state.set(rec.external, rec.supplier, 'FAILED', { errors: [{ code, attr: 'non_field_errors', detail }] });
    this.ctx.final('FAILED');
  }

  /** A 401 stops the run: a MigrationError. */
  requireAuth(res: ApiResponse): void {
    if (res.status === 401) {
      throw new MigrationError(
        this.ctx.opts.apiKey ? `the API refused the token (${errorCode(res.body) ?? 401})` : 'the API requires authentication: pass --api-key or set DATA_IMPORT_API_KEY',
        errorCode(res.body) ?? 'not_authenticated',
      );
    }
  }

  /** Records a status answer; true when it is final. */
  applyStatus(supplier: string, external: string, body: unknown, createdAt?: number): boolean {
    const { state } = this.ctx;
    const record = body as { status?: unknown; kraken_identifier?: string | null; latest_error?: { code?: string; detail?: string } | null };
    if (!isApiStatus(record.status)) return false;
    const status = record.status;
    if (!(TERMINAL_API_STATUSES as readonly string[]).includes(status)) {
      if (state.get(external)?.status !== status) state.set(external, supplier, status);
      return false;
    }
    const errors = record.latest_error
      ? [{ code: String(record.latest_error.code ?? ''), attr: 'non_field_errors', detail: String(record.latest_error.detail ?? '') }]
      : undefined;
    state.set(external, supplier, status, { kraken_identifier: record.kraken_identifier ?? null, errors });
    if (status === 'PROCESSED' && createdAt !== undefined) this.ctx.latencies.push(Date.now() - createdAt);
    this.ctx.final(status);
    return true;
  }

  /** An account with validation errors: VALIDATION_FAILED, the errors of the answer in the report. */
  private validationFailed(rec: AccountInput, body: unknown): void {
    this.ctx.state.set(rec.external, rec.supplier, 'VALIDATION_FAILED', { errors: validationErrors(body) });
    this.ctx.final('VALIDATION_FAILED');
  }

  /** POST validate; true when valid. */
  async validate(rec: AccountInput): Promise<boolean> {
    const res = await this.ctx.api.validate(rec.account);
    this.requireAuth(res);
    if (res.status === 200) {
      if (this.ctx.mode === 'validate-only') {
        this.ctx.state.set(rec.external, rec.supplier, 'VALID');
        this.ctx.final('VALID');
      }
      return true;
    }
    if (res.status === 400 && errorCode(res.body) === 'account_failed_validation') {
      this.validationFailed(rec, res.body);
    } else {
      this.fail(rec, errorCode(res.body) ?? `http_${res.status}`, errorDetail(res.body));
    }
    return false;
  }

  async create(rec: AccountInput): Promise<void> {
    const body = this.ctx.opts.dryRunTasks ? { payload: rec.account, task_params: { is_dry_run: true } } : rec.account;
    const res = await this.ctx.api.create(body);
    this.requireAuth(res);
    const code = errorCode(res.body);
    if (this.afterSubmit(rec, res, code)) return;
    if (res.status === 400 && code === 'import_process_failed_validation') {
      // The create answer says only "invalid": the validate operation gives the errors.
      if (await this.validate(rec)) this.fail(rec, code, 'create reported a validation failure that validate did not reproduce');
      return;
    }
    this.fail(rec, code ?? `http_${res.status}`, errorDetail(res.body));
  }

  /** v1 create-or-update (--stage): STAGED, or why not. */
  async stage(rec: AccountInput): Promise<void> {
    const res = await this.ctx.api.stage(rec.account);
    this.requireAuth(res);
    const code = errorCode(res.body);
    if (res.status === 200 || res.status === 201) {
      this.ctx.state.set(rec.external, rec.supplier, 'STAGED');
      this.ctx.final('STAGED');
      return;
    }
    if (res.status === 400 && code === 'account_failed_validation') return this.validationFailed(rec, res.body);
    if (this.afterSubmit(rec, res, code)) return;
    this.fail(rec, code ?? `http_${res.status}`, errorDetail(res.body));
  }

  /** v1 process of a staged account (--process-staged): followed as a create is. */
  async processStaged(rec: AccountInput): Promise<void> {
    const res = await this.ctx.api.process(rec.supplier, rec.external, this.ctx.opts.dryRunTasks === true);
    this.requireAuth(res);
    const code = errorCode(res.body);
    // The v1 answer lists the errors: the staged data no longer passes today's rules.
    if (res.status === 400 && code === 'import_process_failed_validation') return this.validationFailed(rec, res.body);
    if (this.afterSubmit(rec, res, code)) return;
    // import_process_does_not_exist: never staged (run with --stage first).
    this.fail(rec, code ?? `http_${res.status}`, errorDetail(res.body));
  }

  /**
   * The answers a create, a stage and a process share: accepted (201, followed; a stage's 201 is
   * handled before), a run already under way (409, followed), already imported (400: PROCESSED,
   * the account number from the v2 body's account_id or the v1 body's kraken_account_number).
   */
  private afterSubmit(rec: AccountInput, res: ApiResponse, code: string | undefined): boolean {
    const { state } = this.ctx;
    if (res.status === 201 || (res.status === 409 && code === 'import_process_in_progress')) {
      state.set(rec.external, rec.supplier, 'SUBMITTED');
      this.ctx.follow({ supplier: rec.supplier, external: rec.external, createdAt: res.status === 201 ? Date.now() : undefined });
      return true;
    }
    if (res.status === 400 && code === 'account_import_process_already_imported') {
      const b = res.body as { account_id?: string; kraken_account_number?: string };
      state.set(rec.external, rec.supplier, 'PROCESSED', { kraken_identifier: b.account_id ?? b.kraken_account_number ?? null });
      this.ctx.final('PROCESSED');
      return true;
    }
    return false;
  }
}
