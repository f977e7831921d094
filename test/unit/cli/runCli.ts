import { Command, CommanderError } from 'commander';
import { buildProgram } from '../../../cli/main';
import { CliError } from '../../../cli/errors';
import { configureCliContext } from '../../../cli/context';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Every command of the tree, the program first. */
export function allCommands(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap(allCommands)];
}

/**
 * Runs `data-import <args>` in-process the way cli/main.ts `main` does, with the given environment,
 * capturing what it prints. Every command of the tree gets the exit override and the output
 * capture: commander gives a subcommand only the settings its parent had when it was created.
 */
export async function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const restore = configureCliContext({ env, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  const program = buildProgram();
  for (const c of allCommands(program)) {
    c.exitOverride().configureOutput({ writeOut: (s) => void (stdout += s), writeErr: (s) => void (stderr += s) });
  }
  try {
    await program.parseAsync(args, { from: 'user' });
    return { code: 0, stdout, stderr };
  } catch (err) {
    if (err instanceof CommanderError) return { code: err.exitCode, stdout, stderr };
    stderr += `data-import: ${err instanceof Error ? err.message : String(err)}\n`;
    return { code: err instanceof CliError ? err.exitCode : 1, stdout, stderr };
  } finally {
    restore();
  }
}
