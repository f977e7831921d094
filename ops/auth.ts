import crypto from 'node:crypto';
import type { Middleware } from 'koa';
import { HttpError } from '../http/errors';

/**
 * The operator token of the operations page (OPS_TOKEN). A browser sends it as the password of
 * HTTP Basic authentication (it asks once, then repeats it for the page's own requests; the
 * user name is ignored); a script sends `Authorization: Bearer <token>`. Without a configured
 * token (loopback only, see lib/config.ts) every request passes.
 */
export function opsTokenAuth(token: string | undefined): Middleware {
  if (!token) return (_ctx, next) => next();
  const expected = crypto.createHash('sha256').update(token).digest();
  const matches = (given: string) => crypto.timingSafeEqual(crypto.createHash('sha256').update(given).digest(), expected);
  const challenge = { 'WWW-Authenticate': 'Basic realm="data-import operations", charset="UTF-8"' };
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    if (!header) throw new HttpError('not_authenticated', 'The operations page needs the operator token (OPS_TOKEN).', {}, challenge);
    const m = /^(Basic|Bearer)\s+(\S+)$/i.exec(header);
    let given: string | undefined;
    if (m && m[1]!.toLowerCase() === 'bearer') given = m[2];
    else if (m) {
      const decoded = Buffer.from(m[2]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      given = colon >= 0 ? decoded.slice(colon + 1) : undefined;
    }
    if (given === undefined || !matches(given)) {
      throw new HttpError('authentication_failed', 'Wrong operator token.', {}, challenge);
    }
    await next();
  };
}
