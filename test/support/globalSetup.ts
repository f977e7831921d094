import { dropTestDatabases, prepareTemplateDatabase } from './db';
import { runId } from './env';

export default async function globalSetup(): Promise<void> {
  runId(); // fixes DI_TEST_RUN_ID in the environment the test workers inherit
  await dropTestDatabases(false);
  await prepareTemplateDatabase();
}
