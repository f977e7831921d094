import fs from 'node:fs';
import path from 'node:path';
import { BUILD_INFO_FILE, BuildIdError, computeBuildInfo } from '../lib/buildInfo';

/**
 * The last step of `npm run build`: dist/build-info.json (the build id the workers register
 * with, lib/buildInfo.ts) and the files the compiled code reads beside itself, so that dist/ — or
 * a copy of it under data/builds/<build id>/ — runs the e-mail templates and the operations page
 * of its own build, not of whatever the source tree holds later (docs/deploys.md).
 */
const ASSETS = ['emails/templates', 'ops/page'];

function main(): void {
  const dist = path.join(__dirname, '..');
  const root = path.join(dist, '..');
  const info = computeBuildInfo(root);
  fs.writeFileSync(path.join(dist, BUILD_INFO_FILE), `${JSON.stringify(info, null, 2)}\n`);
  for (const dir of ASSETS) {
    const to = path.join(dist, dir);
    fs.rmSync(to, { recursive: true, force: true });
    fs.cpSync(path.join(root, dir), to, { recursive: true });
  }
  process.stderr.write(`[data-import] build ${info.buildId}${info.dirty ? ' (uncommitted changes included)' : ''}: dist/${BUILD_INFO_FILE}\n`);
}

try {
  main();
} catch (err) {
  process.stderr.write(`build: ${err instanceof BuildIdError ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
}
