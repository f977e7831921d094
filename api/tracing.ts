/**
 * The API's tracing (lib/tracing.ts), started by the first import of api/main.ts so that the HTTP
 * and PostgreSQL modules are instrumented when they are first loaded. Off unless an OTLP endpoint
 * is set (docs/tracing.md).
 */
import { startProcessTracing } from '../lib/tracing';

startProcessTracing('data-import-api');
