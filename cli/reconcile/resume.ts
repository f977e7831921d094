/**
 * Resuming `data-import reconcile` (state.ts; docs/bulk-migration.md, "Sign-off"): the state of the
 * book opened, and what an earlier run finished counted again from it, not asked again.
 */
import { readBatches, ReconcileState, type BatchLine, type StateHeader } from './state';

export interface Resumed {
  state: ReconcileState;
  /** The numbers of the batches an earlier run finished. */
  done: ReadonlySet<number>;
}

/**
 * Opens the state of `header`'s book (a new one with `restart`) and hands each batch an earlier
 * run finished to `take`, in the order they were written.
 */
export async function resumeState(statePath: string, header: StateHeader, restart: boolean, take: (line: BatchLine) => void): Promise<Resumed> {
  const state = await ReconcileState.open(statePath, header, restart);
  const done = new Set<number>();
  for await (const line of readBatches(statePath)) {
    done.add(line.batch);
    take(line);
  }
  return { state, done };
}
