import { ReplayError } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { DeploymentError, deploymentError } from '../../../deploys/versions';
import { replayOutcome } from '../../../deploys/replay';

/**
 * Temporal's errors told apart by what they are — the gRPC status code of a deployment call
 * (deploys/versions.ts), the class of a replay's error (deploys/replay.ts) — never by their
 * wording: each case gives an error whose code or class says one thing and whose words say another.
 */

/** A gRPC ServiceError as the client raises it (code, details, metadata). */
const grpcError = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });

const NOT_FOUND = 5;
const FAILED_PRECONDITION = 9;
const INVALID_ARGUMENT = 3;
const ABORTED = 10;

async function reasonOf(err: unknown, buildId?: string, exists?: boolean): Promise<string> {
  const e = await deploymentError(err, 'data-import', buildId, exists === undefined ? undefined : async () => exists);
  return e instanceof DeploymentError ? e.reason : 'passed through';
}

describe('deployment errors are told apart by their gRPC status code', () => {
  it('a NOT_FOUND about a build is the build when the deployment exists, whatever its words', async () => {
    expect(await reasonOf(grpcError(NOT_FOUND, 'deployment not found'), 'B', true)).toBe('unknown_build');
    expect(await reasonOf(grpcError(NOT_FOUND, "build ID 'B' not found in Worker Deployment 'data-import'"), 'B', false)).toBe('not_found');
    expect(await reasonOf(grpcError(NOT_FOUND, 'build id B is unknown'))).toBe('not_found');
  });

  it('a FAILED_PRECONDITION is refused, whether or not it speaks of pollers', async () => {
    expect(await reasonOf(grpcError(FAILED_PRECONDITION, 'something else went wrong'), 'B', true)).toBe('refused');
    expect(await reasonOf(grpcError(FAILED_PRECONDITION, 'version has no pollers'), 'B', true)).toBe('refused');
  });

  it('other codes keep their reason; words of another code change nothing', async () => {
    expect(await reasonOf(grpcError(INVALID_ARGUMENT, 'no pollers; build id not found; conflict'))).toBe('invalid');
    expect(await reasonOf(grpcError(ABORTED, 'invalid argument'))).toBe('conflict');
    expect(await reasonOf(grpcError(14, 'not found'))).toBe('unavailable');
    expect(await reasonOf(grpcError(13, 'not found'))).toBe('passed through');
  });

  it('an error that is not a gRPC one passes through, whatever it says', async () => {
    const plain = new Error('5 NOT_FOUND: build id not found');
    expect(await deploymentError(plain, 'data-import', 'B', async () => true)).toBe(plain);
  });

  it('the existence check is asked only for a NOT_FOUND about a build', async () => {
    const exists = jest.fn(async () => true);
    await deploymentError(grpcError(FAILED_PRECONDITION, 'no pollers'), 'data-import', 'B', exists);
    await deploymentError(grpcError(NOT_FOUND, 'x'), 'data-import', undefined, exists);
    expect(exists).not.toHaveBeenCalled();
    await deploymentError(grpcError(NOT_FOUND, 'x'), 'data-import', 'B', exists);
    expect(exists).toHaveBeenCalledTimes(1);
  });
});

describe('a replay is non-deterministic by the class of its error', () => {
  it('a DeterminismViolationError in any words is non_deterministic', () => {
    expect(replayOutcome(new DeterminismViolationError('the history does not match the code'))).toBe('non_deterministic');
  });

  it('a ReplayError that speaks of nondeterminism is still a failed replay', () => {
    expect(replayOutcome(new ReplayError('Replay failed due to internal SDK issue. Details: Nondeterminism suspected'))).toBe('failed');
  });

  it('no error is ok', () => {
    expect(replayOutcome(undefined)).toBe('ok');
  });
});
