import { buildAsyncApiDocument } from '../events/asyncapi';
import { json } from '../http/openapi';
import { operation } from '../http/operation';
import type { Config } from '../lib/config';

/**
 * The API documents, open to everyone (no authentication): `GET /openapi.json` (REST + the
 * GraphQL token endpoint) and `GET /asyncapi.json` (the events, with this deployment's subject
 * prefix). Both are generated from the schemas the service validates with, once, on first use;
 * the OpenAPI document from the operations the API mounts (api/openapi.ts), which the wiring
 * hands here (api/router.ts) as `openApiDocument`.
 */
export const documentOperations = [
  operation({
    method: 'get',
    path: '/openapi.json',
    open: true,
    handler: (deps: { openApiDocument: () => unknown }) => {
      let text: string | undefined;
      return (ctx) => {
        text ??= JSON.stringify(deps.openApiDocument());
        ctx.type = 'application/json';
        ctx.body = text;
      };
    },
    openapi: { operationId: 'openApiDocument', tags: ['operations'], security: [], responses: { '200': json({ type: 'object' }, 'This document.') } },
  }),
  operation({
    method: 'get',
    path: '/asyncapi.json',
    open: true,
    handler: (deps: { config: Pick<Config, 'nats'> }) => {
      let text: string | undefined;
      return (ctx) => {
        text ??= JSON.stringify(buildAsyncApiDocument({ subjectPrefix: deps.config.nats.subjectPrefix }));
        ctx.type = 'application/json';
        ctx.body = text;
      };
    },
    openapi: { operationId: 'asyncApiDocument', tags: ['operations'], security: [], responses: { '200': json({ type: 'object' }, 'The AsyncAPI 3.0 document of the events.') } },
  }),
];
