import fs from 'node:fs';
import path from 'node:path';
import { readBuildInfo, type BuildInfo } from '../lib/buildInfo';

/**
 * Builds kept side by side (docs/deploys.md, "Under npm run up"): `npm run up` copies each build
 * it runs from `dist/` to `data/builds/<build id>/` (scripts/release.ts), so that after the next
 * code change the workers of the old build can still be started — from that copy, beside the new
 * build's — until the imports pinned to the old build have finished. `data-import replay --build
 * <id>` reads the same folder.
 *
 * A kept build is the compiled tree with its `build-info.json`, workflow bundles, e-mail
 * templates and operations page; it resolves its npm packages from the project's `node_modules`
 * (the folders above it), so it runs with today's dependencies.
 */

/** The project folder: the nearest one above `from` with a package.json (from deploys/ or dist/deploys/). */
export function projectRoot(from = __dirname): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/** Where builds are kept: `data/builds/` of the project. */
export const buildsDir = (root = projectRoot()) => path.join(root, 'data', 'builds');

/** What a build folder holds that a kept copy does not need (tests, benchmarks, the compiler's cache). */
const NOT_KEPT = new Set(['test', 'bench', '.tsbuildinfo', '.tsbuildinfo.build']);

export interface KeptBuild {
  buildId: string;
  dir: string;
  info: BuildInfo;
}

/** A kept copy has what a worker needs to start: its build-info.json, its bundle and worker/main.js. */
export function isRunnableBuild(dir: string): boolean {
  return ['build-info.json', 'workflow-bundle.js', path.join('worker', 'main.js')].every((f) => fs.existsSync(path.join(dir, f)));
}

/**
 * Copies the build in `distDir` to `<into>/<build id>/` unless that build is kept already (one id
 * names one code: the copy is never overwritten). The copy is written beside and renamed into
 * place, so a half-written copy never looks like a build.
 */
export function keepBuild(distDir: string, into = buildsDir()): { kept: KeptBuild; created: boolean } {
  const info = readBuildInfo(distDir);
  if (!info || !isRunnableBuild(distDir)) throw new Error(`${distDir} holds no complete build (build-info.json, workflow-bundle.js, worker/main.js): run npm run build`);
  const dir = path.join(into, info.buildId);
  if (isRunnableBuild(dir)) return { kept: { buildId: info.buildId, dir, info: readBuildInfo(dir)! }, created: false };
  fs.mkdirSync(into, { recursive: true });
  const tmp = path.join(into, `.${info.buildId}.${process.pid}.tmp`);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.cpSync(distDir, tmp, { recursive: true, filter: (src) => !NOT_KEPT.has(path.relative(distDir, src).split(path.sep)[0]!) });
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
  return { kept: { buildId: info.buildId, dir, info }, created: true };
}

/** The builds kept in `dir`, newest first; folders that are not complete builds are skipped. */
export function keptBuilds(dir = buildsDir()): KeptBuild[] {
  if (!fs.existsSync(dir)) return [];
  const out: KeptBuild[] = [];
  for (const name of fs.readdirSync(dir)) {
    const d = path.join(dir, name);
    if (name.startsWith('.') || !isRunnableBuild(d)) continue;
    try {
      const info = readBuildInfo(d);
      if (info && info.buildId === name) out.push({ buildId: name, dir: d, info });
    } catch {
      /* a build-info.json that does not parse: not a build */
    }
  }
  return out.sort((a, b) => b.info.builtAt.localeCompare(a.info.builtAt));
}

/** The kept copy of `buildId`, or null. */
export function keptBuild(buildId: string, dir = buildsDir()): KeptBuild | null {
  return keptBuilds(dir).find((b) => b.buildId === buildId) ?? null;
}
