import fs from 'node:fs';
import path from 'node:path';

/**
 * Every environment variable lib/config.ts reads has its row in docs/configuration.md, and every
 * default written in a row's second column is the one the code falls back to (for the numeric
 * ones, read from the same line of config.ts): a setting added or changed in code changes the
 * document with it.
 */
const ROOT = path.join(__dirname, '..', '..', '..');
const config = fs.readFileSync(path.join(ROOT, 'lib', 'config.ts'), 'utf8');
const doc = fs.readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');

/** name → the default config.ts passes for it, where it is a plain number (`10_000`, `32`). */
function readVariables(): Map<string, number | null> {
  const out = new Map<string, number | null>();
  for (const m of config.matchAll(/\(env, '([A-Z0-9_]+)'(?:, (-?[\d_]+)(?=[,)]))?/g)) {
    out.set(m[1]!, m[2] !== undefined ? Number(m[2].replace(/_/g, '')) : (out.get(m[1]!) ?? null));
  }
  return out;
}

/**
 * name → the table's default cell (backticks stripped). A row may name several variables
 * (`` `HOST`, `PORT` ``) with their defaults in the same order (`` `127.0.0.1`, `8000` ``).
 */
function documentedRows(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of doc.split('\n')) {
    const m = /^\| ((?:`[A-Z0-9_]+`(?:, )?)+) \| ([^|]*) \|/.exec(line);
    if (!m) continue;
    const names = [...m[1]!.matchAll(/`([A-Z0-9_]+)`/g)].map((x) => x[1]!);
    const cells = names.length > 1 ? m[2]!.split(', ') : [m[2]!];
    names.forEach((name, i) => out.set(name, (cells[i] ?? '').trim().replace(/`/g, '')));
  }
  return out;
}

describe('docs/configuration.md', () => {
  const vars = readVariables();
  const rows = documentedRows();

  it('reads a few dozen variables (the parse works)', () => {
    expect(vars.size).toBeGreaterThan(30);
    expect(vars.get('OUTBOX_LEADER_LEASE_MS')).toBe(10_000);
  });

  it('has a row for every variable lib/config.ts reads', () => {
    expect([...vars.keys()].filter((v) => !rows.has(v))).toEqual([]);
  });

  it('documents the numeric defaults the code falls back to', () => {
    const wrong = [...vars]
      .filter(([name, fallback]) => fallback !== null && rows.has(name) && /^-?\d+$/.test(rows.get(name)!))
      .filter(([name, fallback]) => Number(rows.get(name)) !== fallback)
      .map(([name, fallback]) => `${name}: documented ${rows.get(name)}, code ${fallback}`);
    expect(wrong).toEqual([]);
  });
});
