import { documentOperations, junitOutcomes, operationResults, requestCounts } from '../../fuzz/operations';
import { buildOpenApiDocument } from '../../../api/openapi';

/** What the fuzz run counts (test/fuzz/operations.ts): every operation of the document, each with the requests that reached it. */
describe('the fuzz count: every operation of the document in the run', () => {
  const doc = { paths: { '/v2/a/': { post: {}, parameters: [] }, '/v2/a/{supplier}/{number}/': { get: {} }, '/healthz': { get: {} } } };
  const expected = documentOperations(doc);
  const junit = (cases: Record<string, string>) =>
    `<?xml version="1.0" encoding="utf-8"?>\n<testsuites><testsuite name="schemathesis">${Object.entries(cases)
      .map(([name, body]) => (body ? `<testcase name="${name}" time="1.0">${body}</testcase>` : `<testcase name="${name}" time="1.0" />`))
      .join('')}</testsuite></testsuites>`;
  const metrics = (lines: [string, string, string, number][]) =>
    lines.map(([route, method, status, n]) => `data_import_http_requests_total{route="${route}",method="${method}",status="${status}",service="api"} ${n}`).join('\n');
  const allSeen = requestCounts(
    metrics([
      ['/v2/a/', 'POST', '400', 90],
      ['/v2/a/', 'POST', '201', 10],
      ['/v2/a/:supplier/:external/', 'GET', '404', 50],
      ['/healthz', 'GET', '200', 3],
    ]),
  );

  it("lists the document's operations, not its other path keys", () => {
    expect(expected).toEqual(['POST /v2/a/', 'GET /v2/a/{supplier}/{number}/', 'GET /healthz']);
  });

  it("reads this service's own document at run time: every path and method, /openapi.json included", () => {
    const ops = documentOperations(buildOpenApiDocument() as never);
    expect(ops).toContain('POST /v2/data-import/accounts/');
    expect(ops).toContain('GET /openapi.json');
    expect(ops.length).toBeGreaterThan(20);
  });

  it('passes an operation schemathesis reported without failure and the API saw requests on, with its cases', () => {
    const r = operationResults(expected, junitOutcomes(junit({ 'POST /v2/a/': '', 'GET /v2/a/{supplier}/{number}/': '', 'GET /healthz': '' })), new Map(), allSeen);
    expect(r.map((x) => [x.operation, x.outcome, x.cases, x.statuses])).toEqual([
      ['POST /v2/a/', 'passed', 100, '201×10 400×90'],
      ['GET /v2/a/{supplier}/{number}/', 'passed', 50, '404×50'],
      ['GET /healthz', 'passed', 3, '200×3'],
    ]);
  });

  it('fails an operation missing from the run: not in the report, or no request reached it', () => {
    const r = operationResults(expected, junitOutcomes(junit({ 'POST /v2/a/': '', 'GET /healthz': '' })), new Map(), allSeen);
    expect(r[1]).toMatchObject({ operation: 'GET /v2/a/{supplier}/{number}/', outcome: 'failed', why: expect.stringMatching(/missing from the run/) });
    // Reported, but the only requests were the run's own before schemathesis started.
    const before = requestCounts(metrics([['/healthz', 'GET', '200', 3]]));
    const r2 = operationResults(expected, junitOutcomes(junit({ 'POST /v2/a/': '', 'GET /v2/a/{supplier}/{number}/': '', 'GET /healthz': '<skipped type="skipped">no examples</skipped>' })), before, allSeen);
    expect(r2[2]).toMatchObject({ outcome: 'failed', cases: 0, why: 'missing from the run: no request reached it (schemathesis: skipped)' });
  });

  it('counts a missing operation as skipped only in a run narrowed on purpose', () => {
    const r = operationResults(expected, junitOutcomes(junit({ 'POST /v2/a/': '' })), new Map(), allSeen, 'skipped');
    expect(r.map((x) => x.outcome)).toEqual(['passed', 'skipped', 'skipped']);
  });

  it('matches a route the router records without its trailing slash', () => {
    const seen = requestCounts(metrics([['/v2/a', 'POST', '201', 2]]));
    expect(operationResults(['POST /v2/a/'], junitOutcomes(junit({ 'POST /v2/a/': '' })), new Map(), seen)[0]).toMatchObject({ outcome: 'passed', cases: 2 });
  });

  it('passes the document schemathesis loads by its load (schemathesis does not list it), and fails it when no load reached it', () => {
    const seen = requestCounts(metrics([['/openapi.json', 'GET', '200', 1]]));
    expect(operationResults(['GET /openapi.json'], new Map(), new Map(), seen, 'failed', 'GET /openapi.json')[0]).toMatchObject({ outcome: 'passed', cases: 1, why: 'the document schemathesis loaded' });
    expect(operationResults(['GET /openapi.json'], new Map(), new Map(), new Map(), 'failed', 'GET /openapi.json')[0]).toMatchObject({ outcome: 'failed', cases: 0 });
  });

  it("fails an operation schemathesis failed, or on which the API counted a 5xx", () => {
    const failing = junitOutcomes(junit({ 'POST /v2/a/': '<failure type="failure" message="not_a_server_error">500</failure>', 'GET /v2/a/{supplier}/{number}/': '', 'GET /healthz': '' }));
    expect(operationResults(expected, failing, new Map(), allSeen)[0]).toMatchObject({ outcome: 'failed', why: 'schemathesis reported a failure' });
    const with500 = requestCounts(metrics([['/v2/a/', 'POST', '400', 1], ['/v2/a/:s/:e/', 'GET', '500', 1], ['/healthz', 'GET', '200', 1]]));
    const ok = junitOutcomes(junit({ 'POST /v2/a/': '', 'GET /v2/a/{supplier}/{number}/': '', 'GET /healthz': '' }));
    expect(operationResults(expected, ok, new Map(), with500)[1]).toMatchObject({ outcome: 'failed', why: 'the API counted 500×1' });
  });
});
