/** Where the prebuilt workflow bundles are, and what the traced one adds (scripts/bundle-workflows.ts builds both; worker/main.ts picks one). */

/**
 * The tracing workflow interceptors module (the OpenTelemetry ones, for the sampled imports:
 * workflows/tracingInterceptors.ts): bundled into the traced workflow bundle, or given to the
 * worker that bundles from source.
 */
export const WORKFLOW_TRACING_INTERCEPTORS = require.resolve('../workflows/tracingInterceptors');

/**
 * The modules of the traced bundle evaluated once per workflow thread instead of once per sampled
 * workflow (the bundler's `preloadModules`: shared, deep-frozen, in the reusable V8 context). Only
 * modules without state and without dependencies qualify: the OpenTelemetry semantic conventions
 * (constant maps; the largest part of the per-workflow module evaluation, bench/RESULTS.md
 * "Tracing"). `@opentelemetry/core`, `resources` and `sdk-trace-base` do not: they import
 * `@opentelemetry/api`, whose trace API keeps the registered provider in a module instance that a
 * frozen, shared copy would refuse (and share between workflows), and `core` reads the sandbox's
 * `performance` global, set per workflow by the interceptors, when it is evaluated.
 */
export const TRACED_BUNDLE_PRELOAD_MODULES = [require.resolve('../workflows/tracingPreload')];

/** The prebuilt bundles next to the build (scripts/bundle-workflows.ts writes both). */
export function workflowBundlePaths(dir: string): { plain: string; traced: string } {
  return { plain: `${dir}/workflow-bundle.js`, traced: `${dir}/workflow-bundle-traced.js` };
}
