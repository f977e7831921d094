/**
 * The cost of the JSON bounds (lib/jsonBounds.ts) against a bare JSON.parse, in process: the
 * example account (in the envelope), a typical, a full and a large generated account. Rounds
 * alternate the two so that a busy machine slows both alike; the median round is printed.
 *   npx tsx bench/jsonBounds.ts
 * Figures: bench/NOTES.md "JSON bounds".
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { generateAccount } from '../cli/generate/account';
import { createRng } from '../cli/generate/rng';
import { parseBounded } from '../lib/jsonBounds';
import { loadConfig } from '../lib/config';

const limits = loadConfig({}).http.json;
const example = JSON.parse(readFileSync(path.join(__dirname, '..', 'examples', 'account-dual-fuel.json'), 'utf8')) as unknown;
const texts: Record<string, string> = {
  example: JSON.stringify({ payload: example }),
  typical: JSON.stringify(generateAccount(createRng('bench-1'), { externalAccountNumber: 'B-1', profile: 'typical' })),
  full: JSON.stringify(generateAccount(createRng('bench-2'), { externalAccountNumber: 'B-2', profile: 'full' })),
  large: JSON.stringify(generateAccount(createRng('bench-3'), { externalAccountNumber: 'B-3', profile: 'large' })),
};

/** Microseconds per call of `f`, over about 20 MB of text. */
function perCall(f: () => unknown, bytes: number): number {
  const n = Math.max(50, Math.floor(20_000_000 / bytes));
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) f();
  return Number(process.hrtime.bigint() - t0) / n / 1000;
}

for (const [name, text] of Object.entries(texts)) {
  const plain = () => JSON.parse(text) as unknown;
  const bounded = () => parseBounded(text, limits);
  perCall(plain, text.length);
  perCall(bounded, text.length);
  const rounds: [number, number][] = [];
  for (let r = 0; r < 9; r++) rounds.push([perCall(plain, text.length), perCall(bounded, text.length)]);
  const median = (k: 0 | 1) => rounds.map((x) => x[k]).sort((a, b) => a - b)[4]!;
  const [p, b] = [median(0), median(1)];
  console.log(`${name.padEnd(8)} ${String(text.length).padStart(7)} bytes  JSON.parse ${p.toFixed(1).padStart(7)} µs  bounded ${b.toFixed(1).padStart(7)} µs  (+${(b - p).toFixed(1)} µs, ×${(b / p).toFixed(2)})`);
}
