/**
 * Issue 39 (Low): the Temporal UI renders a workflow's summary and details as Markdown, and they
 * were built from the caller's external_account_number: `[pay here](https://…)` became a link in
 * the operators' UI. They carry it escaped now (workflows/markdown.ts).
 */
import { importWorkflowId } from '../../imports/workflowId';
import { eventually, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';

describe('Temporal UI summary and details of an import', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack();
  }, 120_000);
  afterAll(async () => {
    await s.stop();
  });

  it('shows an external account number written in Markdown as typed, never as a link or an image', async () => {
    const ext = `[pay here](https://evil.example/${s.id})![](https://t.example/p.png)`;
    const res = await s.request().post('/v2/data-import/accounts/').send(uniqueAccount(ext));
    expect(res.status).toBe(201);
    const handle = s.client.workflow.getHandle(importWorkflowId('DEMO_ENERGY', ext));
    const d = await handle.describe();
    const summary = (await d.staticSummary()) ?? '';
    const details = (await d.staticDetails()) ?? '';
    for (const text of [summary, details]) {
      expect(text).toContain(`\\[pay here\\]\\(https\\:\\/\\/evil\\.example\\/${s.id}\\)\\!\\[\\]`);
      // No unescaped link or image syntax is left.
      expect(text).not.toMatch(/(^|[^\\])\]\(/);
      expect(text).not.toMatch(/(^|[^\\])!\[/);
    }
    await eventually(async () => ((await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${encodeURIComponent(ext)}/`)).body.status === 'PROCESSED' ? true : undefined), 120_000);
  });
});
