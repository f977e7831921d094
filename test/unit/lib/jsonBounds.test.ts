import { boundsFor, exceedsJsonBounds, JsonBoundsError, measureJson, parseBounded } from '../../../lib/jsonBounds';

const open = { maxValues: 1e9, maxDepth: 1000, maxKeys: 1e9 };

describe('jsonBounds', () => {
  it('counts the values, depth and members of one object that JSON.parse builds', () => {
    expect(measureJson('{}')).toEqual({ values: 1, depth: 1, keys: 0 });
    expect(measureJson('1')).toEqual({ values: 1, depth: 0, keys: 0 });
    expect(measureJson(' [ -1.5e+3 , "{[" , {} , true, null ] ')).toEqual({ values: 6, depth: 2, keys: 0 });
    expect(measureJson('{"a":1,"b":[1,2,{"c":"x\\"}y"}],"d":null}')).toEqual({ values: 8, depth: 3, keys: 3 });
    expect(measureJson('[[[[1]]]]')).toEqual({ values: 5, depth: 4, keys: 0 });
  });

  it('skips strings whatever they hold: escaped quotes, backslash runs, brackets, keys', () => {
    // "a\\" ends at its second quote (two backslashes); "b\\\"c" holds an escaped quote.
    expect(measureJson('{"a\\\\":"b\\\\\\"c","e":true}')).toEqual({ values: 3, depth: 1, keys: 2 });
    expect(measureJson(JSON.stringify({ k: '{[{[\\"\\\\"'.repeat(50), l: ['"', '\\', '\u0000'] }))).toEqual({ values: 6, depth: 2, keys: 2 });
  });

  it('agrees with JSON.parse on the values of random documents', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const gen = (d: number): unknown => {
      const r = rnd();
      if (d > 5 || r < 0.4) return [1, -2.5e3, 'x"\\y', true, null, ''][Math.floor(rnd() * 6)];
      if (r < 0.7) return Array.from({ length: Math.floor(rnd() * 4) }, () => gen(d + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 4) }, (_, i) => [`k${i}"\\`, gen(d + 1)]));
    };
    const count = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Object.values(v).reduce<number>((n, x) => n + count(x), 0) : 1);
    for (let i = 0; i < 200; i++) {
      const v = gen(0);
      expect(measureJson(JSON.stringify(v, null, i % 2 ? 1 : undefined)).values).toBe(count(v));
    }
  });

  it('stops at the first bound passed, naming it', () => {
    expect(exceedsJsonBounds(`[${'{},'.repeat(100)}{}]`, { ...open, maxValues: 50 })).toEqual({ bound: 'values', limit: 50 });
    expect(exceedsJsonBounds('['.repeat(5000) + ']'.repeat(5000), { ...open, maxDepth: 64 })).toEqual({ bound: 'depth', limit: 64 });
    expect(exceedsJsonBounds(JSON.stringify(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]))), { ...open, maxKeys: 29 })).toEqual({ bound: 'keys', limit: 29 });
    // Members are counted per object: two objects of 20 are within 29.
    expect(exceedsJsonBounds(JSON.stringify([Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i])), Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, {}]))]), { ...open, maxKeys: 29 })).toBeNull();
  });

  it('bounds the values by the bytes too, and parses only within the bounds', () => {
    const limits = { maxValues: 500_000, maxDepth: 64, maxKeys: 2000, minBytesPerValue: 8 };
    expect(boundsFor(80_000, limits).maxValues).toBe(20_000);
    expect(boundsFor(100 * 1024 * 1024, limits).maxValues).toBe(500_000);
    const empties = `{"payload":{"x":[${'{},'.repeat(20_000)}{}]}}`;
    expect(() => parseBounded(empties, limits)).toThrow(JsonBoundsError);
    expect(parseBounded('{"a":[1,2]}', limits)).toEqual({ a: [1, 2] });
    expect(() => parseBounded('{"a":', limits)).toThrow(SyntaxError);
  });
});
