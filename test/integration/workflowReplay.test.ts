import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';

/**
 * Recorded histories (test/histories/*.json) replayed against today's workflow code: a change
 * that is not deterministic with respect to running workflows fails here (STYLE.md #2).
 */
describe('workflow replay', () => {
  const dir = path.join(__dirname, '../histories');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));

  it('has recorded histories to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
  });

  it.each(files)('replays %s against the current workflow code', async (file) => {
    // The SDK converts the CLI's proto-JSON itself (`temporal workflow show --output json`).
    const history: unknown = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    await Worker.runReplayHistory({ workflowsPath: require.resolve('../../workflows') }, history, file);
  }, 60_000);
});
