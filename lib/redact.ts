/**
 * Credentials out of what the service prints (issue 39): a URL of DATABASE_URL, NATS_URL or
 * SMTP_URL may carry a password (postgres://user:password@host/db) or a token
 * (nats://token@host:4222), and error messages and log lines quote URLs.
 */

/** The URL with its password (and a NATS token, the user part of nats://token@host) as `***`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    else if (u.username && ['nats:', 'tls:', 'ws:', 'wss:'].includes(u.protocol)) u.username = '***';
    return u.toString();
  } catch {
    return redactUrls(url);
  }
}

// scheme://user:password@ (or scheme://token@ for NATS) inside any text, parseable URL or not.
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@:'"?#]*)(:[^\s/@'"?#]*)?@/gi;

/** Every `scheme://user:password@` in `text` as `scheme://user:***@` (`nats://token@` as `nats://***@`). */
export function redactUrls(text: string): string {
  return text.replace(USERINFO, (_m, scheme: string, user: string, password: string | undefined) => {
    if (password !== undefined) return `${scheme}${user}:***@`;
    return /^(nats|tls|wss?):\/\/$/i.test(scheme) ? `${scheme}***@` : `${scheme}${user}@`;
  });
}
