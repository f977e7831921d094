import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Resource } from '@opentelemetry/resources';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { WORKFLOW_TRACING_INTERCEPTORS } from '../../worker/workflowBundles';

/**
 * Recorded histories (test/histories/*.json) replayed against today's workflow code: a change
 * that is not deterministic with respect to running workflows fails here (docs/spec/STYLE.md #2).
 *
 * Each history is replayed twice: as a worker with tracing off runs it, and as a worker with
 * tracing on runs it (the OpenTelemetry workflow interceptors of the traced bundle,
 * docs/tracing.md). A workflow may move between the two kinds of worker at any task, so a
 * history recorded by either (processed-traced.json was recorded with tracing on) replays on both.
 */
describe('workflow replay', () => {
  const dir = path.join(__dirname, '../histories');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));

  it('has recorded histories to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
  });

  it('has a history recorded with tracing on', () => {
    const traced = JSON.parse(fs.readFileSync(path.join(dir, 'processed-traced.json'), 'utf8'));
    expect(JSON.stringify(traced.events[0])).toContain('_tracer-data');
  });

  it.each(files)('replays %s against the current workflow code', async (file) => {
    // The SDK converts the CLI's proto-JSON itself (`temporal workflow show --output json`).
    const history: unknown = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    await Worker.runReplayHistory({ workflowsPath: require.resolve('../../workflows') }, history, file);
  }, 60_000);

  it.each(files)('replays %s against the current workflow code with the tracing interceptors', async (file) => {
    const history: unknown = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    const exported = new InMemorySpanExporter();
    await Worker.runReplayHistory(
      {
        workflowsPath: require.resolve('../../workflows'),
        interceptors: { workflowModules: [WORKFLOW_TRACING_INTERCEPTORS] },
        sinks: { exporter: makeWorkflowExporter(new SimpleSpanProcessor(exported), new Resource({ 'service.name': 'replay' })) },
      },
      history,
      file,
    );
    // A replay exports nothing (the sink is not called during replay): no span twice.
    expect(exported.getFinishedSpans()).toEqual([]);
  }, 60_000);
});
