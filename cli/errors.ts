/**
 * A failure the CLI reports as a one-line message (no stack trace) with exit code 1. In its own
 * module so the command files import it without importing cli/main.ts (which imports them).
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
