import { decodeCursor, encodeCursor, parseListingParams } from '../../../imports/listing/params';
import { parseTransactionQuery } from '../../../topUps/query';

describe('listing parameters', () => {
  it('round-trips a cursor and refuses anything else', () => {
    expect(decodeCursor(encodeCursor('12345'))).toBe('12345');
    for (const bad of ['', 'abc', Buffer.from('ip:0').toString('base64url'), Buffer.from('ip:-1').toString('base64url'), Buffer.from('ip:1 OR 1=1').toString('base64url')]) {
      expect(decodeCursor(bad)).toBeNull();
    }
  });

  it('accepts no parameters, a limit, and a limit with a cursor', () => {
    expect(parseListingParams({})).toEqual({ ok: true, limit: undefined, afterId: undefined });
    expect(parseListingParams({ limit: '10000', after: encodeCursor('7') })).toEqual({ ok: true, limit: 10000, afterId: '7' });
  });

  it('reports every bad parameter with its code', () => {
    const parsed = parseListingParams({ limit: '0', after: 'x', offset: '3' });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors.map((e) => `${e.code}@${e.attr}`).sort()).toEqual(['invalid@after', 'min_value@limit', 'unknown_field@offset']);
  });
});

describe('transactions/create query flags', () => {
  it('defaults both flags to true, as the platform does', () => {
    expect(parseTransactionQuery({})).toEqual({ ok: true, checkPreviouslyAdded: true, forceAddToCurrentStatement: true });
  });

  it('reads true/false/1/0 in any case', () => {
    expect(parseTransactionQuery({ check_previously_added: 'False', force_add_to_current_statement: '0' })).toEqual({ ok: true, checkPreviouslyAdded: false, forceAddToCurrentStatement: false });
  });

  it('refuses other values, repeated flags and unknown parameters', () => {
    const parsed = parseTransactionQuery({ check_previously_added: 'yes', force_add_to_current_statement: ['true', 'false'], dry: '1' });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors.map((e) => `${e.code}@${e.attr}`)).toEqual(['invalid@check_previously_added', 'invalid@force_add_to_current_statement', 'unknown_field@dry']);
  });
});
