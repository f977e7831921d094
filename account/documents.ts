import fs from 'node:fs/promises';
import path from 'node:path';

/** Where imported documents live. `relativePath` comes from resolveDocumentPath. */
export interface DocumentStore {
  exists(root: string, relativePath: string): Promise<boolean>;
}

/**
 * Documents in a local folder (the supplier's document root). A supplier without a root (the
 * default, '') has no document store: nothing exists in it. Resolving against '' would be
 * resolving against the process's working directory, an oracle of which files exist there.
 */
export class LocalDocumentStore implements DocumentStore {
  async exists(root: string, relativePath: string): Promise<boolean> {
    if (root.trim() === '') return false;
    const resolved = resolveDocumentPath(root, relativePath);
    if (!resolved) return false;
    try {
      return (await fs.stat(resolved.absolute)).isFile();
    } catch {
      return false;
    }
  }
}

export interface ResolvedDocumentPath {
  /** Normalised path below the root, `/`-separated, no leading slash. */
  relative: string;
  /** The path in the instance's file storage. */
  absolute: string;
}

// Percent-encoded dot, slash, backslash, NUL, and an encoded percent (double encoding: %252e).
const ENCODED_SEPARATOR_RE = /%(2e|2f|5c|00|25)/i;

/**
 * Resolves a payload document path (spec rule 8: `/a/b.pdf` → `<root>/a/b.pdf`) or returns null
 * when it could reach outside the root: `..` segments, percent-encoded dots/slashes/backslashes/
 * NUL in any encoding depth, backslashes, NUL bytes. Rejecting encodings outright (rather than
 * decoding and re-checking) is safe whatever layer later decodes the path, and no real file
 * name needs them.
 */
export function resolveDocumentPath(root: string, payloadPath: string): ResolvedDocumentPath | null {
  if (payloadPath.length === 0 || payloadPath.includes('\0') || payloadPath.includes('\\')) return null;
  if (ENCODED_SEPARATOR_RE.test(payloadPath)) return null;
  const segments = payloadPath.split('/');
  if (segments.some((s) => s === '..')) return null;
  const relative = segments.filter((s) => s !== '' && s !== '.').join('/');
  if (relative === '') return null;
  const base = path.resolve(root);
  const absolute = path.resolve(base, relative);
  // Defence in depth: whatever slipped through must still land below the root.
  if (!absolute.startsWith(base.endsWith(path.sep) ? base : base + path.sep)) return null;
  return { relative, absolute };
}
