import { errorCode, errorDetail, type ApiResponse } from '../shared/api';

/** A failure of the reconciliation itself (a bad option, an answer it cannot read), with its code. */
export class ReconcileError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** An answer the run cannot go on from: `<what> answered <status> <code>: <detail>`. */
export function unexpected(what: string, res: ApiResponse): ReconcileError {
  const code = errorCode(res.body) ?? `http_${res.status}`;
  return new ReconcileError(`${what} answered ${res.status} ${code}: ${errorDetail(res.body)}`.trim(), code);
}
