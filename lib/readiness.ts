import type { Connection } from '@temporalio/client';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';

export const natsCheck = (nc: NatsConnection) => async () => {
  if (nc.isClosed()) throw new Error('connection closed');
  // JetStream must answer, not just the core server.
  const jsm = await jetstreamManager(nc, { timeout: 1500 });
  await jsm.getAccountInfo();
};

export const temporalCheck = (connection: Connection) => async () => {
  await connection.workflowService.getSystemInfo({});
};
