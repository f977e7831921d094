import fs from 'node:fs';
import type { MapIssue } from './issues';
import type { ObjectStats } from './objectStats';
import { reportHtml } from './reportHtml';

/** The fallout of one cause: an error code from one mapping rule, with what it blocks. */
export interface IssueGroup {
  code: string;
  ruleLine: number | null;
  field: string | null;
  count: number;
  accountsBlocked: number;
  /** accountsBlocked over the accounts the run mapped (0..1). */
  share: number;
  /** The first source lines (`file:line`), at most FIRST_LINES. */
  firstLines: string[];
}

export interface MapStats {
  rowsRead: Record<string, number>;
  accounts: number;
  valid: number;
  quarantined: number;
  outsideTranche: number;
  orphans: number;
  /** Per table of the mapping, where its rows went (mapping/objectStats.ts). */
  objects: ObjectStats[];
  seconds: number;
}

const FIRST_LINES = 5;

/** Errors grouped by code × rule, the largest fallout first (accounts blocked, then errors). */
export function groupIssues(issues: readonly MapIssue[], accounts: number): IssueGroup[] {
  const groups = new Map<string, IssueGroup & { blocked: Set<string> }>();
  for (const i of issues) {
    const key = `${i.code}\u0001${i.ruleLine ?? ''}`;
    let g = groups.get(key);
    if (!g) {
      g = { code: i.code, ruleLine: i.ruleLine ?? null, field: i.field ?? null, count: 0, accountsBlocked: 0, share: 0, firstLines: [], blocked: new Set() };
      groups.set(key, g);
    }
    g.count++;
    if (i.account !== null) g.blocked.add(i.account);
    const where = i.file ? `${i.file}:${i.line ?? ''}` : '';
    if (where && g.firstLines.length < FIRST_LINES && !g.firstLines.includes(where)) g.firstLines.push(where);
  }
  return [...groups.values()]
    .map(({ blocked, ...g }) => ({ ...g, accountsBlocked: blocked.size, share: accounts === 0 ? 0 : blocked.size / accounts }))
    .sort((a, b) => b.accountsBlocked - a.accountsBlocked || b.count - a.count || a.code.localeCompare(b.code) || (a.ruleLine ?? 0) - (b.ruleLine ?? 0));
}

const CSV_COLUMNS = ['account', 'code', 'file', 'line', 'column', 'value', 'rule_line', 'field', 'attr', 'detail'] as const;

function csvCell(v: unknown): string {
  const s = v === undefined || v === null ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** `<prefix>.csv` (one row per error), `<prefix>.json` (stats, groups, errors), `<prefix>.html`. */
export function writeReport(prefix: string, issues: readonly MapIssue[], stats: MapStats): { csv: string; json: string; html: string } {
  const groups = groupIssues(issues, stats.accounts);
  const rows = issues.map((i) => [i.account, i.code, i.file, i.line, i.column, i.value, i.ruleLine, i.field, i.attr, i.detail].map(csvCell).join(','));
  const out = { csv: `${prefix}.csv`, json: `${prefix}.json`, html: `${prefix}.html` };
  fs.writeFileSync(out.csv, [CSV_COLUMNS.join(','), ...rows].join('\n') + '\n');
  fs.writeFileSync(out.json, JSON.stringify({ stats, groups, errors: issues }, null, 2) + '\n');
  fs.writeFileSync(out.html, reportHtml(stats, groups));
  return out;
}
