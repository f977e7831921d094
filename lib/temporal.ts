import { Client, Connection, type ConnectionLike } from '@temporalio/client';
import type { Config } from './config';
import { activeTracing } from './tracing';

/**
 * The Temporal client of a process. With tracing on (lib/tracing.ts), starting a workflow is a
 * span of the caller's trace (`StartWorkflow:<type>`) and its context travels in the workflow's
 * headers, so the workflow's run and steps continue the trace.
 */
export async function connectTemporal(t: Config['temporal']): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect(temporalConnectionOptions(t));
  return { client: temporalClient(t, connection), connection };
}

/** Where and how every connection of the service reaches Temporal: the client's above, the workers' NativeConnection. */
export function temporalConnectionOptions(t: Config['temporal']): { address: string; tls: Config['temporal']['tls'] | undefined; apiKey: Config['temporal']['apiKey'] } {
  return { address: t.address, tls: t.tls || undefined, apiKey: t.apiKey };
}

/**
 * A client of the namespace over a connection: the one above, or a worker's NativeConnection (a
 * start through it may hand the first workflow task to that worker: api/eagerStart.ts).
 */
export function temporalClient(t: Config['temporal'], connection: ConnectionLike): Client {
  // Loaded only with tracing on: an untraced process never loads the OpenTelemetry SDK.
  const otel = activeTracing() ? (require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry')) : null;
  const interceptors = otel ? { workflow: [new otel.OpenTelemetryWorkflowClientInterceptor()] } : undefined;
  return new Client({ connection, namespace: t.namespace, interceptors });
}
