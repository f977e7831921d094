import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BuildIdError, checkBuildId, computeBuildInfo, readBuildInfo } from '../../../lib/buildInfo';

/**
 * The build id a worker registers with (docs/deploys.md): the commit, plus a hash of uncommitted
 * changes, so two different trees never share an id and one tree always gets the same; outside
 * git, WORKER_BUILD_ID. Computed on throw-away git repositories.
 */
const made: string[] = [];
afterAll(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function repo(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'build-info-'));
  made.push(root);
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'ignore' });
  git('init', '-q');
  fs.writeFileSync(path.join(root, 'a.ts'), 'export const a = 1;\n');
  fs.writeFileSync(path.join(root, '.gitignore'), 'data/\n');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.org', 'commit', '-q', '-m', 'one');
  return root;
}
const NO_ENV = {};

describe('build ids (lib/buildInfo.ts)', () => {
  it('is the commit, 12 hex digits, for a clean tree', () => {
    const root = repo();
    const commit = execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    expect(computeBuildInfo(root, NO_ENV)).toMatchObject({ buildId: commit.slice(0, 12), commit, dirty: false, source: 'git' });
  });

  it('adds a hash of the uncommitted changes: the same tree the same id, another tree another', () => {
    const root = repo();
    const clean = computeBuildInfo(root, NO_ENV).buildId;
    fs.writeFileSync(path.join(root, 'a.ts'), 'export const a = 2;\n');
    const edited = computeBuildInfo(root, NO_ENV);
    expect(edited.dirty).toBe(true);
    expect(edited.buildId).toMatch(new RegExp(`^${clean}-dirty-[0-9a-f]{8}$`));
    expect(computeBuildInfo(root, NO_ENV).buildId).toBe(edited.buildId);
    fs.writeFileSync(path.join(root, 'a.ts'), 'export const a = 3;\n');
    expect(computeBuildInfo(root, NO_ENV).buildId).not.toBe(edited.buildId);
  });

  it('counts an untracked file that git does not ignore, by name and content, and not an ignored one', () => {
    const root = repo();
    const clean = computeBuildInfo(root, NO_ENV).buildId;
    fs.mkdirSync(path.join(root, 'data'));
    fs.writeFileSync(path.join(root, 'data/x.log'), 'ignored');
    expect(computeBuildInfo(root, NO_ENV).buildId).toBe(clean);
    fs.writeFileSync(path.join(root, 'b.ts'), 'export const b = 1;\n');
    const withB = computeBuildInfo(root, NO_ENV).buildId;
    expect(withB).not.toBe(clean);
    fs.writeFileSync(path.join(root, 'b.ts'), 'export const b = 2;\n');
    expect(computeBuildInfo(root, NO_ENV).buildId).not.toBe(withB);
  });

  it('takes WORKER_BUILD_ID when given, checked, and asks for it outside git', () => {
    const root = repo();
    expect(computeBuildInfo(root, { WORKER_BUILD_ID: 'release-2026.11.24' })).toMatchObject({ buildId: 'release-2026.11.24', source: 'WORKER_BUILD_ID' });
    expect(() => computeBuildInfo(root, { WORKER_BUILD_ID: 'has space' })).toThrow(BuildIdError);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'no-git-'));
    made.push(outside);
    expect(() => computeBuildInfo(outside, NO_ENV)).toThrow(/WORKER_BUILD_ID/);
    expect(computeBuildInfo(outside, { WORKER_BUILD_ID: 'b1' })).toMatchObject({ buildId: 'b1', commit: null });
  });

  it('accepts 1-64 letters, digits, _ - . not starting with - or .', () => {
    for (const ok of ['a', 'abc123def456', 'x-dirty-0011aabb', 'v1.2_3', 'a'.repeat(64)]) expect(checkBuildId(ok)).toBe(ok);
    for (const bad of ['', '-a', '.a', 'a/b', 'a b', 'a'.repeat(65), 'é']) expect(() => checkBuildId(bad)).toThrow(BuildIdError);
  });

  it("reads a compiled build's build-info.json, and refuses one with a bad id", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dist-'));
    made.push(dir);
    expect(readBuildInfo(dir)).toBeNull();
    fs.writeFileSync(path.join(dir, 'build-info.json'), JSON.stringify({ buildId: 'abc', commit: null, dirty: false, source: 'WORKER_BUILD_ID', builtAt: '2026-11-24T00:00:00Z' }));
    expect(readBuildInfo(dir)?.buildId).toBe('abc');
    fs.writeFileSync(path.join(dir, 'build-info.json'), JSON.stringify({ buildId: 'a b' }));
    expect(() => readBuildInfo(dir)).toThrow(BuildIdError);
  });
});
