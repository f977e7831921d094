import type { Middleware } from 'koa';
import { HttpError } from '../errors';

/**
 * Answers 503 request_timeout when a request takes longer than `ms`. The work below may still
 * finish (a create that commits after the timeout is not lost: the status operation shows it).
 */
export function requestTimeout(ms: number): Middleware {
  return async (ctx, next) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new HttpError('request_timeout', `The request took longer than ${ms} ms.`)), ms);
    });
    try {
      await Promise.race([next(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
}
