import type { Patch } from './rules/context';

/**
 * Applies normalisation patches to a copy of the account, copying only the containers along
 * each patched path (the rest is shared with the input, which is never mutated).
 */
export function applyPatches<T>(root: T, patches: readonly Patch[]): T {
  if (patches.length === 0) return root;
  const copied = new Set<unknown>();
  const copy = (v: unknown): unknown => {
    const c = Array.isArray(v) ? [...v] : { ...(v as object) };
    copied.add(c);
    return c;
  };
  const out = copy(root) as Record<string | number, unknown>;
  for (const { path, value } of patches) {
    let node = out;
    for (let i = 0; i < path.length - 1; i++) {
      let child = node[path[i]];
      if (!copied.has(child)) {
        child = copy(child);
        node[path[i]] = child;
      }
      node = child as Record<string | number, unknown>;
    }
    node[path[path.length - 1]] = value;
  }
  return out as T;
}
