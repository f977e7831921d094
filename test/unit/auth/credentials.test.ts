import { credentialOf } from '../../../auth/authenticate';

const ctx = (authorization?: string) => ({ get: (h: string) => (h === 'authorization' ? (authorization ?? '') : '') });

describe('reading the Authorization header', () => {
  it.each([
    ['Token abc.def.ghi', 'abc.def.ghi'],
    ['JWT abc.def.ghi', 'abc.def.ghi'],
    ['Bearer abc.def.ghi', 'abc.def.ghi'],
    ['token   abc.def.ghi', 'abc.def.ghi'],
    ['abc.def.ghi', 'abc.def.ghi'],
  ])('takes the token of %j', (header, token) => {
    expect(credentialOf(ctx(header))).toBe(token);
  });

  it.each([[undefined], [''], ['Token'], ['Token a b'], ['Basic dXNlcjpwYXNz extra']])('finds no token in %j', (header) => {
    expect(credentialOf(ctx(header))).toBeUndefined();
  });
});
