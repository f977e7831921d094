import { checkTokenRequestCost, GRAPHQL_MAX_TOKENS } from '../../auth/http/tokenCost';
import { HttpError } from '../../http/errors';

function codeOf(query: string): string | undefined {
  try {
    checkTokenRequestCost(query);
    return undefined;
  } catch (err) {
    return (err as HttpError).code;
  }
}

describe('the cost of a token request (issue 47)', () => {
  it('accepts one obtainKrakenToken', () => {
    expect(codeOf('mutation { obtainKrakenToken(input: {APIKey: "k"}) { token refreshToken } }')).toBeUndefined();
  });

  it('refuses two aliased obtainKrakenToken fields with graphql_too_many_token_operations', () => {
    expect(codeOf('mutation { a: obtainKrakenToken(input: {APIKey: "k"}) { token } b: obtainKrakenToken(input: {APIKey: "k"}) { token } }')).toBe('graphql_too_many_token_operations');
  });

  it('counts token fields inside fragments too', () => {
    expect(codeOf('mutation { ...F b: obtainKrakenToken(input: {APIKey: "k"}) { token } } fragment F on Mutation { a: obtainKrakenToken(input: {APIKey: "k"}) { token } }')).toBe('graphql_too_many_token_operations');
  });

  it('refuses a query over the token limit with graphql_document_too_costly', () => {
    expect(codeOf(`query { ${'ping '.repeat(2 * GRAPHQL_MAX_TOKENS)} }`)).toBe('graphql_document_too_costly');
  });
});
