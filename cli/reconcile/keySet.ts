import crypto from 'node:crypto';

/** 32-bit words of a slot: a 128-bit fingerprint. */
const WORDS = 4;

/**
 * The set of the book's account keys (supplier NUL external account number) that finds duplicates
 * in the book and the extra accounts of the platform, kept outside the V8 heap: each key as a
 * 128-bit fingerprint (the first 16 bytes of its SHA-256) in an open-addressing table at most half
 * full, 32 bytes per key whatever its length (48 MiB at 1.5 million accounts) where a JavaScript
 * Set of strings takes ~100 bytes of the capped heap per key. Two keys share a fingerprint with a
 * probability of about n² / 2¹²⁹ (10⁻²⁶ for ten million keys): no account is misclassed in practice,
 * the same trust as the SHA-256 digests the reconciliation compares.
 */
export class KeySet {
  private table: Uint32Array;
  private mask: number;
  private count = 0;

  constructor(capacity = 1 << 16) {
    let slots = 1;
    while (slots < capacity * 2) slots *= 2;
    this.table = new Uint32Array(slots * WORDS);
    this.mask = slots - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Adds the key; false when it was there already. */
  add(key: string): boolean {
    const f = fingerprint(key);
    if (this.find(this.table, this.mask, f) >= 0) return false;
    if ((this.count + 1) * 2 > this.mask + 1) this.grow();
    this.put(this.table, this.mask, f);
    this.count++;
    return true;
  }

  has(key: string): boolean {
    return this.find(this.table, this.mask, fingerprint(key)) >= 0;
  }

  /** The slot holding `f`, or -1. */
  private find(table: Uint32Array, mask: number, f: Uint32Array): number {
    for (let slot = f[0]! & mask; ; slot = (slot + 1) & mask) {
      const at = slot * WORDS;
      if (table[at] === 0) return -1;
      if (table[at] === f[0] && table[at + 1] === f[1] && table[at + 2] === f[2] && table[at + 3] === f[3]) return slot;
    }
  }

  private put(table: Uint32Array, mask: number, f: Uint32Array): void {
    let slot = f[0]! & mask;
    while (table[slot * WORDS] !== 0) slot = (slot + 1) & mask;
    table.set(f, slot * WORDS);
  }

  private grow(): void {
    const old = this.table;
    const mask = (this.mask + 1) * 2 - 1;
    const table = new Uint32Array((mask + 1) * WORDS);
    for (let at = 0; at < old.length; at += WORDS) if (old[at] !== 0) this.put(table, mask, old.subarray(at, at + WORDS));
    this.table = table;
    this.mask = mask;
  }
}

/** The first 128 bits of the key's SHA-256; the first word never 0 (0 marks an empty slot). */
function fingerprint(key: string): Uint32Array {
  const d = crypto.createHash('sha256').update(key, 'utf8').digest();
  const f = new Uint32Array(WORDS);
  for (let i = 0; i < WORDS; i++) f[i] = d.readUInt32LE(i * 4);
  if (f[0] === 0) f[0] = 1;
  return f;
}
