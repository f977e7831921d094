import crypto from 'node:crypto';

/** Namespace for this service's name-based (v5) UUIDs. */
const NAMESPACE = Buffer.from('6f1c2b7e4d8a4f0e9b3c5a1d2e7f8091', 'hex');

/**
 * A deterministic UUID (RFC 9562 version 5) from a business key. Event ids are built this way:
 * a retried activity rebuilds the same id, so the outbox keeps one row and JetStream drops a
 * republished copy (docs/spec/STYLE.md #4).
 */
export function uuidFromKey(key: string): string {
  const hash = crypto.createHash('sha1').update(NAMESPACE).update(key, 'utf8').digest();
  const b = Buffer.from(hash.subarray(0, 16));
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Timestamps as the spec shows them: UTC offset and fractional seconds. */
export function isoWithOffset(d: Date): string {
  return d.toISOString().replace('Z', '+00:00');
}
