/** Where the prebuilt workflow bundles are, and what the traced one adds (scripts/bundle-workflows.ts builds both; worker/main.ts picks one). */

/**
 * The tracing workflow interceptors module (the OpenTelemetry ones, for the sampled imports:
 * workflows/tracingInterceptors.ts): bundled into the traced workflow bundle, or given to the
 * worker that bundles from source.
 */
export const WORKFLOW_TRACING_INTERCEPTORS = require.resolve('../workflows/tracingInterceptors');

/** The prebuilt bundles next to the build (scripts/bundle-workflows.ts writes both). */
export function workflowBundlePaths(dir: string): { plain: string; traced: string } {
  return { plain: `${dir}/workflow-bundle.js`, traced: `${dir}/workflow-bundle-traced.js` };
}
