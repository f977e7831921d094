import { Client, Connection } from '@temporalio/client';
import type { Config } from './config';

export async function connectTemporal(t: Config['temporal']): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({
    address: t.address,
    tls: t.tls || undefined,
    apiKey: t.apiKey,
  });
  const client = new Client({ connection, namespace: t.namespace });
  return { client, connection };
}
