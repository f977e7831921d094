/**
 * Text of a caller (an external account number, an import supplier code) written into what the
 * Temporal UI renders as Markdown: a workflow's summary and details (imports/startWorkflow.ts,
 * registration/startWorkflow.ts, workflows/accountImport.ts). Every ASCII punctuation character is
 * backslash-escaped (CommonMark allows it for each), so a value such as `[pay here](https://…)`,
 * `![](https://tracker/…)`, `<img …>` or `**` shows as typed, never as a link, an image, HTML or
 * emphasis; line breaks become spaces (no new block). Pure: safe in workflow code.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, ' ').replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`);
}
