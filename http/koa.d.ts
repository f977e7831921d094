import 'koa';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body, set by the jsonBody middleware. */
    body?: unknown;
  }
}
