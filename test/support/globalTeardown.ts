import { dropTestDatabases } from './db';

export default async function globalTeardown(): Promise<void> {
  await dropTestDatabases(true);
}
