/**
 * The error codes no other test reaches, each asserted by its code and the documented shape
 * (docs/api.md, "Errors"; the OpenAPI document's Unavailable and InternalError answers):
 * - service_unavailable: /readyz with PostgreSQL, NATS and Temporal each silenced in turn (a TCP
 *   proxy in front of the real server holds every byte, as a dead host does): 503, the code, and
 *   the dependency named; healed, 200 again;
 * - request_timeout: a status request whose PostgreSQL falls silent, on an app with a short
 *   REQUEST_TIMEOUT_MS: 503 request_timeout, not a hang;
 * - internal_error: a forced unexpected error (the registration route's Temporal client throws a
 *   TypeError): 500 in the documented shape, no stack trace or message of the error in the answer,
 *   and the error logged once, with its stack and the request id.
 */
import { Writable } from 'node:stream';
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import request from 'supertest';
import { createApp } from '../../api/app';
import type { AppDeps } from '../../api/deps';
import { createDb, postgresCheck } from '../../db/knex';
import { connectNats, type NatsConnection } from '../../events/nats';
import { natsCheck, temporalCheck } from '../../lib/readiness';
import { documentAjv } from '../support/openapiDocument';
import { startSilentProxy, SilentProxy } from '../support/silentProxy';
import { eventually, startStack, Stack } from '../support/stack';
import { TEST_NATS_URL, TEST_TEMPORAL_ADDRESS } from '../support/env';

jest.setTimeout(120_000);

describe('service_unavailable, request_timeout and internal_error on the real servers', () => {
  let s: Stack;
  const ajv = documentAjv();
  const shapeOf = (response: string) => ajv.compile({ $ref: `openapi.json#/components/responses/${response}/content/application~1json/schema` });
  const conforms = (response: 'Unavailable' | 'InternalError', body: unknown) => {
    const valid = shapeOf(response);
    expect({ body, errors: valid(body) ? null : valid.errors }).toEqual({ body, errors: null });
  };

  const proxies: SilentProxy[] = [];
  const hostPort = (address: string) => [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))] as const;
  let pg: SilentProxy;
  let nats: SilentProxy;
  let temporal: SilentProxy;
  let db: ReturnType<typeof createDb>;
  let nc: NatsConnection;
  let connection: Connection;

  beforeAll(async () => {
    s = await startStack({ relay: false, worker: false });
    const pgUrl = new URL(s.t.url);
    pg = await startSilentProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
    const natsUrl = new URL(TEST_NATS_URL);
    nats = await startSilentProxy(natsUrl.hostname, Number(natsUrl.port || 4222));
    temporal = await startSilentProxy(...hostPort(TEST_TEMPORAL_ADDRESS));
    proxies.push(pg, nats, temporal);
    const viaProxy = new URL(s.t.url);
    [viaProxy.hostname, viaProxy.port] = [hostPort(pg.address)[0], String(hostPort(pg.address)[1])];
    db = createDb(viaProxy.toString(), 2);
    nc = await connectNats(`nats://${nats.address}`, 'error-codes-test');
    connection = await Connection.connect({ address: temporal.address });
  });
  afterAll(async () => {
    proxies.forEach((p) => p.heal());
    await db?.destroy();
    await nc?.close();
    await connection?.close();
    await Promise.all(proxies.map((p) => p.close()));
    await s?.stop();
  });

  /** The app over the stack's dependencies, its PostgreSQL, NATS and Temporal reached through the proxies. */
  const proxiedApp = (over: Partial<AppDeps> = {}) =>
    createApp({
      ...s.deps,
      db,
      temporal: new Client({ connection, namespace: s.config.temporal.namespace }),
      readiness: { postgres: postgresCheck(db), nats: natsCheck(nc), temporal: temporalCheck(connection) },
      ...over,
    });

  describe('service_unavailable: /readyz with each dependency down in turn', () => {
    for (const name of ['postgres', 'nats', 'temporal'] as const) {
      it(`names ${name} when it does not answer, and is ready again once it does`, async () => {
        const app = proxiedApp();
        const proxy = { postgres: pg, nats, temporal }[name];
        expect((await request(app.callback()).get('/readyz')).status).toBe(200);
        proxy.silence();
        try {
          const res = await request(app.callback()).get('/readyz');
          expect(res.status).toBe(503);
          expect(res.body).toMatchObject({ status: 'unavailable', code: 'service_unavailable', detail: `Not reachable: ${name}.` });
          // The others answered: only the silent one is named.
          for (const other of ['postgres', 'nats', 'temporal'].filter((n) => n !== name)) expect(res.body.checks[other]).toEqual({ status: 'ok' });
          expect(res.body.checks[name]).toMatchObject({ status: 'unavailable', detail: expect.any(String) });
        } finally {
          proxy.heal();
        }
        // Ready again once the dependency answers (its client may take a moment to resume).
        await eventually(async () => (await request(app.callback()).get('/readyz')).status === 200, 60_000, 250);
      });
    }
  });

  it('request_timeout: a status request whose PostgreSQL does not answer gets 503 request_timeout, not a hang', async () => {
    const external = s.ext('TIMEOUT');
    const app = proxiedApp({ config: { ...s.config, http: { ...s.config.http, requestTimeoutMs: 1000 } } });
    const auth = await s.authHeader('DEMO_ENERGY');
    // Authentication reads the stack's own database; the status read goes through the proxy.
    pg.silence();
    try {
      const res = await request(app.callback()).get(`/v2/data-import/accounts/DEMO_ENERGY/${external}/`).set(auth);
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('request_timeout');
      conforms('Unavailable', res.body);
    } finally {
      pg.heal();
    }
    // Healed, the same request answers as ever (nothing of that account exists).
    const after = await request(app.callback()).get(`/v2/data-import/accounts/DEMO_ENERGY/${external}/`).set(auth);
    expect(after.status).toBe(404);
    expect(after.body.code).toBe('not_found');
  });

  it('internal_error: a forced unexpected error answers 500 in the documented shape, no stack trace, logged once', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    const log = pino({ level: 'info' }, sink);
    const secret = 'forced failure 7f3a: do not show me';
    const broken = { workflow: { execute: () => Promise.reject(new TypeError(secret)) } } as unknown as Client;
    const app = createApp({ ...s.deps, log, temporal: broken });
    const res = await request(app.callback())
      .post(`/v1/data-import/send-registration-flows/DEMO_ENERGY/${s.ext('BROKEN')}/`)
      .set(await s.authHeader('DEMO_ENERGY'))
      .send({});
    expect(res.status).toBe(500);
    expect(res.body.code).toBe('internal_error');
    conforms('InternalError', res.body);
    expect(res.text).not.toContain(secret);
    expect(res.text).not.toMatch(/TypeError|\n\s+at |\.ts:\d+/);
    const requestId = res.headers['x-request-id'];
    expect(requestId).toEqual(expect.any(String));
    // Logged once, with the stack and the request id; the access line records the 500 without the error.
    const withError = lines.filter((l) => JSON.stringify(l).includes(secret));
    expect(withError).toHaveLength(1);
    expect(withError[0]).toMatchObject({ msg: 'unhandled error', requestId, err: expect.objectContaining({ type: 'TypeError', stack: expect.stringContaining(secret) }) });
    expect(lines.filter((l) => l.requestId === requestId && l.status === 500)).toHaveLength(1);
  });
});
