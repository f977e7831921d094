import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

/** Prebuilds the workflow bundle so the worker starts in a second instead of bundling at start. */
async function main(): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: undefined });
  const out = path.join(__dirname, '..', 'workflow-bundle.js');
  fs.writeFileSync(out, code);
  process.stderr.write(`[data-import] workflow bundle: ${path.relative(process.cwd(), out)} (${Math.round(code.length / 1024)} KiB)\n`);
}

main().catch((err) => {
  process.stderr.write(`bundling failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
