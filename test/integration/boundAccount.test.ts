/**
 * Issue 47, done-when: an account at every bound imports, reads back equal and gets its digest, on
 * the real servers (the workflow on the Temporal test server, PostgreSQL). A full generated account
 * (every path of the platform's Account) whose free-form values sit exactly at each of their bounds
 * (account/freeForm.ts: values, depth, characters) in the spec's metadata, a business detail and a
 * customer's details, and a text at TEXT_CAP: validate takes it, the worker imports it, the
 * read-back equals its canonical form and its digest is the one computed from what was sent. One
 * value past a bound is refused by validate and create alike (hostilePayloads.test.ts).
 *
 * The worker is a process as production runs it (scripts/supervise.ts: worker/main.ts with the
 * default heap flags of lib/nodeOptions.ts, a 192 MiB old space), and its pid is the same after the
 * import (issue 47 item 6: the workers stay up).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, startStack, Stack } from '../support/stack';
import { stackProcessEnv } from '../support/processEnv';
import { Supervisor } from '../../scripts/supervisor';
import { serviceChildren } from '../../scripts/supervise';
import { accountDigest, canonicalAccount } from '../../account/canonical';
import { londonToday } from '../../account/dates';
import { freeFormExcess, FREE_FORM_BOUNDS } from '../../account/freeForm';
import { createRng, generateAccount } from '../../cli/generate';
import { clearReadBack } from '../support/readBack';

jest.setTimeout(240_000);

const { maxValues, maxDepth, maxChars } = FREE_FORM_BOUNDS;
const nested = (n: number): unknown => (n <= 1 ? [] : [nested(n - 1)]);

describe('an account at every bound, on the real servers', () => {
  let s: Stack;
  let dir: string;
  let supervisor: Supervisor;

  beforeAll(async () => {
    s = await startStack({ worker: false, relay: false });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bound-account-'));
    supervisor = new Supervisor({ children: serviceChildren({ workers: 1, apiReplicas: 0, env: stackProcessEnv(s, {}), logDir: dir }), runDir: dir, stopGraceMs: 20_000, log: () => undefined });
    supervisor.start();
  });
  afterAll(async () => {
    await supervisor?.stop();
    await s?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('validates, imports, reads back equal and gets its digest', async () => {
    const external = s.ext('AT-BOUNDS');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const account = generateAccount(createRng('issue-47-bounds'), { externalAccountNumber: external, today: londonToday(new Date()), profile: 'full' }) as any;
    const atValues = { n: Array.from({ length: maxValues - 2 }, (_, i) => i) };
    const atDepth = { d: nested(maxDepth - 1) };
    // Characters, not bytes: two-byte and four-byte UTF-8 (a surrogate pair counts two) stored and read back as sent.
    const atChars = { s: `${'é'.repeat(maxChars - 3)}😀` };
    account.metadata = [...(account.metadata ?? []), { key: 'at-values', value: atValues }, { key: 'at-depth', value: atDepth }, { key: 'at-chars', value: atChars }];
    account.business.details[0].value = atValues;
    account.customers[0].details = atChars;
    for (const v of [atValues, atDepth, atChars]) expect(freeFormExcess(v)).toBeNull();
    expect(freeFormExcess({ n: [...atValues.n, 0] })).not.toBeNull();

    const pid = await supervisor.waitForStart('worker-1');
    const validated = await s.request().post('/v2/data-import/accounts/validate/').send(account);
    expect({ status: validated.status, errors: validated.body.errors }).toEqual({ status: 200, errors: undefined });
    expect((await s.request().post('/v2/data-import/accounts/').send(account)).status).toBe(201);
    await eventually(async () => {
      const status = (await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${external}/`)).body.status as string;
      if (status === 'FAILED') throw new Error(`${external} failed`);
      return status === 'PROCESSED' ? true : undefined;
    }, 180_000);
    const back = await clearReadBack(() => s)(external);
    expect(back).toEqual(canonicalAccount(account));
    const digests = await s.request().post('/v2/data-import/accounts/digests/').send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: [external] });
    expect(digests.body.results[0].digest).toBe(accountDigest(account));
    // The worker that imported it, read it back for the digest and published its events is the one that started.
    expect(supervisor.pid('worker-1')).toBe(pid);
    expect(supervisor.status().find((c) => c.name === 'worker-1')?.restarts).toBe(0);
  });
});
