import request from 'supertest';
import { eventually, startStack, Stack } from '../support/stack';
import { importThroughApi } from '../support/imports';
import { readStream } from '../support/stream';
import { londonToday } from '../../account/dates';
import { addCalendarDays, addWorkingDays } from '../../registration/workingDays';
import { registrationFlowsWorkflowId } from '../../registration/workflowId';
import { uuidFromKey } from '../../lib/ids';
import { ExternalAccountNumberKey, ImportSupplierKey } from '../../workflows/searchAttributes';
import { configureCliContext } from '../../cli/context';
import { main } from '../../cli/main';

// Real servers and a workflow bundle: far beyond jest's default 5 s.
jest.setTimeout(120_000);

const MPAN = '2300111122226';
const MPRN = '7382190405';
const SUCCESS = 'REGISTRATION_FLOW_SUCCESS';
const ERROR = 'REGISTRATION_FLOW_ERROR';


describe('send registration flows on the real servers', () => {
  let s: Stack;
  let ext: (name: string) => string;
  const accountNumbers = new Map<string, string>();

  const send = (external: string, query = '', headers: Record<string, string> = {}) =>
    s.request()
      .post(`/v1/data-import/send-registration-flows/DEMO_ENERGY/${external}/${query}`)
      .set(headers)
      .send({ ignored: true });

  async function importAccount(external: string, envelope?: { is_dry_run: boolean }): Promise<void> {
    accountNumbers.set(external, (await importThroughApi(s, external, envelope)).kraken_identifier);
  }


  const registrationRows = (external: string) =>
    s.t.db('meter_point_registrations').where({ external_account_number: external }).orderBy('mpxn');

  const registrationEvents = async (external: string) =>
    (await readStream(s.nc, s.stream, `${s.subjectPrefix}.meterpoint.>`)).filter((e) => (e.envelope.data as { account_number: string }).account_number === accountNumbers.get(external));

  const today = () => londonToday(new Date());

  beforeAll(async () => {
    s = await startStack();
    // Workflow ids are global to the Temporal server: every run of this file uses its own accounts.
    ext = (name) => `${name}-${s.taskQueue}`;
    await Promise.all([
      importAccount(ext('GIVEN')),
      importAccount(ext('EARLIEST')),
      importAccount(ext('CONCURRENT')),
      importAccount(ext('RACE')),
      importAccount(ext('ET')),
      importAccount(ext('PAST')),
      importAccount(ext('DRY'), { is_dry_run: true }),
    ]);
  });
  afterAll(async () => {
    await s.stop();
  });

  it('marks both meter points from the given date and publishes one event each', async () => {
    const external = ext('GIVEN');
    const date = addWorkingDays(today(), 3);
    const res = await send(external, `?supply_start_date=${date}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        import_supplier_code: 'DEMO_ENERGY',
        external_account_number: external,
        meter_points: [
          { mpxn: MPAN, status: SUCCESS },
          { mpxn: MPRN, status: SUCCESS },
        ],
      },
    ]);

    const rows = await registrationRows(external);
    expect(rows.map((r) => [r.mpxn, r.supply_type, r.supply_start_date, r.status, r.requested_by, r.supplier_mpid])).toEqual([
      [MPAN, 'ELECTRICITY', date, 'MARKED', s.caller, 'DEMO'],
      [MPRN, 'GAS', date, 'MARKED', s.caller, 'DEMO'],
    ]);

    const events = await eventually(async () => {
      const e = await registrationEvents(external);
      return e.length >= 2 ? e : undefined;
    });
    const accountNumber = accountNumbers.get(external)!;
    const byType = Object.fromEntries(events.map((e) => [e.envelope.type, e]));
    expect(events).toHaveLength(2);
    expect(byType['meterpoint.elec.cos_gain.registration.requested']!.subject).toBe(`${s.subjectPrefix}.meterpoint.elec.cos_gain.registration.requested.v1`);
    expect(byType['meterpoint.elec.cos_gain.registration.requested']!.envelope.data).toEqual({
      mpan: MPAN,
      supply_start_date: date,
      supplier_mpid: 'DEMO',
      account_number: accountNumber,
      is_internal_transfer: false,
      is_migrated: true,
      is_export: false,
    });
    expect(byType['meterpoint.gas.cos_gain.registration.requested']!.envelope.data).toEqual({
      mprn: MPRN,
      supply_start_date: date,
      supplier_mpid: 'DEMO',
      account_number: accountNumber,
    });
    const mpIds = rows.map((r) => Number(r.meter_point_id));
    expect(events.map((e) => e.msgId).sort()).toEqual(mpIds.map((id) => uuidFromKey(`registration:${id}`)).sort());

    // Operators find the run in the Temporal UI by supplier and account.
    const d = await s.client.workflow.getHandle(registrationFlowsWorkflowId('DEMO_ENERGY', external, date)).describe();
    expect(d.type).toBe('registrationFlows');
    expect(d.typedSearchAttributes.get(ImportSupplierKey)).toBe('DEMO_ENERGY');
    expect(d.typedSearchAttributes.get(ExternalAccountNumberKey)).toBe(external);
  });

  it('answers a retried identical request the same and publishes nothing new', async () => {
    const external = ext('GIVEN');
    const date = addWorkingDays(today(), 3);
    const first = (await registrationRows(external)).map((r) => r.id);
    const res = await send(external, `?supply_start_date=${date}`);
    expect(res.status).toBe(200);
    expect(res.body[0].meter_points).toEqual([
      { mpxn: MPAN, status: SUCCESS },
      { mpxn: MPRN, status: SUCCESS },
    ]);
    expect((await registrationRows(external)).map((r) => r.id)).toEqual(first);
    const outbox = await s.t.db('outbox').where('event_type', 'like', 'meterpoint.%').andWhere('ordering_key', `account-import:DEMO_ENERGY:${external}`);
    expect(outbox).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 500)); // time for the relay to publish anything new
    expect(await registrationEvents(external)).toHaveLength(2);
  });

  it('refuses another date once marked, naming the marked date', async () => {
    const external = ext('GIVEN');
    const marked = addWorkingDays(today(), 3);
    const res = await send(external, `?supply_start_date=${addCalendarDays(marked, 1)}`);
    expect(res.status).toBe(200);
    expect(res.body[0].meter_points).toEqual([
      { mpxn: MPAN, status: ERROR, error_detail: expect.stringContaining(marked) },
      { mpxn: MPRN, status: ERROR, error_detail: expect.stringContaining(marked) },
    ]);
    expect((await registrationRows(external)).map((r) => r.supply_start_date)).toEqual([marked, marked]);
  });

  it('marks from the earliest valid date (today + the lead time in working days) when no date is given', async () => {
    const external = ext('EARLIEST');
    const res = await send(external);
    expect(res.status).toBe(200);
    expect(res.body[0].meter_points).toEqual([
      { mpxn: MPAN, status: SUCCESS },
      { mpxn: MPRN, status: SUCCESS },
    ]);
    const expected = addWorkingDays(today(), 1); // DEMO_ENERGY's lead time is the default, 1
    expect((await registrationRows(external)).map((r) => r.supply_start_date)).toEqual([expected, expected]);
  });

  it('marks each meter point once when the same request arrives twice at once', async () => {
    const external = ext('CONCURRENT');
    const date = addWorkingDays(today(), 2);
    const [a, b] = await Promise.all([send(external, `?supply_start_date=${date}`), send(external, `?supply_start_date=${date}`)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body).toEqual(b.body);
    expect(a.body[0].meter_points.map((m: { status: string }) => m.status)).toEqual([SUCCESS, SUCCESS]);
    expect(await registrationRows(external)).toHaveLength(2);
    const outbox = await s.t.db('outbox').where('event_type', 'like', 'meterpoint.%').andWhere('ordering_key', `account-import:DEMO_ENERGY:${external}`);
    expect(outbox).toHaveLength(2);
    const events = await eventually(async () => {
      const e = await registrationEvents(external);
      return e.length >= 2 ? e : undefined;
    });
    expect(events).toHaveLength(2);
  });

  it('marks each meter point once when two different requests for the same date race (row locks, not the workflow id)', async () => {
    const external = ext('RACE');
    const earliest = addWorkingDays(today(), 1);
    // Two workflow ids (a given date, and "earliest"), so two runs and two transactions at once.
    const [a, b] = await Promise.all([send(external, `?supply_start_date=${earliest}`), send(external)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body).toEqual(b.body);
    expect(a.body[0].meter_points.map((m: { status: string }) => m.status)).toEqual([SUCCESS, SUCCESS]);
    expect((await registrationRows(external)).map((r) => r.supply_start_date)).toEqual([earliest, earliest]);
    const outbox = await s.t.db('outbox').where('event_type', 'like', 'meterpoint.%').andWhere('ordering_key', `account-import:DEMO_ENERGY:${external}`);
    expect(outbox).toHaveLength(2);
  });

  it('refuses the meter point with an erroneous transfer in progress and marks the other', async () => {
    const external = ext('ET');
    const account = await s.t.db('accounts').where({ external_account_number: external }).first();
    await s.t.db('meter_points').where({ account_id: account.id, identifier: MPAN }).update({ et_in_progress: true });
    const res = await send(external, `?supply_start_date=${addWorkingDays(today(), 2)}`);
    expect(res.status).toBe(200);
    expect(res.body[0].meter_points).toEqual([
      { mpxn: MPAN, status: ERROR, error_detail: expect.any(String) },
      { mpxn: MPRN, status: SUCCESS },
    ]);
    expect((await registrationRows(external)).map((r) => r.mpxn)).toEqual([MPRN]);
  });

  it('refuses a supply start date in the past for every meter point and marks nothing', async () => {
    const external = ext('PAST');
    const res = await send(external, `?supply_start_date=${addCalendarDays(today(), -1)}`);
    expect(res.status).toBe(200);
    expect(res.body[0].meter_points).toEqual([
      { mpxn: MPAN, status: ERROR, error_detail: expect.any(String) },
      { mpxn: MPRN, status: ERROR, error_detail: expect.any(String) },
    ]);
    expect(await registrationRows(external)).toHaveLength(0);
  });

  it('answers the spec\'s 404 array for an unknown account, a dry run only and a supplier outside the grant', async () => {
    const notFound = (external: string) => [
      { error_detail: expect.any(String), import_supplier_code: 'DEMO_ENERGY', external_account_number: external },
    ];
    const unknown = await send(ext('NO-SUCH'));
    expect([unknown.status, unknown.body]).toEqual([404, notFound(ext('NO-SUCH'))]);
    const dry = await send(ext('DRY'));
    expect([dry.status, dry.body]).toEqual([404, notFound(ext('DRY'))]);
    const outside = await send(ext('PAST'), '', await s.authHeader('OTHER_ENERGY'));
    expect([outside.status, outside.body]).toEqual([404, notFound(ext('PAST'))]);
  });

  it('answers 400 validation_error with invalid_date or unknown_field on a bad query', async () => {
    const bad = await send(ext('PAST'), '?supply_start_date=2026-02-30');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      detail: expect.any(String),
      code: 'validation_error',
      errors: [{ detail: expect.any(String), code: 'invalid_date', attr: 'supply_start_date' }],
    });
    const unknown = await send(ext('PAST'), '?start=2026-12-01');
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ detail: expect.any(String), code: 'unknown_field', attr: 'start' }]);
    const twice = await send(ext('PAST'), '?supply_start_date=2026-12-01&supply_start_date=2026-12-02');
    expect([twice.status, twice.body.code, twice.body.errors]).toEqual([400, 'validation_error', [{ detail: expect.any(String), code: 'invalid_date', attr: 'supply_start_date' }]]);
  });

  it('lists the marks for operators with `data-import registrations list`', async () => {
    let out = '';
    const restore = configureCliContext({ env: { DATABASE_URL: s.t.url }, stdout: (t) => void (out += t) });
    try {
      const code = await main(['node', 'data-import', 'registrations', 'list', '--supplier', 'DEMO_ENERGY', '--status', 'MARKED', '--json']);
      expect(code).toBe(0);
    } finally {
      restore();
    }
    const listed = JSON.parse(out) as { external_account_number: string; mpxn: string; status: string }[];
    const mine = listed.filter((r) => r.external_account_number === ext('GIVEN'));
    expect(mine.map((r) => [r.mpxn, r.status]).sort()).toEqual([
      [MPAN, 'MARKED'],
      [MPRN, 'MARKED'],
    ]);
  });
});
