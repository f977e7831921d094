/**
 * Polls `fn` until it returns a truthy value or the time runs out: the way a test waits for a
 * condition (never a fixed sleep before a positive check). The bound is generous on purpose: on a
 * loaded machine it only decides how long a real failure takes to report.
 */
export async function eventually<T>(fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
