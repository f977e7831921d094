import { Type } from '@sinclair/typebox';
import { ajv } from './ajv';
import { translateAjvErrors } from './errors';
import { IssueList } from './issues';

/**
 * The envelope form of the request body (docs/spec/DESIGN.md, "Request body forms"):
 * `{payload: Account, task_params: {is_dry_run, schedule_window_start, schedule_window_end}}`.
 * An Account has no field `payload`, so a body with one is an envelope.
 *
 * Attrs: envelope-level errors use paths from the envelope (`task_params.schedule_window_start`,
 * an unknown envelope field by its name); errors inside the Account keep paths relative to the
 * Account (`customers.0.email`, not `payload.customers.0.email`), so integrators see the same
 * attrs whichever form they send.
 */

export interface TaskParams {
  isDryRun: boolean;
  scheduleWindowStart: Date;
  scheduleWindowEnd: Date;
}

const ID_PREFIX = 'https://schemas.data-import/account/';
const DAY_MS = 24 * 60 * 60 * 1000;
/** The longest schedule window ahead of now, and the default window length. */
export const MAX_WINDOW_AHEAD_MS = 4 * DAY_MS;
/** Clock skew tolerated before a start counts as "in the past" (the caller's "now" is ours a moment later). */
export const START_GRACE_MS = 60 * 1000;

export const TaskParamsSchema = Type.Object(
  {
    is_dry_run: Type.Optional(Type.Boolean()),
    schedule_window_start: Type.Optional(Type.String({ format: 'date-time' })),
    schedule_window_end: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { $id: `${ID_PREFIX}TaskParams.json`, additionalProperties: false },
);

export const EnvelopeSchema = Type.Object(
  {
    // Validated separately against AccountSchema, so that its attrs stay relative to the Account.
    payload: Type.Unknown(),
    task_params: Type.Optional(TaskParamsSchema),
  },
  { $id: `${ID_PREFIX}Envelope.json`, additionalProperties: false },
);

const validateEnvelope = ajv.compile(EnvelopeSchema);

export function isEnvelope(body: Record<string, unknown>): boolean {
  return Object.prototype.hasOwnProperty.call(body, 'payload');
}

export function defaultTaskParams(now: Date): TaskParams {
  return { isDryRun: false, scheduleWindowStart: now, scheduleWindowEnd: new Date(now.getTime() + MAX_WINDOW_AHEAD_MS) };
}

/**
 * Reads the envelope's task params, adding shape and window errors to `errors`.
 * Defaults: start = now, end = start + 4 days. The "too far" rule applies to a supplied end only:
 * a default end is never an error of the caller's.
 */
export function readTaskParams(envelope: Record<string, unknown>, now: Date, errors: IssueList): TaskParams {
  const params = defaultTaskParams(now);
  if (!validateEnvelope(envelope)) {
    translateAjvErrors(validateEnvelope.errors ?? [], envelope, errors);
    return params;
  }
  const raw = (envelope.task_params ?? {}) as { is_dry_run?: boolean; schedule_window_start?: string; schedule_window_end?: string };
  params.isDryRun = raw.is_dry_run ?? false;
  if (raw.schedule_window_start !== undefined) {
    params.scheduleWindowStart = new Date(raw.schedule_window_start);
    if (params.scheduleWindowStart.getTime() < now.getTime() - START_GRACE_MS) {
      errors.add('schedule_window_start_in_past', 'task_params.schedule_window_start', 'The schedule window starts in the past.');
    }
  }
  if (raw.schedule_window_end !== undefined) {
    params.scheduleWindowEnd = new Date(raw.schedule_window_end);
    if (params.scheduleWindowEnd.getTime() > now.getTime() + MAX_WINDOW_AHEAD_MS) {
      errors.add('schedule_window_end_too_far_in_future', 'task_params.schedule_window_end', 'The schedule window ends more than 4 days from now.');
    }
  } else {
    params.scheduleWindowEnd = new Date(params.scheduleWindowStart.getTime() + MAX_WINDOW_AHEAD_MS);
  }
  if (params.scheduleWindowStart.getTime() >= params.scheduleWindowEnd.getTime()) {
    errors.add('schedule_window_start__after_end', 'task_params.schedule_window_start', 'The schedule window must start before it ends.');
  }
  return params;
}
