/**
 * What the fuzz run (test/fuzz/run.ts) counts: the operations of the OpenAPI document it fuzzes,
 * each one a unit of the test command's count (scripts/lib/testcount.js). An operation passes when
 * schemathesis reported it with no failure and the API counted requests on it during the run (its
 * "cases" in the run's table); it fails when schemathesis failed it, or when it is missing from the
 * run (no report, or no request reached it). docs/api-fuzzing.md, "What the run counts".
 */

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** `METHOD /path` of every operation of an OpenAPI document, in its order. */
export function documentOperations(doc: { paths?: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(doc.paths ?? {}).flatMap(([p, item]) => Object.keys(item ?? {}).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${p}`));
}

/**
 * A route with its parameters blanked, `{name}` (OpenAPI) and `:name` (the router) alike, and no
 * trailing slash (a router mounted at `/v2/data-import/accounts` records its `/` route without it).
 */
const shape = (op: string) => op.replace(/\{[^}/]+\}|:[A-Za-z0-9_]+/g, '{}').replace(/(.)\/$/, '$1');

/** The <testcase> elements of schemathesis' JUnit report: name → outcome. */
export function junitOutcomes(xml: string): Map<string, 'passed' | 'failed' | 'skipped'> {
  const out = new Map<string, 'passed' | 'failed' | 'skipped'>();
  for (const m of xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const name = /\bname="([^"]*)"/.exec(m[1] ?? '')?.[1];
    if (name === undefined) continue;
    const body = m[2] ?? '';
    const outcome = /<(failure|error)\b/.test(body) ? 'failed' : /<skipped\b/.test(body) ? 'skipped' : 'passed';
    out.set(unescapeXml(name), outcome);
  }
  return out;
}

const unescapeXml = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

/** The API's request counter (its /metrics text): `METHOD route` → status → count. */
export function requestCounts(metrics: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const m of metrics.matchAll(/^data_import_http_requests_total\{route="([^"]*)",method="([^"]*)",status="(\d+)"[^}]*\} (\d+)/gm)) {
    const key = `${m[2]} ${m[1]}`;
    const byStatus = out.get(key) ?? new Map<string, number>();
    byStatus.set(m[3]!, (byStatus.get(m[3]!) ?? 0) + Number(m[4]));
    out.set(key, byStatus);
  }
  return out;
}

export interface OperationResult {
  operation: string;
  outcome: 'passed' | 'failed' | 'skipped';
  /** requests the API counted on the operation during the run, by status */
  cases: number;
  statuses: string;
  why: string;
}

/**
 * Each expected operation's outcome from schemathesis' report and the API's request counts
 * (`after` minus `before`, the counter read before schemathesis started: the run's own setup
 * requests do not count). `missingIs` is what a missing operation counts as: 'failed', or
 * 'skipped' for a run narrowed on purpose (FUZZ_PARTIAL=1). `loaded` is the operation that serves
 * the document schemathesis loads (`GET /openapi.json`): schemathesis leaves it out of its
 * operations, and its load is the operation's case (it passes when the API answered it 200).
 */
export function operationResults(
  expected: string[],
  junit: Map<string, 'passed' | 'failed' | 'skipped'>,
  before: Map<string, Map<string, number>>,
  after: Map<string, Map<string, number>>,
  missingIs: 'failed' | 'skipped' = 'failed',
  loaded?: string,
): OperationResult[] {
  const byShape = (counts: Map<string, Map<string, number>>) => {
    const out = new Map<string, Map<string, number>>();
    for (const [op, statuses] of counts) out.set(shape(op), statuses);
    return out;
  };
  const b = byShape(before);
  const a = byShape(after);
  return expected.map((operation) => {
    const statuses = [...(a.get(shape(operation)) ?? new Map<string, number>())]
      .map(([status, n]) => [status, n - (b.get(shape(operation))?.get(status) ?? 0)] as const)
      .filter(([, n]) => n > 0)
      .sort(([x], [y]) => x.localeCompare(y));
    const cases = statuses.reduce((n, [, c]) => n + c, 0);
    const reported = operation === loaded && !junit.has(operation) ? (statuses.some(([st]) => st === '200') ? 'passed' : undefined) : junit.get(operation);
    const serverErrors = statuses.filter(([s]) => s.startsWith('5'));
    let outcome: OperationResult['outcome'] = 'passed';
    let why = '';
    if (reported === 'failed') [outcome, why] = ['failed', 'schemathesis reported a failure'];
    else if (serverErrors.length > 0) [outcome, why] = ['failed', `the API counted ${serverErrors.map(([s, n]) => `${s}×${n}`).join(' ')}`];
    else if (reported === undefined) [outcome, why] = [missingIs, operation === loaded ? 'schemathesis did not load the document from it' : 'missing from the run: schemathesis did not report it'];
    else if (operation === loaded && !junit.has(operation)) why = 'the document schemathesis loaded';
    else if (cases === 0) [outcome, why] = [missingIs, `missing from the run: no request reached it (schemathesis: ${reported})`];
    return { operation, outcome, cases, statuses: statuses.map(([s, n]) => `${s}×${n}`).join(' '), why };
  });
}
