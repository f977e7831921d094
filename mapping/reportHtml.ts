import type { IssueGroup, MapStats } from './report';

const esc = (s: unknown) =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/**
 * The page a migration lead opens: the run's figures, where each table's rows went, then the
 * fallout by cause (code × mapping rule), largest first, with the share of accounts each blocks and
 * its first source lines. One self-contained file: no script, no request, so it opens from a mail
 * attachment too.
 */
export function reportHtml(stats: MapStats, groups: IssueGroup[]): string {
  const rows = groups
    .map(
      (g) =>
        `<tr><td><code>${esc(g.code)}</code></td><td>${g.ruleLine === null ? '' : `line ${g.ruleLine}`}</td><td>${esc(g.field)}</td><td class="n">${g.count}</td><td class="n">${g.accountsBlocked}</td><td class="n">${(g.share * 100).toFixed(1)}%</td><td>${g.firstLines.map((l) => `<code>${esc(l)}</code>`).join('<br>')}</td></tr>`,
    )
    .join('\n');
  const read = Object.entries(stats.rowsRead)
    .map(([t, n]) => `${esc(t)} ${n}`)
    .join(', ');
  const objects = stats.objects
    .map((t) => `<tr><td>${esc(t.table)}</td>${[t.read, t.mapped, t.valid, t.quarantined, t.outsideTranche, t.orphans, t.leftOut].map((n) => `<td class="n">${n}</td>`).join('')}</tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>data-import map: report</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left;vertical-align:top}td.n{text-align:right}</style>
</head><body>
<h1>data-import map</h1>
<p id="stats">Accounts mapped <b>${stats.accounts}</b>, valid <b>${stats.valid}</b>, quarantined <b>${stats.quarantined}</b>; orphan rows ${stats.orphans}; outside the tranche ${stats.outsideTranche}; rows read: ${read}; ${stats.seconds.toFixed(1)} s.</p>
<h2>Rows per object</h2>
<table id="objects"><thead><tr><th>table</th><th>read</th><th>in mapped accounts</th><th>in the book</th><th>quarantined</th><th>outside the tranche</th><th>orphans</th><th>left out</th></tr></thead><tbody>
${objects}
</tbody></table>
<p>Left out: rows a list's <code>where</code> filters out or its <code>distinct</code> folds into another, rows repeated whole, rows of accounts the account table does not choose (and, in a run stopped early, of the accounts not reached).</p>
<h2>Fallout by cause</h2>
${groups.length === 0 ? '<p id="none">No errors: every account mapped and valid.</p>' : `<table id="groups"><thead><tr><th>code</th><th>mapping rule</th><th>field</th><th>errors</th><th>accounts blocked</th><th>share of accounts</th><th>first source lines</th></tr></thead><tbody>\n${rows}\n</tbody></table>`}
</body></html>
`;
}
