/**
 * In-process benchmark of the Account validator: `npx tsx bench/validate.ts`.
 * Prints validations/s, median and p99 latency for a small, a large and a full account (every
 * field of the platform's Account: `generate --profile full`), and where the time goes
 * (JSON.parse, schema check, everything after the schema: domain + reference rules, warnings,
 * normalisation). Targets: the large account under 1 ms median, the full one under 2 ms. Then the same over HTTP
 * (BENCH_HTTP=0 skips it; needs `npm run build`). Last, the hostile payload of
 * test/unit/account/bounds.test.ts (5 gas meters × LIMITS.readings malformed readings): its
 * median time, target under 500 ms (the unit test checks the bounded error list, not the time).
 */
import { IssueList } from '../account/issues';
import { buildReferenceData, DEFAULT_REFERENCE_DATA_ROWS } from '../account/referenceData';
import { checkAccountShape } from '../account/shape';
import { createAccountValidator } from '../account/validator';
import { LIMITS } from '../account/schema';
import { buildLargeAccount, buildSmallAccount } from './fixtures';
import { createRng, generateAccount } from '../cli/generate';
import { cpuSeconds, obtainToken, startBenchStack, writeResult } from './lib/stack';

const reference = buildReferenceData(DEFAULT_REFERENCE_DATA_ROWS);
const validator = createAccountValidator({
  referenceData: () => reference,
  suppliers: async (code) => ({ code, status: 'Ongoing', documentRoot: '/srv/documents', checkDocumentExistence: false, sendCustomerEmails: true }),
  documentStore: { exists: async () => true },
  now: () => new Date('2026-11-21T10:00:00Z'),
});

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p99: at(0.99) };
}

async function measure(fn: () => unknown, iterations: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return samples;
}

async function bench(name: string, account: unknown, iterations: number) {
  const json = JSON.stringify(account);
  const first = await validator.validate(JSON.parse(json), { mode: 'create' });
  if (!first.ok) throw new Error(`${name} account is not valid: ${JSON.stringify(first.errors.slice(0, 5))}`);
  const parsed = JSON.parse(json);
  // Warm up the JIT before measuring.
  await measure(() => validator.validate(parsed, { mode: 'create' }), Math.min(iterations, 500));
  const parse = stats(await measure(() => JSON.parse(json), iterations));
  const schema = stats(await measure(() => checkAccountShape(parsed, new IssueList()), iterations));
  const totalSamples = await measure(() => validator.validate(parsed, { mode: 'create' }), iterations);
  const total = stats(totalSamples);
  const seconds = totalSamples.reduce((s, x) => s + x, 0) / 1000;
  return {
    account: name,
    bytes: json.length,
    'validations/s': Math.round(iterations / seconds),
    'median ms': total.median.toFixed(3),
    'p99 ms': total.p99.toFixed(3),
    'JSON.parse ms': parse.median.toFixed(3),
    'schema ms': schema.median.toFixed(3),
    'rules+rest ms': Math.max(0, total.median - schema.median).toFixed(3),
  };
}

/**
 * The same payloads over HTTP: POST /v2/data-import/accounts/validate/ on the API running as its
 * own process (dist/api/main.js), driven by autocannon for 10 s with 16 connections.
 */
async function http(small: unknown, large: unknown) {
  const autocannon = (await import('autocannon')).default;
  // BENCH_PROFILE=<dir> writes a V8 CPU profile of the API there.
  const stack = await startBenchStack({ apiNodeArgs: process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [] });
  try {
    const token = await obtainToken(stack.apiUrl, stack.apiKey);
    const out = [];
    // BENCH_HTTP_ACCOUNTS=small (or large) runs one of the two (for a profile of one).
    const only = process.env.BENCH_HTTP_ACCOUNTS;
    for (const [name, account] of [['small (example)', small], ['large', large]] as const) {
      if (only && !name.startsWith(only)) continue;
      const cpuBefore = cpuSeconds(stack.api.pid!);
      const result = await autocannon({
        url: `${stack.apiUrl}/v2/data-import/accounts/validate/`,
        method: 'POST',
        connections: 16,
        duration: Number(process.env.BENCH_HTTP_SECONDS ?? 10),
        headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
        body: JSON.stringify(account),
      });
      if (result.non2xx > 0) throw new Error(`${name}: ${result.non2xx} non-2xx answers`);
      const apiCpuMs = ((cpuSeconds(stack.api.pid!) - cpuBefore) * 1000) / result.requests.total;
      out.push({
        account: name,
        'requests/s': Math.round(result.requests.average),
        'median ms': result.latency.p50,
        'p99 ms': result.latency.p99,
        'API CPU ms/request': Number(apiCpuMs.toFixed(3)),
      });
    }
    return { rows: out, apiPeakRssMiB: stack.peakRssMiB(stack.api) };
  } finally {
    await stack.stop();
  }
}

/** The hostile payload: every reading of 5 gas meters at the per-meter cap malformed. Median and worst of a few runs, ms. */
async function hostile(): Promise<{ account: string; 'median ms': number; 'max ms': number; 'target ms': number }> {
  const account = buildSmallAccount() as unknown as { supply_addresses: { meter_points: { meters: Record<string, unknown>[] }[] }[] };
  const meters = account.supply_addresses[0]!.meter_points[1]!.meters;
  const bad = { reading_date: '2026-02-30', reading_value: '1e3', reading_type: 'GUESS', billed: 'yes' };
  meters[0] = { ...meters[0], reading_history: Array.from({ length: LIMITS.readings }, () => ({ ...bad })) };
  for (let k = 1; k < 5; k++) meters.push({ ...structuredClone(meters[0]!), meter_serial_number: `G${k}` });
  const samples = await measure(() => validator.validate(account, { mode: 'create' }), 7);
  return { account: `hostile (5 × ${LIMITS.readings} bad readings)`, 'median ms': Number(stats(samples).median!.toFixed(1)), 'max ms': Number(Math.max(...samples).toFixed(1)), 'target ms': 500 };
}

async function main() {
  const small = buildSmallAccount();
  const large = buildLargeAccount();
  // Generated for the validator's day, so that nothing in it lies in the future.
  const full = generateAccount(createRng('bench-validate-full'), { externalAccountNumber: 'BENCH-FULL-000001', today: '2026-11-21', profile: 'full' });
  const rows = [await bench('small (example)', small, 5000), await bench('large', large, 2000), await bench('full (every platform field)', full, 2000)];
  console.table(rows);
  console.log('validations/s, median, p99: validate() on an already-parsed body; JSON.parse and schema are medians measured alone.');
  const hostileRow = await hostile();
  console.table([hostileRow]);
  let httpRows: Awaited<ReturnType<typeof http>> | undefined;
  if (process.env.BENCH_HTTP !== '0') {
    httpRows = await http(small, large);
    console.table(httpRows.rows);
    httpRows.rows.forEach((h) => {
      const inProcess = rows.find((r) => r.account === h.account)!['validations/s'];
      console.log(`${h.account}: HTTP ${h['requests/s']}/s = ${((h['requests/s'] / inProcess) * 100).toFixed(0)} % of in-process ${inProcess}/s`);
    });
  }
  console.log(`written ${writeResult('validate', { inProcess: rows, hostile: hostileRow, http: httpRows?.rows ?? null })}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
