import fs from 'node:fs';
import { Client, Connection, type ConnectionLike, type TLSConfig } from '@temporalio/client';
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

/**
 * Where and how every connection of the service reaches Temporal: the client's above, the workers'
 * NativeConnection. With TLS settings (lib/config.ts temporalTls): the server's certificate checked
 * against TEMPORAL_TLS_CA (else the system's CAs) for TEMPORAL_TLS_SERVER_NAME (else the address's
 * host), and this process's certificate (TEMPORAL_TLS_CERT/KEY) for a server that asks for one
 * (mutual TLS). The files are read here, at each connect: a renewed certificate is used at the
 * next start.
 */
export function temporalConnectionOptions(t: Config['temporal']): { address: string; tls: TLSConfig | undefined; apiKey: Config['temporal']['apiKey'] } {
  return { address: t.address, tls: temporalTlsConfig(t.tls), apiKey: t.apiKey };
}

function temporalTlsConfig(tls: Config['temporal']['tls']): TLSConfig | undefined {
  if (!tls) return undefined;
  return {
    ...(tls.serverName && { serverNameOverride: tls.serverName }),
    ...(tls.ca && { serverRootCACertificate: fs.readFileSync(tls.ca) }),
    ...(tls.cert && tls.key && { clientCertPair: { crt: fs.readFileSync(tls.cert), key: fs.readFileSync(tls.key) } }),
  };
}

/** A client of the namespace over a connection: the one above, or a worker's NativeConnection. */
export function temporalClient(t: Config['temporal'], connection: ConnectionLike): Client {
  // Loaded only with tracing on: an untraced process never loads the OpenTelemetry SDK.
  const otel = activeTracing() ? (require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry')) : null;
  const interceptors = otel ? { workflow: [new otel.OpenTelemetryWorkflowClientInterceptor()] } : undefined;
  return new Client({ connection, namespace: t.namespace, interceptors });
}
