/**
 * The worker's tracing (lib/tracing.ts), started by the first import of worker/main.ts so that
 * the PostgreSQL module is instrumented when it is first loaded. Off unless an OTLP endpoint is
 * set (docs/tracing.md).
 */
import { startProcessTracing } from '../lib/tracing';

startProcessTracing('data-import-worker');
