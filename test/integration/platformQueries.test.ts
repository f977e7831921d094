import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { eventually, startStack, Stack } from '../support/stack';
import { importThroughApi } from '../support/imports';
import { createSupplier } from '../../suppliers/store';
import { insertGeneratedProcesses } from '../../bench/lib/importProcessRows';

// Real servers and a workflow bundle: far beyond jest's default 5 s.
jest.setTimeout(120_000);

const MPAN = '2300111122226';
const MPRN = '7382190405';


/** An organisation granted DEMO_ENERGY and BOOK_ENERGY (real authentication). */
let grantBoth: { Authorization: string };

interface Item {
  external_account_number: string;
  kraken_account_number: string | null;
  account_created_at: string | null;
}

/** Follows `Link: rel="next"` from the first page; every page and the whole list. */
async function allPages(s: Stack, first: string): Promise<{ pages: Item[][]; items: Item[] }> {
  const pages: Item[][] = [];
  let url: string | undefined = first;
  while (url) {
    const res = await request(s.app.callback()).get(url).set(grantBoth);
    expect(res.status).toBe(200);
    pages.push(res.body);
    const link = res.headers.link as string | undefined;
    url = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
  }
  return { pages, items: pages.flat() };
}

describe('platform listings and meter point statuses on the real servers', () => {
  let s: Stack;
  let ext: (name: string) => string;
  const accountNumbers = new Map<string, string>();

  async function importAccount(external: string, envelope?: { is_dry_run: boolean }): Promise<void> {
    accountNumbers.set(external, (await importThroughApi(s, external, envelope)).kraken_identifier);
  }


  const get = (path: string, headers: Record<string, string> = {}) => request(s.app.callback()).get(path).set({ ...grantBoth, ...headers });

  beforeAll(async () => {
    s = await startStack({ relay: false });
    ext = (name) => `${name}-${s.taskQueue}`;
    await importAccount(ext('FIRST'));
    await importAccount(ext('SECOND'));
    await importAccount(ext('DRY'), { is_dry_run: true });
    await createSupplier(s.t.db, 'BOOK_ENERGY');
    grantBoth = await s.authHeader('DEMO_ENERGY', 'BOOK_ENERGY');
    await createSupplier(s.t.db, 'OTHER_ENERGY');
    await insertGeneratedProcesses(s.t.db, 'BOOK_ENERGY', 2_500, 'BOOK');
    await insertGeneratedProcesses(s.t.db, 'OTHER_ENERGY', 3, 'OTHER');
  });
  afterAll(async () => {
    await s?.stop();
  });

  describe('listings', () => {
    it('lists all, pending and imported processes of a supplier as the platform\'s plain arrays', async () => {
      const [first, second, dry] = [ext('FIRST'), ext('SECOND'), ext('DRY')];
      const accountCreated = async (external: string) => {
        const row = await s.t.db('accounts').where({ external_account_number: external }).first('created_at');
        return (row.created_at as Date).toISOString().replace(/\.\d+Z$/, 'Z');
      };
      const imported = [
        { external_account_number: first, kraken_account_number: accountNumbers.get(first), account_created_at: await accountCreated(first) },
        { external_account_number: second, kraken_account_number: accountNumbers.get(second), account_created_at: await accountCreated(second) },
      ];
      const pending = [{ external_account_number: dry, kraken_account_number: null, account_created_at: null }];

      const all = await get('/v1/data-import/all-account-import-processes/DEMO_ENERGY/');
      expect(all.status).toBe(200);
      expect(all.headers['content-type']).toMatch(/^application\/json/);
      expect(all.headers.link).toBeUndefined();
      expect(all.body).toEqual([...imported, ...pending]);
      expect((await get('/v1/data-import/imported-account-import-processes/DEMO_ENERGY/')).body).toEqual(imported);
      expect((await get('/v1/data-import/pending-account-import-processes/DEMO_ENERGY/')).body).toEqual(pending);
      // A repeated read answers the same.
      expect((await get('/v1/data-import/all-account-import-processes/DEMO_ENERGY/')).body).toEqual(all.body);
    });

    it('streams a long listing completely, in id order, as one valid JSON array', async () => {
      const res = await get('/v1/data-import/all-account-import-processes/BOOK_ENERGY/');
      expect(res.status).toBe(200);
      const items = res.body as Item[];
      expect(items).toHaveLength(2_500);
      expect(items[0]).toEqual({ external_account_number: 'BOOK-1', kraken_account_number: null, account_created_at: null });
      expect(items[1]).toEqual({ external_account_number: 'BOOK-2', kraken_account_number: 'G-BOOK-2', account_created_at: '2026-01-01T12:00:02Z' });
      expect(items.map((i) => i.external_account_number)).toEqual(Array.from({ length: 2_500 }, (_, i) => `BOOK-${i + 1}`));
      const imported = (await get('/v1/data-import/imported-account-import-processes/BOOK_ENERGY/')).body as Item[];
      const pending = (await get('/v1/data-import/pending-account-import-processes/BOOK_ENERGY/')).body as Item[];
      expect(imported).toHaveLength(1_250);
      expect(pending).toHaveLength(1_250);
      expect(imported.every((i) => i.kraken_account_number !== null && i.account_created_at !== null)).toBe(true);
      expect(pending.every((i) => i.kraken_account_number === null && i.account_created_at === null)).toBe(true);
    });

    it('pages with limit and the opaque after cursor of Link rel="next", and the pages add up to the plain array', async () => {
      for (const listing of ['all', 'pending', 'imported']) {
        const base = `/v1/data-import/${listing}-account-import-processes/BOOK_ENERGY/`;
        const whole = (await get(base)).body as Item[];
        const { pages, items } = await allPages(s, `${base}?limit=700`);
        expect(items).toEqual(whole);
        expect(pages.slice(0, -1).every((p) => p.length === 700)).toBe(true);
        expect(pages[pages.length - 1]!.length).toBeGreaterThan(0);
      }
      // A page that ends exactly at the end has no next link.
      const exact = await get('/v1/data-import/all-account-import-processes/DEMO_ENERGY/?limit=3');
      expect(exact.body).toHaveLength(3);
      expect(exact.headers.link).toBeUndefined();
    });

    it('answers not_found for an unknown supplier and for a supplier outside the grant, exactly alike', async () => {
      const unknown = await get('/v1/data-import/all-account-import-processes/NO_SUCH_ENERGY/', await s.authHeader('DEMO_ENERGY', 'NO_SUCH_ENERGY'));
      const outside = await get('/v1/data-import/all-account-import-processes/OTHER_ENERGY/');
      for (const res of [unknown, outside]) {
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('not_found');
      }
      expect(outside.body).toEqual(unknown.body);
      for (const listing of ['pending', 'imported']) {
        expect((await get(`/v1/data-import/${listing}-account-import-processes/OTHER_ENERGY/`)).status).toBe(404);
      }
      // Granted, the same supplier lists.
      const granted = await get('/v1/data-import/all-account-import-processes/OTHER_ENERGY/', await s.authHeader('OTHER_ENERGY'));
      expect(granted.body).toHaveLength(3);
    });

    it.each([
      ['limit=0', 'min_value', 'limit'],
      ['limit=10001', 'max_value', 'limit'],
      ['limit=ten', 'invalid', 'limit'],
      ['limit=1&limit=2', 'invalid', 'limit'],
      ['after=bm90LWEtY3Vyc29y', 'invalid', 'after'],
      ['after=', 'invalid', 'after'],
      ['page=2', 'unknown_field', 'page'],
      ['page=1&page=2', 'unknown_field', 'page'],
      ['limit=1.5', 'invalid', 'limit'],
      ['after=x&after=y', 'invalid', 'after'],
    ])('answers validation_error for ?%s with %s at %s', async (query, code, attr) => {
      const res = await get(`/v1/data-import/all-account-import-processes/DEMO_ENERGY/?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
      expect(res.body.errors).toEqual([expect.objectContaining({ code, attr })]);
    });

    it('releases the database connection when the client goes away mid-stream', async () => {
      const server = http.createServer(s.app.callback());
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address() as AddressInfo;
      try {
        await new Promise<void>((resolve, reject) => {
          const req = http.get({ port, host: '127.0.0.1', path: '/v1/data-import/all-account-import-processes/BOOK_ENERGY/', headers: grantBoth }, (res) => {
            res.once('data', () => {
              req.destroy();
              resolve();
            });
          });
          req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(err)));
        });
        const pool = s.t.db.client.pool as { numUsed(): number };
        await eventually(async () => pool.numUsed() === 0, 10_000);
      } finally {
        await new Promise((r) => server.close(r));
      }
    });
  });

  describe('meter point statuses', () => {
    const statuses = (supplier: string, external: string, headers: Record<string, string> = {}) =>
      get(`/v1/data-import/meterpoint-statuses-for-account/${supplier}/${external}/`, headers);

    it('answers PRE_REGISTRATION for each MPAN and MPRN of an imported account before registration', async () => {
      const res = await statuses('DEMO_ENERGY', ext('SECOND'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { mpxn: MPAN, status: 'PRE_REGISTRATION' },
        { mpxn: MPRN, status: 'PRE_REGISTRATION' },
      ]);
    });

    it('follows the registration flows: marked, sent, confirmed, rejected', async () => {
      const external = ext('FIRST');
      const sent = await s.request().post(`/v1/data-import/send-registration-flows/DEMO_ENERGY/${external}/`);
      expect(sent.status).toBe(200);
      const first = await statuses('DEMO_ENERGY', external);
      expect(first.body).toEqual([
        { mpxn: MPAN, status: 'UNDERGOING_REGISTRATION' },
        { mpxn: MPRN, status: 'UNDERGOING_REGISTRATION' },
      ]);
      // A retry answers the same.
      expect((await statuses('DEMO_ENERGY', external)).body).toEqual(first.body);

      // The downstream registration process moves the records on; the statuses follow at once.
      const set = (mpxn: string, status: string) =>
        s.t.db('meter_point_registrations').where({ external_account_number: external, mpxn }).update({ status });
      await set(MPAN, 'SENT');
      await set(MPRN, 'REJECTED');
      expect((await statuses('DEMO_ENERGY', external)).body).toEqual([
        { mpxn: MPAN, status: 'REGISTRATION_REQUESTED' },
        { mpxn: MPRN, status: 'REGISTRATION_REJECTED' },
      ]);
      await set(MPAN, 'CONFIRMED');
      expect((await statuses('DEMO_ENERGY', external)).body[0]).toEqual({ mpxn: MPAN, status: 'REGISTRATION_ACCEPTED' });
    });

    it('answers not_found (with the platform\'s error field) for an unknown account, a dry run only and a supplier outside the grant', async () => {
      const unknown = await statuses('DEMO_ENERGY', ext('NOBODY'));
      const dryRun = await statuses('DEMO_ENERGY', ext('DRY'));
      const outside = await statuses('DEMO_ENERGY', ext('SECOND'), await s.authHeader('OTHER_ENERGY'));
      for (const res of [unknown, dryRun, outside]) {
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('not_found');
        expect(typeof res.body.error).toBe('string');
      }
    });

    it('answers validation_error for an unknown query parameter', async () => {
      const q = await get(`/v1/data-import/meterpoint-statuses-for-account/DEMO_ENERGY/${ext('SECOND')}/?verbose=1`);
      expect(q.status).toBe(400);
      expect(q.body.code).toBe('validation_error');
      expect(q.body.errors).toEqual([expect.objectContaining({ code: 'unknown_field', attr: 'verbose' })]);
    });
  });
});
