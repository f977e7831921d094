import path from 'node:path';
import { Command } from 'commander';
import { buildsDir, keepBuild, keptBuilds } from '../deploys/builds';

/**
 * `node dist/scripts/release.js keep|list`: builds kept side by side in data/builds/<build id>/
 * (deploys/builds.ts, docs/deploys.md "Under npm run up"). `npm run up` keeps every build it
 * runs, right after `npm run build`, so that after the next code change the old build's workers
 * can still run — from that copy — until the imports pinned to it have finished.
 */
function main(): void {
  const program = new Command('release').description('Keep builds side by side in data/builds/<build id>/ so an older build\'s workers can run beside a newer one (docs/deploys.md).');
  program
    .command('keep')
    .description('Copy a build (default: this dist/) to <builds-dir>/<build id>/, unless that build is kept already.')
    .option('--dist <dir>', 'the build folder to keep (npm run build output)', path.join(__dirname, '..'))
    .option('--builds-dir <dir>', 'where builds are kept', buildsDir())
    .action((o: { dist: string; buildsDir: string }) => {
      const { kept, created } = keepBuild(path.resolve(o.dist), path.resolve(o.buildsDir));
      const where = path.relative(process.cwd(), kept.dir) || kept.dir;
      process.stderr.write(`[data-import] build ${kept.buildId} ${created ? 'kept in' : 'already kept in'} ${where}/\n`);
      process.stdout.write(`BUILD_ID=${kept.buildId}\n`);
    });
  program
    .command('list')
    .description('The kept builds, newest first: build id, when built, commit. What runs on each: bin/data-import deploy status.')
    .option('--builds-dir <dir>', 'where builds are kept', buildsDir())
    .action((o: { buildsDir: string }) => {
      const all = keptBuilds(path.resolve(o.buildsDir));
      if (all.length === 0) return void process.stdout.write(`(no build kept in ${o.buildsDir})\n`);
      for (const b of all) process.stdout.write(`${b.buildId}\t${b.info.builtAt}\t${b.info.commit ?? '(no commit)'}${b.info.dirty ? ' + uncommitted changes' : ''}\n`);
    });
  program.parse();
}

try {
  main();
} catch (err) {
  process.stderr.write(`release: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
