import fc from 'fast-check';
import type { Account } from '../../../account/schema';
import { accountArb } from './arbitraries';
import { check, errorsOf, example } from './helpers';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** A targeted corruption of a valid account and the one error it must yield. */
interface Corruption {
  name: string;
  apply(account: Any, pick: number): string; // returns the expected `code@attr`
}

function nth<T>(items: T[], pick: number): [T, number] {
  const i = pick % items.length;
  return [items[i], i];
}

function meterPointPaths(account: Account): [Any, string][] {
  return account.supply_addresses!.flatMap((a, i) => a.meter_points.map((mp, j) => [mp, `supply_addresses.${i}.meter_points.${j}`] as [Any, string]));
}

const CORRUPTIONS: Corruption[] = [
  {
    name: 'bad mobile',
    apply(account, pick) {
      const [customer, i] = nth(account.customers as Any[], pick);
      customer.mobile = '0791112';
      return `invalid_phone_number@customers.${i}.mobile`;
    },
  },
  {
    name: 'unknown field on a meter point',
    apply(account, pick) {
      const [[mp, attr]] = nth(meterPointPaths(account), pick);
      mp.colour = 'blue';
      return `unknown_field@${attr}.colour`;
    },
  },
  {
    name: 'wrong check digit',
    apply(account, pick) {
      const [[mp, attr]] = nth(meterPointPaths(account), pick);
      const last = Number(mp.identifier.slice(-1));
      mp.identifier = mp.identifier.slice(0, -1) + String((last + 1) % 10);
      return `invalid_supply_point_identifier@${attr}.identifier`;
    },
  },
  {
    name: 'meter serial number missing',
    apply(account, pick) {
      const [[mp, attr]] = nth(meterPointPaths(account), pick);
      delete mp.meters[0].meter_serial_number;
      return `required@${attr}.meters.0.meter_serial_number`;
    },
  },
  {
    name: 'not a real day',
    apply(account, pick) {
      const [[mp, attr]] = nth(meterPointPaths(account), pick);
      mp.supply_start_date = '2022-02-29';
      return `invalid_date@${attr}.supply_start_date`;
    },
  },
  {
    name: 'disputed read in progress',
    apply(account, pick) {
      const [[mp, attr]] = nth(meterPointPaths(account), pick);
      mp.dr_in_progress = true;
      return `disputed_read_in_progress@${attr}.dr_in_progress`;
    },
  },
];

describe('valid accounts of varied shape', () => {
  it('pass validation with no errors', async () => {
    await fc.assert(
      fc.asyncProperty(accountArb, async (account) => {
        const outcome = await check(account, 'create');
        expect(errorsOf(outcome)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('fail with exactly the expected error at the expected path after one targeted corruption', async () => {
    await fc.assert(
      fc.asyncProperty(accountArb, fc.constantFrom(...CORRUPTIONS), fc.nat(), async (account, corruption, pick) => {
        const copy = structuredClone(account);
        const expected = corruption.apply(copy, pick);
        expect(errorsOf(await check(copy))).toEqual([expected]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('arbitrary JSON', () => {
  it('never makes validate throw, whatever the body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (body) => {
        const outcome = await check(body);
        expect(outcome.ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('never makes validate throw when any one value of the example is replaced', async () => {
    // Collect every path of the example, then put arbitrary JSON at one of them.
    const paths: (string | number)[][] = [];
    const walk = (v: unknown, p: (string | number)[]) => {
      paths.push(p);
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...p, i]));
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...p, k]);
    };
    walk(example(), []);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths.filter((p) => p.length > 0)), fc.jsonValue(), async (p, value) => {
        const body = example();
        let node = body;
        for (const key of p.slice(0, -1)) node = node[key];
        node[p[p.length - 1]] = value;
        const outcome = await check(body);
        expect(typeof outcome.ok).toBe('boolean');
      }),
      { numRuns: 1000 },
    );
  });
});
