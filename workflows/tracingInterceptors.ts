/**
 * The workflow interceptors of the traced bundle (worker/workflowBundles.ts, docs/tracing.md): the
 * OpenTelemetry ones of `@temporalio/interceptors-opentelemetry`, for the imports whose trace is
 * sampled only. Their modules (the OpenTelemetry SDK inside the sandbox) are initialised again for
 * every workflow that loads them, which costs more than the rest of an import's workflow
 * (bench/RESULTS.md "Tracing"); an import that is not sampled would make no span with them anyway
 * (the sampling decision follows the create request), so it runs without them, as a worker with
 * tracing off runs it. The import's memo says which (`traceSampled`, imports/startWorkflow.ts).
 * Other workflow types, rare, are always traced.
 *
 * The memo is known once the workflow is initialised, after the interceptors are made: these
 * stand-ins pass every call on until then, and from the workflow's start (`execute`, the first
 * intercepted call) to the OpenTelemetry interceptors, loaded then, or to nothing.
 *
 * Not a workflow: the interceptors factory. Deterministic: the memo is fixed at the start, and
 * these interceptors add spans and headers, never commands.
 */
import { workflowInfo, type WorkflowInterceptors } from '@temporalio/workflow';
import type { interceptors as otelInterceptors } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';

type Kind = 'inbound' | 'outbound' | 'internals';
/** Every method the OpenTelemetry interceptors implement, by kind. */
const METHODS: Record<Kind, string[]> = {
  inbound: ['execute', 'handleSignal', 'handleUpdate', 'validateUpdate', 'handleQuery'],
  outbound: ['scheduleActivity', 'scheduleLocalActivity', 'startNexusOperation', 'startChildWorkflowExecution', 'continueAsNew', 'signalWorkflow', 'getLogAttributes', 'getMetricTags'],
  internals: ['dispose'],
};

type Interceptor = Record<string, ((input: unknown, next: (input: unknown) => unknown) => unknown) | undefined>;

export const interceptors = (): WorkflowInterceptors => {
  /** undefined: not decided yet; null: not traced. */
  let otel: WorkflowInterceptors | null | undefined;
  const decided = (): WorkflowInterceptors | null | undefined => {
    if (otel !== undefined) return otel;
    const info = workflowInfo();
    if (info.memo === undefined) return undefined; // not initialised yet
    const traced = info.workflowType !== 'accountImport' || info.memo.traceSampled === true;
    // Required here, not at the top: an import that is not sampled never evaluates these modules.
    otel = traced ? (require('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors') as { interceptors: typeof otelInterceptors }).interceptors() : null;
    return otel;
  };
  const standIn = (kind: Kind): Interceptor =>
    Object.fromEntries(
      METHODS[kind].map((method) => [
        method,
        (input: unknown, next: (input: unknown) => unknown) => {
          const target = (decided()?.[kind]?.[0] as Interceptor | undefined)?.[method];
          return target ? target.call(decided()![kind]![0], input, next) : next(input);
        },
      ]),
    );
  return { inbound: [standIn('inbound')], outbound: [standIn('outbound')], internals: [standIn('internals')] } as WorkflowInterceptors;
};
