import { Command, CommanderError } from 'commander';
import { commandModules } from './commands';
import { CliError } from './errors';

/**
 * `data-import`: the operator and integrator CLI. Each file of `cli/commands/` adds one command
 * group; this file only builds the program and turns failures into a message and exit code.
 */
export function buildProgram(): Command {
  const program = new Command('data-import')
    .description('Operate the account data-import service: suppliers, organisations, API keys, reference data, imports, events, bulk migration, and deploys of the workers (deploy, replay: docs/deploys.md).')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: true });
  for (const register of commandModules) register(program);
  return program;
}

export async function main(argv = process.argv): Promise<number> {
  const program = buildProgram().exitOverride();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    const msg = err instanceof Error ? err.message : String(err);
    process.stderr.write(`data-import: ${msg}\n`);
    return err instanceof CliError ? err.exitCode : 1;
  }
}

if (require.main === module) {
  // main() turns every failure into a message and an exit code: it does not reject.
  void main().then((code) => {
    process.exitCode = code;
  });
}
