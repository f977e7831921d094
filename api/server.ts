import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Config } from '../lib/config';

/**
 * The API's listener: HTTP, or HTTPS with API_TLS_CERT/API_TLS_KEY (the load balancer's link to
 * this host encrypted, docs/scaling.md), with the server's timeouts either way.
 */
export function createApiServer(c: Config['http'], handler: http.RequestListener): http.Server | https.Server {
  const server = c.tls ? https.createServer({ cert: fs.readFileSync(c.tls.cert), key: fs.readFileSync(c.tls.key), minVersion: 'TLSv1.2' }, handler) : http.createServer(handler);
  server.requestTimeout = c.requestTimeoutMs + 5000;
  server.headersTimeout = 20_000;
  server.keepAliveTimeout = 65_000;
  return server;
}
