import { dropTestDatabases } from './db';
import { removeTestWorkflowBundle } from './workflowBundle';

export default async function globalTeardown(): Promise<void> {
  removeTestWorkflowBundle();
  await dropTestDatabases(true);
}
