import { Command } from 'commander';
import { buildProgram } from '../../../cli/main';
import { allCommands, runCli } from './runCli';

// The command groups of the operator CLI (cli/commands/{importSuppliers,organisations,apiKeys,referenceData,imports,maintenance,emails,deploy,replay}.ts).
const OPERATOR_GROUPS = ['import-suppliers', 'organisations', 'api-keys', 'reference-data', 'imports', 'maintenance', 'emails', 'deploy', 'replay'];

const pathOf = (c: Command): string[] => (c.parent ? [...pathOf(c.parent), c.name()] : []);

describe('the data-import command tree', () => {
  const program = buildProgram();
  const commands = allCommands(program).filter((c) => c.name() !== 'help');

  it.each(commands.map((c) => [pathOf(c).join(' ') || '(program)', c] as const))('gives %s a description and --help output', async (_name, cmd) => {
    expect(cmd.description().trim()).not.toBe('');
    const run = await runCli([...pathOf(cmd), '--help'], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Usage: ${['data-import', ...pathOf(cmd)].join(' ')}`);
  });

  it('has every operator command group', () => {
    expect(program.commands.map((c) => c.name())).toEqual(expect.arrayContaining(OPERATOR_GROUPS));
  });

  const operatorCommands = commands.filter((c) => OPERATOR_GROUPS.includes(pathOf(c)[0] ?? ''));

  it.each(operatorCommands.map((c) => [pathOf(c).join(' '), c] as const))('describes every option and argument of %s and shows an example', async (_name, cmd) => {
    for (const o of cmd.options) expect([o.flags, o.description.trim()]).not.toEqual([o.flags, '']);
    for (const a of cmd.registeredArguments) expect([a.name(), a.description.trim()]).not.toEqual([a.name(), '']);
    const run = await runCli([...pathOf(cmd), '--help'], {});
    expect(run.stdout).toMatch(new RegExp(`Examples:\\n  \\$ data-import ${pathOf(cmd).join(' ')}`));
  });

  it('rejects a non-integer --limit with exit 1 before connecting to anything', async () => {
    // A database URL nobody listens on: argument errors come before any connection.
    const run = await runCli(['imports', 'list', '--limit', 'ten'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("'--limit <n>'");
    expect(run.stdout).toBe('');
  });

  it('reports a bad configuration variable as a one-line error naming it', async () => {
    const run = await runCli(['import-suppliers', 'list'], { DATABASE_URL: 'mysql://x' });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('DATABASE_URL');
  });
});
