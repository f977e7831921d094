import Router from '@koa/router';
import { buildAsyncApiDocument } from '../../events/asyncapi';
import { buildOpenApiDocument } from '../openapi';

/**
 * The API documents, open to everyone (no authentication): `GET /openapi.json` (REST + the
 * GraphQL token endpoint) and `GET /asyncapi.json` (the events, with this deployment's subject
 * prefix). Both are generated from the schemas the service validates with, once, on first use.
 */
export function docsRouter(opts: { subjectPrefix: string }): Router {
  let openapi: string | undefined;
  let asyncapi: string | undefined;
  const r = new Router();
  r.get('/openapi.json', (ctx) => {
    openapi ??= JSON.stringify(buildOpenApiDocument());
    ctx.type = 'application/json';
    ctx.body = openapi;
  });
  r.get('/asyncapi.json', (ctx) => {
    asyncapi ??= JSON.stringify(buildAsyncApiDocument({ subjectPrefix: opts.subjectPrefix }));
    ctx.type = 'application/json';
    ctx.body = asyncapi;
  });
  return r;
}
