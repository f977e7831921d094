import { Kind, parse, visit } from 'graphql';
import { HttpError } from '../../http/errors';

/**
 * The cost of a token request, counted before graphql-http validates or executes it (issue 47:
 * one 64 KiB request carried ~1,300 aliased obtainKrakenToken fields, each executed, and the rate
 * limit counted requests). A legitimate token request is one mutation of about 30 tokens; an
 * introspection query of a tool (GraphiQL's) is about 500.
 */
export const GRAPHQL_MAX_TOKENS = 2_000;
/** At most one token operation per request: the buckets count requests, so one request is one operation. */
export const MAX_TOKEN_OPERATIONS = 1;

/**
 * Refuses, with 400 and a stable code, a query over GRAPHQL_MAX_TOKENS lexical tokens
 * (`graphql_document_too_costly`, parse stops at the limit) or with more than one token field
 * (`graphql_too_many_token_operations`). Every field node of the document is counted, fragments
 * included: a fragment spread twice under one alias merges into one execution, so the count of
 * field nodes bounds the executions. A query that does not parse otherwise is left to graphql-http
 * (its own error shape).
 */
export function checkTokenRequestCost(query: unknown): void {
  if (typeof query !== 'string') return;
  let document;
  try {
    document = parse(query, { maxTokens: GRAPHQL_MAX_TOKENS, noLocation: true });
  } catch (err) {
    // graphql-js 16 words it "contains more that N tokens" (sic): matched loosely so a fixed typo still matches.
    if (/contains more th\w+ \d+ tokens/i.test((err as Error).message)) {
      throw new HttpError('graphql_document_too_costly', `The query exceeds ${GRAPHQL_MAX_TOKENS} tokens.`);
    }
    return;
  }
  let operations = 0;
  visit(document, {
    [Kind.FIELD](node) {
      // The schema's one token operation (a refresh is obtainKrakenToken with input.refreshToken).
      if (node.name.value === 'obtainKrakenToken') operations += 1;
    },
  });
  if (operations > MAX_TOKEN_OPERATIONS) {
    throw new HttpError('graphql_too_many_token_operations', `A request may hold at most ${MAX_TOKEN_OPERATIONS} token operation (it held ${operations}).`);
  }
}
