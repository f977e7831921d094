import { Command, InvalidArgumentError } from 'commander';

/**
 * Output and argument helpers shared by the operator commands: aligned tables for people,
 * JSON for scripts, examples in `--help`, and strict integer parsing.
 */

export type Cell = string | number | boolean | null | undefined | Date;

function cellText(v: Cell): string {
  if (v === null || v === undefined || v === '') return '-';
  if (v instanceof Date) return formatDate(v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

/** An aligned plain-text table with a header row; `empty` is printed instead when there are no rows. */
export function table(headers: readonly string[], rows: readonly (readonly Cell[])[], empty = '(none)'): string {
  if (rows.length === 0) return empty;
  const text = rows.map((r) => headers.map((_, i) => cellText(r[i])));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...text.map(line)].join('\n');
}

/** `key: value` lines, keys aligned: the human form of one record. */
export function details(pairs: readonly [string, Cell][]): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${cellText(v)}`).join('\n');
}

/** UTC, second precision: what an operator reads in a table. JSON output keeps full ISO strings. */
export function formatDate(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Pretty JSON with dates as ISO strings (JSON.stringify already does that for Date). */
export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** Adds an "Examples:" section to the command's `--help`. */
export function withExamples(cmd: Command, examples: readonly string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`);
}

/**
 * A commander argument parser for an integer in [min, max]. Rejects "1.5", "1e3", "" and "12abc"
 * (Number() and parseInt() would each accept some of those).
 */
export function integerIn(min: number, max: number): (value: string) => number {
  return (value: string) => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`);
    return n;
  };
}
