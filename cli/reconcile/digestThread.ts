import { parentPort } from 'node:worker_threads';
import type { InputText } from '../shared/input';
import { digestTexts } from './digest';

/** A worker thread of `data-import reconcile` (cli/reconcile/digest.ts): digests the chunks it is sent. */
parentPort!.on('message', (m: { id: number; items: InputText[] }) => {
  parentPort!.postMessage({ id: m.id, results: digestTexts(m.items) });
});
