import type { Context, Middleware } from 'koa';
import {
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
} from 'graphql';
import { createHandler } from 'graphql-http';
import type { Logger } from '../../lib/logger';
import { HttpError } from '../../http/errors';
import type { RateLimiter } from '../../http/middleware/rateLimit';
import { codesOf, json, ref } from '../../http/openapi';
import { operation } from '../../http/operation';
import { hashSecret } from '../secrets';
import { checkTokenRequestCost, GRAPHQL_MAX_TOKENS } from './tokenCost';
import { TokenError, TokenService, IssuedToken, TOKEN_ERRORS, TokenErrorCode } from '../tokens';

/** Token requests and introspection queries are a few kilobytes; nothing bigger is read. */
export const GRAPHQL_BODY_LIMIT_BYTES = 64 * 1024;

const GenericScalar = new GraphQLScalarType({
  name: 'GenericScalar',
  description: 'Any JSON value (here: the claims of the token).',
});

const ObtainJSONWebTokenInput = new GraphQLInputObjectType({
  name: 'ObtainJSONWebTokenInput',
  description: 'Exactly one of APIKey (the organisation API key) or refreshToken (from an earlier answer).',
  fields: {
    APIKey: { type: GraphQLString, description: 'The organisation API key issued by the service operator.' },
    refreshToken: { type: GraphQLString, description: 'A refresh token of an earlier answer; each is accepted once.' },
  },
});

const ObtainJSONWebToken = new GraphQLObjectType<IssuedToken>({
  name: 'ObtainJSONWebToken',
  fields: {
    token: { type: new GraphQLNonNull(GraphQLString), description: 'Send as `Authorization: Token <token>` to the REST API.' },
    refreshToken: { type: GraphQLString, description: 'Obtains the next token without the API key; rotated: each refresh token works once.' },
    refreshExpiresIn: { type: GraphQLInt, description: 'Unix time (seconds) at which the refresh token expires.' },
    payload: { type: new GraphQLNonNull(GenericScalar), description: 'The claims of the token (sub: key id, org, iat, exp, jti, iss).' },
  },
});

/** Kraken's error shape: `extensions.errorCode` is the stable part. */
function tokenGraphQLError(code: TokenErrorCode): GraphQLError {
  const message = code === 'KT-CT-1139' ? 'Authentication failed.' : 'Invalid data.';
  return new GraphQLError(message, { extensions: { errorType: 'VALIDATION', errorCode: code, errorDescription: TOKEN_ERRORS[code] } });
}

export function buildTokenSchema(tokens: TokenService, log?: Logger): GraphQLSchema {
  return new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: {
        // GraphQL requires a query root; the service's only operation is the mutation.
        ping: { type: new GraphQLNonNull(GraphQLString), resolve: () => 'pong' },
      },
    }),
    mutation: new GraphQLObjectType({
      name: 'Mutation',
      fields: {
        obtainKrakenToken: {
          type: ObtainJSONWebToken,
          description: 'Exchanges an API key, or a refresh token, for an access token and a new refresh token.',
          args: { input: { type: new GraphQLNonNull(ObtainJSONWebTokenInput) } },
          resolve: async (_root, args: { input: { APIKey?: string | null; refreshToken?: string | null } }) => {
            const { APIKey, refreshToken } = args.input;
            try {
              if (APIKey && refreshToken) throw new TokenError('KT-CT-1139');
              if (APIKey) return await tokens.obtainWithApiKey(APIKey);
              if (refreshToken) return await tokens.obtainWithRefreshToken(refreshToken);
              throw new TokenError('KT-CT-1139');
            } catch (err) {
              if (err instanceof TokenError) throw tokenGraphQLError(err.code);
              // Infrastructure failure: logged here, never shown (no stack or SQL in the answer).
              log?.error({ err }, 'obtainKrakenToken failed');
              throw new GraphQLError('Internal server error.', { extensions: { errorType: 'APPLICATION', errorCode: 'internal_error' } });
            }
          },
        },
      },
    }),
  });
}

/**
 * `POST /v1/graphql/`: the token endpoint. Served by graphql-http, so malformed JSON, a missing or
 * unparsable query, and unknown fields answer GraphQL's own `{errors: [...]}` shape with 400, never
 * a 500. Introspection is on.
 *
 * POST only, as the OpenAPI document says: GraphQL over HTTP allows GET for queries, but the one
 * operation here is a mutation (refused over GET anyway), and an API key or refresh token sent in a
 * URL would end up in proxy and access logs. Other methods answer 405 with `Allow: POST`.
 */
export const tokenOperation = operation({
  method: 'post',
  path: '/v1/graphql/',
  open: true,
  handler: (deps: { tokens: TokenService; log?: Logger; tokenLimiter?: RateLimiter; config: { auth: { graphqlIntrospection: boolean } } }) =>
    graphqlHandler(deps.tokens, deps.log, deps.tokenLimiter, deps.config.auth.graphqlIntrospection),
  schemas: {
    GraphQLRequest: {
      type: 'object',
      required: ['query'],
      properties: { query: { type: 'string' }, variables: { type: ['object', 'null'] }, operationName: { type: ['string', 'null'] } },
    },
    GraphQLResponse: {
      type: 'object',
      properties: {
        data: { type: ['object', 'null'], description: '`obtainKrakenToken`: `{token, refreshToken, refreshExpiresIn, payload}`.' },
        errors: {
          type: 'array',
          items: {
            type: 'object',
            required: ['message'],
            properties: {
              message: { type: 'string' },
              extensions: {
                type: 'object',
                properties: {
                  errorCode: { type: 'string', enum: [...Object.keys(TOKEN_ERRORS), 'internal_error'] },
                  errorType: { type: 'string' },
                  errorDescription: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
  },
  openapi: {
    operationId: 'graphql',
    tags: ['authentication'],
    summary: 'GraphQL: `mutation { obtainKrakenToken(input: {APIKey: "..."}) { token refreshToken refreshExpiresIn payload } }`; also `input: {refreshToken: "..."}`.',
    description: `Failures are GraphQL errors with extensions.errorCode: ${Object.entries(TOKEN_ERRORS).map(([c, d]) => `${c} (${d})`).join(', ')}. Bodies over ${GRAPHQL_BODY_LIMIT_BYTES} bytes answer 413. A query of more than ${GRAPHQL_MAX_TOKENS} tokens answers 400 graphql_document_too_costly, one with more than one obtainKrakenToken field (aliases included) 400 graphql_too_many_token_operations, both before anything runs. Rate limited per client address and per API key or refresh token (AUTH_TOKEN_RATE_LIMIT_PER_MINUTE, default 60, burst 30, per replica): 429 throttled with Retry-After.`,
    security: [],
    requestBody: { required: true, content: { 'application/json': { schema: ref('GraphQLRequest') } } },
    responses: {
      '200': graphqlJson('Executed; failures of the mutation are in `errors`.'),
      '400': graphqlOr400('Malformed JSON, no query; a query over the token limit or with more than one obtainKrakenToken (then the API\'s `{detail, code}` shape: graphql_document_too_costly, graphql_too_many_token_operations); with Accept: application/graphql-response+json also a query that does not parse or validate (with application/json those answer 200 with errors).'),
      '406': json(ref('GraphQLResponse'), 'The Accept header admits neither application/graphql-response+json nor application/json.'),
      '413': { $ref: '#/components/responses/PayloadTooLarge' },
      '415': json(ref('GraphQLResponse'), 'The body is not application/json.'),
      '429': { $ref: '#/components/responses/Throttled' },
    },
  },
});

/** The 400: GraphQL's own shape, or the API's `{detail, code}` for a query refused by its cost before it runs (tokenCost.ts). */
function graphqlOr400(description: string) {
  const refused = {
    type: 'object',
    required: ['detail', 'code'],
    properties: { detail: { type: 'string' }, code: { type: 'string', enum: codesOf('graphql_document_too_costly', 'graphql_too_many_token_operations') } },
  };
  const media = { schema: { oneOf: [ref('GraphQLResponse'), refused] } };
  return { description, content: { 'application/graphql-response+json': media, 'application/json': media } };
}

/** GraphQL over HTTP answers in the media type the client accepts: application/graphql-response+json when asked for, else application/json. */
function graphqlJson(description: string) {
  const media = { schema: ref('GraphQLResponse') };
  return { description, content: { 'application/graphql-response+json': media, 'application/json': media } };
}

/** graphql-js words its suggestions ` Did you mean "x"?` at the end of a validation message. */
const SUGGESTION = / Did you mean .*$/s;

function graphqlHandler(tokens: TokenService, log: Logger | undefined, limiter: RateLimiter | undefined, introspection: boolean, limit = GRAPHQL_BODY_LIMIT_BYTES): Middleware {
  // Outside development the schema is not handed out: introspection is a validation error, and the
  // suggestions that would name its fields one typo at a time are cut from every message.
  const handle = createHandler<unknown, undefined>({
    schema: buildTokenSchema(tokens, log),
    ...(introspection
      ? {}
      : {
          validationRules: (_req, _args, specified) => [...specified, NoSchemaIntrospectionCustomRule],
          formatError: (err) => (err instanceof GraphQLError && SUGGESTION.test(err.message) ? new GraphQLError(err.message.replace(SUGGESTION, ''), { nodes: err.nodes, path: err.path, extensions: err.extensions }) : err),
        }),
  });
  return async (ctx) => {
    if (limiter) await throttle(limiter, `address:${ctx.ip}`);
    const body = await readText(ctx, limit);
    if (limiter) for (const secret of credentialsOf(body)) await throttle(limiter, `credential:${hashSecret(secret)}`);
    checkTokenRequestCost(queryOf(body));
    const [resBody, init] = await handle({
      method: ctx.method,
      url: ctx.url,
      headers: ctx.headers,
      body,
      raw: ctx.req,
      context: undefined,
    });
    for (const [name, value] of Object.entries(init.headers ?? {})) ctx.set(name, String(value));
    // A null body would make Koa answer 204: every answer carries GraphQL's error shape instead.
    ctx.body = resBody ?? JSON.stringify({ errors: [{ message: init.statusText ?? 'Bad request' }] });
    if (resBody === null) ctx.type = 'application/json';
    ctx.status = init.status;
  };
}

/**
 * The token operation's rate limit (AUTH_TOKEN_RATE_LIMIT_PER_MINUTE / _BURST): a bucket per client
 * address, then one per API key or refresh token the request carries in its variables (how
 * clients send them; a key written into the query text counts against the address only). Over it:
 * 429 `throttled` with Retry-After, the REST API's shape, before any other database work (the
 * buckets are in PostgreSQL, so that a restart of the API cannot empty them).
 */
async function throttle(limiter: RateLimiter, key: string): Promise<void> {
  const r = await limiter.take(key);
  if (!r.ok) {
    throw new HttpError('throttled', `Too many token requests; retry in ${r.retryAfterSeconds} s.`, {}, { 'Retry-After': String(r.retryAfterSeconds) });
  }
}

/** The string values of the request's variables (and of an `input` object among them), at most two distinct. */
function credentialsOf(body: string): string[] {
  let variables: unknown;
  try {
    variables = (JSON.parse(body) as { variables?: unknown } | null)?.variables;
  } catch {
    return [];
  }
  if (!variables || typeof variables !== 'object') return [];
  const values = Object.values(variables as Record<string, unknown>).flatMap((v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.values(v as Record<string, unknown>) : [v]));
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v.length > 0))].slice(0, 2);
}

/** The request's query text, or undefined when the body is not a JSON object with one (graphql-http answers those). */
function queryOf(body: string): unknown {
  try {
    return (JSON.parse(body) as { query?: unknown } | null)?.query;
  } catch {
    return undefined;
  }
}

async function readText(ctx: Context, limit: number): Promise<string> {
  if (ctx.request.length !== undefined && ctx.request.length > limit) {
    throw new HttpError('payload_too_large', `The body exceeds ${limit} bytes.`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError('payload_too_large', `The body exceeds ${limit} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
