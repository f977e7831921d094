/**
 * The one mapping from (type, version) to a NATS subject: `<prefix>.<event type>.<version>`.
 *
 * - The dotted event type becomes subject tokens as it is; a type containing a hyphen
 *   (`lifecycle.support-site.sale`) is kept as-is, because NATS tokens allow '-'.
 * - Dots in a version become underscores (`1.0.0` → `1_0_0`), so the version stays one token and
 *   `<prefix>.<type>.*` matches every version of exactly that type.
 * - Wildcards are safe: no catalogue type other than the import/order process events starts with
 *   `data_import.`, so a consumer of `events.data_import.>` receives exactly the data-import events
 *   (a unit test checks this over the whole catalogue).
 */
export function subjectFor(prefix: string, type: string, version: string): string {
  const subject = `${prefix}.${type}.${version.replace(/\./g, '_')}`;
  for (const token of subject.split('.')) {
    // NATS rules: an empty token, a wildcard ('*', '>') or whitespace would make the subject invalid
    // or a wildcard, which a publisher must never use.
    if (!/^[^\s*>]+$/.test(token)) {
      throw new RangeError(`invalid NATS subject token ${JSON.stringify(token)} in ${JSON.stringify(subject)}`);
    }
  }
  return subject;
}
