import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { TRACED_BUNDLE_PRELOAD_MODULES, WORKFLOW_TRACING_INTERCEPTORS, workflowBundlePaths } from '../worker/workflowBundles';

/**
 * Prebuilds the workflow bundles so the worker starts in a second instead of bundling at start:
 * the plain one, and the traced one with the OpenTelemetry workflow interceptors, which a worker
 * with tracing on runs (docs/tracing.md). The workflow code is the same in both.
 */
async function main(): Promise<void> {
  const out = workflowBundlePaths(path.join(__dirname, '..'));
  const bundles = [
    [out.plain, [], []],
    [out.traced, [WORKFLOW_TRACING_INTERCEPTORS], TRACED_BUNDLE_PRELOAD_MODULES],
  ] as const;
  for (const [file, interceptors, preload] of bundles) {
    const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), workflowInterceptorModules: [...interceptors], preloadModules: [...preload], logger: undefined });
    fs.writeFileSync(file, code);
    process.stderr.write(`[data-import] workflow bundle: ${path.relative(process.cwd(), file)} (${Math.round(code.length / 1024)} KiB)\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`bundling failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
