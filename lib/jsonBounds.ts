/**
 * What a JSON text may parse to: memory is spent per value parsed, not per byte (a 6 MB body of
 * two million `{}` takes more than the API's whole heap inside `JSON.parse`), and every layer
 * after the parse (ajv, the digest, `JSON.stringify` of an answer) recurses once per level. The
 * bounds come from the largest legitimate account: docs/security.md gives the measurement.
 */
export interface JsonBounds {
  /** Values (objects, arrays, strings, numbers, booleans, nulls; keys are not counted) in the whole text. */
  maxValues: number;
  /** Levels of nested objects and arrays (a bare scalar is depth 0, `{}` depth 1). */
  maxDepth: number;
  /** Members of one object. */
  maxKeys: number;
}

/** The configured bounds (lib/config.ts `http.json`): the values also bounded per byte. */
export interface JsonLimits extends JsonBounds {
  /** A text may carry one value per this many bytes (plus 10,000): its heap stays proportional to its bytes. */
  minBytesPerValue: number;
}

/** The bounds a text of `bytes` bytes is held to. */
export function boundsFor(bytes: number, l: JsonLimits): JsonBounds {
  return { maxValues: Math.min(l.maxValues, 10_000 + Math.floor(bytes / l.minBytesPerValue)), maxDepth: l.maxDepth, maxKeys: l.maxKeys };
}

/** A text past a bound: nothing of it was parsed. `payload_too_large` wherever it is answered. */
export class JsonBoundsError extends Error {
  readonly code = 'payload_too_large';
  constructor(readonly exceeded: JsonBoundExceeded) {
    super(`The JSON has ${exceeded.bound === 'values' ? 'more values' : exceeded.bound === 'depth' ? 'deeper nesting' : 'more members in one object'} than allowed (at most ${exceeded.limit}${exceeded.bound === 'depth' ? ' levels' : ''}).`);
    this.name = 'JsonBoundsError';
  }
}

/** `JSON.parse(text)` once the text is within the bounds for its size, else JsonBoundsError before anything is parsed. */
export function parseBounded(text: string, l: JsonLimits): unknown {
  const exceeded = exceedsJsonBounds(text, boundsFor(text.length, l));
  if (exceeded) throw new JsonBoundsError(exceeded);
  return JSON.parse(text);
}

/** Which bound a text goes past, with the figure it reached: the caller's error names it. */
export interface JsonBoundExceeded {
  bound: 'values' | 'depth' | 'keys';
  limit: number;
}

const OPEN_OBJECT = 123; // {
const CLOSE_OBJECT = 125; // }
const OPEN_ARRAY = 91; // [
const CLOSE_ARRAY = 93; // ]
const COMMA = 44;
const COLON = 58;
const QUOTE = 34;
const BACKSLASH = 92;
const MINUS = 45;
const DIGIT_0 = 48;
const DIGIT_9 = 57;
const LOWER_A = 97;
const LOWER_Z = 122;

/**
 * One linear pass over the text's char codes that counts what `JSON.parse` would build, and stops
 * at the first bound passed, before anything is materialised: null when the text is within the
 * bounds. It does not check the syntax (JSON.parse does, after): `JSON.parse` stops at its first
 * syntax error, so what it builds is a valid prefix of the text, and over a valid prefix these
 * counts are exact. Strings are skipped with `indexOf` (native, so a large string costs little);
 * a quote is escaped when an odd run of backslashes precedes it.
 */
export function exceedsJsonBounds(text: string, b: JsonBounds): JsonBoundExceeded | null {
  const n = text.length;
  // Members of each open object, by depth (arrays leave their slot unused); -1: the top is an array.
  const keys = new Int32Array(Math.min(b.maxDepth, 1 << 16) + 2);
  let depth = 0;
  let values = 0;
  // Whether the next string of the current object is a key: after `{` and `,`, until `:`.
  let expectKey = false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let j = text.indexOf('"', i + 1);
      while (j !== -1) {
        let k = j - 1;
        while (text.charCodeAt(k) === BACKSLASH) k--;
        if ((j - 1 - k) % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      if (expectKey) {
        if (++keys[depth]! > b.maxKeys) return { bound: 'keys', limit: b.maxKeys };
        expectKey = false;
      } else if (++values > b.maxValues) return { bound: 'values', limit: b.maxValues };
      if (j === -1) break;
      i = j;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++values > b.maxValues) return { bound: 'values', limit: b.maxValues };
      if (++depth > b.maxDepth) return { bound: 'depth', limit: b.maxDepth };
      const isObject = c === OPEN_OBJECT;
      keys[depth] = isObject ? 0 : -1;
      expectKey = isObject;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth > 0) depth--;
      expectKey = false;
    } else if (c === COMMA) {
      expectKey = keys[depth]! >= 0 && depth > 0;
    } else if (c === COLON) {
      expectKey = false;
    } else if ((c >= DIGIT_0 && c <= DIGIT_9) || c === MINUS || (c >= LOWER_A && c <= LOWER_Z)) {
      // A number or a literal (true, false, null): one value, its remaining characters skipped.
      if (++values > b.maxValues) return { bound: 'values', limit: b.maxValues };
      let j = i + 1;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d === COMMA || d === CLOSE_OBJECT || d === CLOSE_ARRAY || d === QUOTE || d === OPEN_OBJECT || d === OPEN_ARRAY || d === COLON || d <= 32) break;
      }
      i = j - 1;
    }
  }
  return null;
}

/** The counts a text parses to: the smallest bounds it stays within (docs/security.md's measurement). */
export function measureJson(text: string): { values: number; depth: number; keys: number } {
  const open: JsonBounds = { maxValues: Number.MAX_SAFE_INTEGER, maxDepth: 1 << 16, maxKeys: Number.MAX_SAFE_INTEGER };
  const smallest = (field: keyof JsonBounds): number => {
    let lo = 0;
    let hi = 1;
    while (exceedsJsonBounds(text, { ...open, [field]: hi })) hi *= 2;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (exceedsJsonBounds(text, { ...open, [field]: mid })) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return { values: smallest('maxValues'), depth: smallest('maxDepth'), keys: smallest('maxKeys') };
}
