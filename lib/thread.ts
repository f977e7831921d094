import path from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the module `name` beside `dirname`, with the extension of the caller's own
 * file (`filename`): from a build, the compiled .js as is; from the TypeScript sources (tsx, the
 * tests), the .ts loaded through tsx too. Used by reconcile's digest threads and the map's.
 */
export function startThread(dirname: string, filename: string, name: string, options: WorkerOptions = {}): Worker {
  const file = path.join(dirname, `${name}${path.extname(filename)}`);
  return file.endsWith('.ts') ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(file)});`, { ...options, eval: true }) : new Worker(file, options);
}
