import type { Dispatcher } from 'undici';

/**
 * Tokens for the REST calls, from the GraphQL mutation `obtainKrakenToken` at
 * `<api-url>/v1/graphql/` (auth/http/token.ts): first with the API key, then with the refresh
 * token (single use: each refresh returns the next one) once 80 % of the token's lifetime has
 * passed. A refresh that fails falls back to the API key. Concurrent callers share one renewal.
 */

const OBTAIN = 'mutation($input: ObtainJSONWebTokenInput!) { obtainKrakenToken(input: $input) { token refreshToken refreshExpiresIn payload } }';

/** Share of a token's lifetime after which it is renewed. */
const RENEW_AT = 0.8;
/** Lifetime assumed when neither `payload.exp` nor the token itself says (renew early, not late). */
const UNKNOWN_LIFETIME_MS = 5 * 60_000;

export class AuthError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

interface Issued {
  token: string;
  refreshToken?: string;
  refreshExpiresIn?: number;
  payload?: { exp?: number; iat?: number } | null;
}

export class TokenSource {
  private token: string | null = null;
  private refreshToken: string | null = null;
  private refreshExpiresAt = 0;
  private renewAt = 0;
  private renewing: Promise<void> | null = null;
  /** Number of successful mutations (obtain and refresh). */
  issued = 0;

  constructor(
    private readonly client: Dispatcher,
    private readonly graphqlPath: string,
    private readonly apiKey: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The Authorization header value, renewing the token first when it is due. */
  async header(): Promise<string> {
    if (this.token === null || this.now() >= this.renewAt) await this.renew();
    return `Token ${this.token}`;
  }

  /** After a 401 authentication_failed: renew now, whatever the clock says. */
  async forceRenew(): Promise<void> {
    this.renewAt = 0;
    await this.renew();
  }

  private renew(): Promise<void> {
    this.renewing ??= this.doRenew().finally(() => {
      this.renewing = null;
    });
    return this.renewing;
  }

  private async doRenew(): Promise<void> {
    const now = this.now();
    if (this.refreshToken !== null && now < this.refreshExpiresAt) {
      try {
        return this.accept(await this.mutate({ refreshToken: this.refreshToken }));
      } catch {
        // A refresh token is single-use and may have been spent or revoked: start again from the key.
      }
    }
    this.accept(await this.mutate({ APIKey: this.apiKey }));
  }

  private accept(t: Issued): void {
    const now = this.now();
    this.token = t.token;
    this.refreshToken = t.refreshToken ?? null;
    // refreshExpiresIn is a Unix time in seconds (auth/http/token.ts).
    this.refreshExpiresAt = t.refreshExpiresIn ? t.refreshExpiresIn * 1000 : 0;
    let exp = t.payload?.exp;
    let iat = t.payload?.iat;
    if (exp === undefined) {
      try {
        const claims = jwtClaims(t.token);
        exp = claims.exp;
        iat = claims.iat;
      } catch {
        /* not a JWT: lifetime unknown */
      }
    }
    const issuedAt = iat !== undefined ? Math.min(iat * 1000, now) : now;
    const lifetime = exp !== undefined ? exp * 1000 - issuedAt : UNKNOWN_LIFETIME_MS;
    this.renewAt = issuedAt + lifetime * RENEW_AT;
    this.issued++;
  }

  private async mutate(input: { APIKey: string } | { refreshToken: string }): Promise<Issued> {
    const res = await this.client.request({
      method: 'POST',
      path: this.graphqlPath,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: OBTAIN, variables: { input } }),
    });
    const text = await res.body.text();
    // A 5xx is the API (or a proxy before it) being down, not a refusal: the caller treats it
    // like a connection error and waits for the API (availability.ts).
    if (res.statusCode >= 500) throw Object.assign(new Error(`the token endpoint answered ${res.statusCode}`), { code: `HTTP ${res.statusCode}` });
    let body: { data?: { obtainKrakenToken?: Issued | null }; errors?: { message?: string; extensions?: { errorCode?: string } }[] };
    try {
      body = JSON.parse(text);
    } catch {
      throw new AuthError(`the token endpoint answered ${res.statusCode} without JSON`, 'token_endpoint_error');
    }
    const issued = body.data?.obtainKrakenToken;
    if (!issued?.token) {
      const first = body.errors?.[0];
      throw new AuthError(
        `could not obtain a token (${res.statusCode}${first?.message ? `: ${first.message}` : ''})`,
        first?.extensions?.errorCode ?? 'authentication_failed',
      );
    }
    return issued;
  }
}

/**
 * The claims of a JWT, read without verifying it (the client only needs `exp` to schedule a
 * renewal; the server verifies). By hand because jose ships as an ES module only.
 */
function jwtClaims(token: string): { exp?: number; iat?: number } {
  const part = token.split('.')[1];
  if (part === undefined) throw new Error('not a JWT');
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as { exp?: number; iat?: number };
}
