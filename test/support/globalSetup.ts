import { dropTestDatabases, prepareTemplateDatabase } from './db';
import { runId } from './env';
import { prepareTestWorkflowBundle } from './workflowBundle';

export default async function globalSetup(): Promise<void> {
  runId(); // fixes DI_TEST_RUN_ID in the environment the test workers inherit
  await dropTestDatabases(false);
  // The migrations wait on PostgreSQL, the bundler on the CPU: side by side.
  await Promise.all([prepareTemplateDatabase(), prepareTestWorkflowBundle()]);
}
