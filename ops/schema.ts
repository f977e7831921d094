import { Type, type Static } from '@sinclair/typebox';
import { IMPORT_STATUSES } from '../imports';

/**
 * The JSON the operations page reads, described once: the TypeScript types, the ops listener's
 * OpenAPI document (ops/openapi.ts) and the test's response validation all come from here.
 * No personal data: accounts appear by external account number only, errors by code only.
 */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const Count = Type.Integer({ minimum: 0 });
const Strict = { additionalProperties: false } as const;

const StatusCounts = Type.Record(Type.String(), Count, {
  description: 'Count per status value present (statuses with no rows are left out, except the import statuses, always listed).',
});

export const SummarySchema = Type.Object(
  {
    generated_at: DateTime,
    import_supplier: Nullable(Type.String({ description: 'The supplier asked for; null = all suppliers.' })),
    suppliers: Type.Array(Type.String(), { description: 'Every import supplier code (for the selector).' }),
    hours: Type.Integer({ minimum: 1, maximum: 72, description: 'Width of the time series.' }),
    imports: Type.Object(
      {
        total: Count,
        by_status: Type.Object(Object.fromEntries(IMPORT_STATUSES.map((s) => [s, Count])) as Record<(typeof IMPORT_STATUSES)[number], typeof Count>, Strict),
        processed_share: Type.Number({ minimum: 0, maximum: 1, description: 'PROCESSED ÷ total (0 when there are none).' }),
      },
      Strict,
    ),
    rate: Type.Object(
      {
        window_minutes: Type.Integer({ description: 'The rate is the average over this many last minutes.' }),
        processed_per_minute: Type.Number({ minimum: 0 }),
        remaining: Type.Integer({ minimum: 0, description: 'PENDING + IN_PROGRESS.' }),
        eta_seconds: Nullable(Type.Number({ minimum: 0, description: 'remaining ÷ rate; null when the rate is 0.' })),
        eta_at: Nullable(DateTime),
      },
      Strict,
    ),
    processed_per_minute: Type.Array(Type.Object({ minute: DateTime, processed: Count }, Strict), {
      description: 'Imports that became PROCESSED, per minute of the last `hours`; minutes with none are left out.',
    }),
    latency: Type.Object(
      {
        bin_minutes: Type.Integer({ minimum: 1 }),
        points: Type.Array(
          Type.Object(
            {
              at: DateTime,
              processed: Count,
              p50_ms: Type.Number({ minimum: 0 }),
              p95_ms: Type.Number({ minimum: 0 }),
            },
            Strict,
          ),
          { description: 'Run start (create) → PROCESSED latency of the imports PROCESSED in each bin, estimated from a histogram.' },
        ),
      },
      Strict,
    ),
    errors: Type.Array(Type.Object({ code: Type.String(), count: Count }, Strict), {
      description: 'Error codes of ERRORED and DRY_RUN_ERRORED imports, most frequent first (at most 20).',
    }),
    registrations: StatusCounts,
    emails: StatusCounts,
    outbox: Type.Object(
      {
        backlog: Count,
        oldest_age_seconds: Type.Number({ minimum: 0, description: 'Relay lag: age of the oldest unpublished event (0 when none).' }),
      },
      Strict,
    ),
    set_aside: Type.Object(
      {
        digest: Count,
        outbox: Type.Integer({ minimum: 0, description: 'Events the relay set aside; each holds the later events of its account (published once it is retried).' }),
        sweeper: Type.Integer({ minimum: 0, description: 'Stored imports whose workflow the sweeper could not start.' }),
        email: Type.Integer({ minimum: 0, description: 'Customer e-mails the sender could not handle (FAILED; sent again once retried and resent).' }),
        retention: Type.Integer({ minimum: 0, description: 'Batches retention could not prune (their rows are left alone until retried).' }),
      },
      {
        ...Strict,
        description:
          'Items of the queues the workers share set aside after their last attempt, by queue (all suppliers): named by `data-import set-aside list` (docs/operations.md "Set-aside queue items").',
      },
    ),
    temporal: Type.Object({ ui_url: Type.String(), namespace: Type.String() }, Strict),
  },
  { ...Strict, $id: 'OpsSummary' },
);
export type Summary = Static<typeof SummarySchema>;

export const MAX_TRANCHE_NUMBERS = 100_000;

export const TrancheRequestSchema = Type.Object(
  {
    import_supplier: Type.String({ minLength: 1, maxLength: 64 }),
    external_account_numbers: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: MAX_TRANCHE_NUMBERS }),
  },
  { ...Strict, $id: 'OpsTrancheRequest', description: "The account numbers of a tranche's book (the page reads them from the book the operator picks; nothing is stored)." },
);

export const TrancheSchema = Type.Object(
  {
    import_supplier: Type.String(),
    accounts: Type.Integer({ minimum: 0, description: 'Distinct account numbers of the tranche.' }),
    by_status: StatusCounts,
    not_started: Type.Integer({ minimum: 0, description: 'Numbers of the tranche with no import process yet.' }),
    processed_share: Type.Number({ minimum: 0, maximum: 1, description: 'PROCESSED ÷ accounts (0 when there are none).' }),
    remaining: Type.Integer({ minimum: 0, description: 'Not started, PENDING or IN_PROGRESS.' }),
  },
  { ...Strict, $id: 'OpsTranche', description: "The progress of one tranche (a book's accounts), beside the supplier's totals of /api/summary (issue 40)." },
);
export type Tranche = Static<typeof TrancheSchema>;

const ImportLinks = {
  import_supplier: Type.String(),
  external_account_number: Type.String(),
  workflow_id: Type.String(),
  record_url: Type.String({ description: "This listener's view of the status record (`/api/imports/<supplier>/<external>`)." }),
  api_status_path: Type.String({ description: 'The status operation of the data-import API (needs a token).' }),
  temporal_url: Type.String({ description: 'The workflow in the Temporal Web UI.' }),
};

export const AffectedImportsSchema = Type.Object(
  {
    code: Type.String(),
    import_supplier: Nullable(Type.String()),
    items: Type.Array(Type.Object({ ...ImportLinks, status: Type.String(), modified_at: DateTime }, Strict)),
    next: Nullable(Type.String({ description: 'Pass as `after` for the next page; null on the last page.' })),
  },
  { ...Strict, $id: 'OpsAffectedImports' },
);
export type AffectedImports = Static<typeof AffectedImportsSchema>;

const ErrorObject = Type.Object({ code: Type.String(), domain: Type.String() }, Strict);

export const ImportRecordSchema = Type.Object(
  {
    ...ImportLinks,
    status: Type.String(),
    run: Type.Integer(),
    is_dry_run: Type.Boolean(),
    kraken_identifier: Nullable(Type.String()),
    current_step: Nullable(Type.String()),
    created_at: Type.String(),
    modified_at: Type.String(),
    latest_event: Type.Object({ event: Type.String(), occurred_at: Type.String(), error_code: Nullable(Type.String()) }, Strict),
    latest_error: Nullable(ErrorObject),
  },
  {
    ...Strict,
    $id: 'OpsImportRecord',
    description: "The status record without the error's `detail`, which may quote payload values (personal data): the API and the Temporal UI show it.",
  },
);
export type ImportRecord = Static<typeof ImportRecordSchema>;

const BuildSchema = Type.Object(
  {
    build_id: Type.String(),
    status: Type.String({ description: 'CURRENT, RAMPING, DRAINING (no new imports, open ones finish here), DRAINED, INACTIVE or CREATED, as Temporal reports it.' }),
    workers: Count,
    open_imports: Type.Integer({ minimum: 0, description: 'Open import workflows on this build (pinned to it).' }),
    open_workflows: Type.Integer({ minimum: 0, description: 'Open workflows of every type of the service on this build.' }),
    created_at: Nullable(DateTime),
    current_since: Nullable(DateTime),
    ramping_since: Nullable(DateTime),
    deactivated_at: Nullable(DateTime),
  },
  Strict,
);

export const BuildsSchema = Type.Object(
  {
    deployment: Type.String({ description: 'The worker deployment (WORKER_DEPLOYMENT_NAME).' }),
    namespace: Type.String(),
    task_queue: Type.String(),
    current_build_id: Nullable(Type.String({ description: 'Where new imports start; null before any worker has started.' })),
    ramping: Nullable(Type.Object({ build_id: Type.String(), percentage: Type.Number({ minimum: 0, maximum: 100 }) }, Strict)),
    routing_updating: Type.Boolean({ description: 'A change of the current or ramping build is still reaching the task queue.' }),
    builds: Type.Array(BuildSchema, { description: 'Every build of the deployment, newest first.' }),
    unassigned_open_imports: Type.Integer({ minimum: 0, description: 'Open imports no build has taken yet.' }),
    open_imports: Type.Integer({ minimum: 0 }),
    temporal_url: Type.String({ description: 'The deployment in the Temporal Web UI.' }),
  },
  { ...Strict, $id: 'OpsBuilds', description: 'Which builds of the worker run imports (docs/deploys.md): read from Temporal at each request.' },
);
export type Builds = Static<typeof BuildsSchema>;

export const OpsErrorSchema = Type.Object(
  { detail: Type.String(), code: Type.String() },
  {
    ...Strict,
    $id: 'OpsError',
    description:
      'Every error but a 400 of bad input (QueryValidationFailed, ParseError: the API\'s shapes): not_authenticated / authentication_failed (401), not_found (404), method_not_allowed (405), payload_too_large (413), unsupported_media_type (415), internal_error (500), service_unavailable (503: Temporal does not answer, /api/builds only).',
  },
);
