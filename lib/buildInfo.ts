import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Which build of the code a process runs (docs/deploys.md): the Temporal worker registers with it
 * as the build id of its Worker Deployment Version, so an import that started on a build finishes
 * on it. `npm run build` writes it into `dist/build-info.json` (scripts/finish-build.ts); a process
 * running from the sources computes it the same way at start.
 *
 * The id is the git commit (12 hex digits), and for a tree with uncommitted changes the commit
 * plus a hash of those changes (`<commit>-dirty-<8 hex>`), so two different trees never share an
 * id and the same tree always gets the same one. Outside git, WORKER_BUILD_ID names the build.
 */
export interface BuildInfo {
  buildId: string;
  /** The git commit the build was made from; null outside git. */
  commit: string | null;
  /** Uncommitted changes were part of the build. */
  dirty: boolean;
  /** Where the id came from. */
  source: 'git' | 'WORKER_BUILD_ID';
  /** ISO 8601; when the build was made (or the process computed the id). */
  builtAt: string;
}

/** Letters, digits, `-`, `_` and `.`; at most 64 (Temporal allows more; ids are shown in tables). */
export const BUILD_ID_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

export class BuildIdError extends Error {}

export function checkBuildId(id: string, what = 'WORKER_BUILD_ID'): string {
  if (!BUILD_ID_PATTERN.test(id)) {
    throw new BuildIdError(`${what}: expected 1-64 letters, digits, '_', '-' or '.' (not starting with '-' or '.'), got ${JSON.stringify(id)}`);
  }
  return id;
}

const git = (root: string, args: string[], encoding: 'utf8' | 'buffer' = 'utf8') =>
  execFileSync('git', ['-C', root, ...args], { stdio: ['ignore', 'pipe', 'ignore'], encoding: encoding === 'utf8' ? 'utf8' : undefined, maxBuffer: 256 * 2 ** 20 });

/**
 * The build of the tree at `root`: WORKER_BUILD_ID when given (checked), else from git. Throws
 * BuildIdError when neither is available (a tree outside git without the variable).
 */
export function computeBuildInfo(root: string, env: Record<string, string | undefined> = process.env, now = new Date()): BuildInfo {
  const given = env.WORKER_BUILD_ID;
  let commit: string | null = null;
  try {
    commit = String(git(root, ['rev-parse', 'HEAD'])).trim();
  } catch {
    commit = null;
  }
  if (given) return { buildId: checkBuildId(given), commit, dirty: false, source: 'WORKER_BUILD_ID', builtAt: now.toISOString() };
  if (!commit) throw new BuildIdError(`${root} is not a git checkout: set WORKER_BUILD_ID to name this build`);
  // Uncommitted changes (tracked, and untracked files git does not ignore) make another build.
  const diff = git(root, ['diff', 'HEAD', '--binary'], 'buffer') as Buffer;
  const untracked = String(git(root, ['ls-files', '--others', '--exclude-standard', '-z'])).split('\0').filter(Boolean).sort();
  const dirty = diff.length > 0 || untracked.length > 0;
  let buildId = commit.slice(0, 12);
  if (dirty) {
    const h = crypto.createHash('sha256').update(diff);
    for (const f of untracked) {
      h.update(f).update('\0');
      try {
        h.update(fs.readFileSync(path.join(root, f)));
      } catch {
        /* removed meanwhile, or a directory link: its name counts */
      }
      h.update('\0');
    }
    buildId = `${buildId}-dirty-${h.digest('hex').slice(0, 8)}`;
  }
  return { buildId, commit, dirty, source: 'git', builtAt: now.toISOString() };
}

export const BUILD_INFO_FILE = 'build-info.json';

/** The build-info.json of a compiled build (dist/, or a copy of it under data/builds/), or null. */
export function readBuildInfo(buildRoot: string): BuildInfo | null {
  const file = path.join(buildRoot, BUILD_INFO_FILE);
  if (!fs.existsSync(file)) return null;
  const info = JSON.parse(fs.readFileSync(file, 'utf8')) as BuildInfo;
  checkBuildId(info.buildId, file);
  return info;
}

/** The folder holding this module's build: dist/ when compiled, the repository root from sources. */
const ownRoot = () => path.join(__dirname, '..');

/**
 * The build this process runs: its build-info.json when compiled (WORKER_BUILD_ID, when also
 * set, must agree: one id names one code), else computed from the sources' tree.
 */
export function currentBuild(env: Record<string, string | undefined> = process.env): BuildInfo {
  const baked = readBuildInfo(ownRoot());
  if (baked) {
    if (env.WORKER_BUILD_ID && env.WORKER_BUILD_ID !== baked.buildId) {
      throw new BuildIdError(`WORKER_BUILD_ID=${env.WORKER_BUILD_ID} but this build is ${baked.buildId} (${path.join(ownRoot(), BUILD_INFO_FILE)}): unset it, or build with it set`);
    }
    return baked;
  }
  return computeBuildInfo(ownRoot(), env);
}
