import { proxyActivities, setWorkflowOptions } from '@temporalio/workflow';
import type { createRegistrationActivities } from '../activities/registration';
import type { RegistrationOutcome, RegistrationRequest } from '../registration/types';

/** Input of one send-registration-flows request (the API's query and path, and the caller). */
export type RegistrationFlowsInput = RegistrationRequest;
export type RegistrationFlowsResult = RegistrationOutcome;

type Activities = ReturnType<typeof createRegistrationActivities>;

// The HTTP caller waits for the answer: database outages retry briefly (about a minute in all)
// rather than the import's five minutes; the caller may simply send the request again.
const { markMeterPointsForRegistration } = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 8 },
});

/**
 * send-registration-flows for one account: its activity decides and marks every meter point in
 * one PostgreSQL transaction (registration/markForRegistration.ts). A workflow, not a plain
 * transaction in the API, so the operation is visible and retried in Temporal like the import.
 */
export async function registrationFlows(input: RegistrationFlowsInput): Promise<RegistrationFlowsResult> {
  return await markMeterPointsForRegistration(input);
}

/*
 * Worker Versioning (docs/deploys.md): AUTO_UPGRADE. One activity call and nothing else, so any
 * build continues any history of it; an open request moves to the current build at its next
 * task instead of keeping an old build's workers alive for it.
 */
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, registrationFlows);
