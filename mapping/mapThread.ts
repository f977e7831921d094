import { parentPort, workerData } from 'node:worker_threads';
import type { AccountMapper } from './mapAccount';
import { accountMapper, type FromThread, type MapThreadSetup, type ToThread } from './threads';

/**
 * A worker thread of `data-import map` (mapping/threads.ts): builds, validates and writes the lines
 * of the accounts it is sent, one chunk after another, in the order sent.
 */
const setup = workerData as MapThreadSetup;
let files: string[] = [];
let mapper: AccountMapper | null = null;
let work = Promise.resolve();
// The mapping and the validator (its schema compiled) are made while the run still loads the extract.
const early = accountMapper(setup, files);

parentPort!.on('message', (m: ToThread) => {
  if ('files' in m) {
    files = m.files;
    return;
  }
  work = work.then(async () => {
    let reply: FromThread;
    try {
      mapper ??= early.withFiles(files);
      const results = [];
      for (const raw of m.accounts) results.push(await mapper.map(raw));
      reply = { id: m.id, results };
    } catch (err) {
      reply = { id: m.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    parentPort!.postMessage(reply);
  });
});
