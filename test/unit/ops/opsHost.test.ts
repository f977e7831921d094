import type { Knex } from 'knex';
import request from 'supertest';
import pino from 'pino';
import { createOpsApp } from '../../../ops/server';

/** The page's Host check (DNS rebinding, issue 39); no database is reached by these requests. */
describe('the operations page and the Host header', () => {
  const deps = (token?: string) => ({
    db: {} as Knex,
    log: pino({ level: 'silent' }),
    temporal: { uiUrl: 'http://127.0.0.1:8233', namespace: 'default' },
    token,
    deployment: async () => {
      throw new Error('not reached');
    },
  });

  it('without a token answers a loopback Host only: a rebound name is answered 404', async () => {
    const app = createOpsApp(deps()).callback();
    for (const host of ['127.0.0.1:8001', 'localhost:8001', '[::1]:8001', 'LOCALHOST']) {
      expect((await request(app).get('/openapi.json').set('Host', host)).status).toBe(200);
    }
    for (const host of ['evil.example:8001', 'evil.example', '127.0.0.1.evil.example:8001']) {
      const res = await request(app).get('/openapi.json').set('Host', host);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  it('with a token, the token protects it whatever the Host', async () => {
    const app = createOpsApp(deps('0123456789abcdef-token')).callback();
    expect((await request(app).get('/openapi.json').set('Host', 'ops.internal:8001')).status).toBe(401);
    expect((await request(app).get('/openapi.json').set('Host', 'ops.internal:8001').set('Authorization', 'Bearer 0123456789abcdef-token')).status).toBe(200);
  });
});
