import { redactUrl } from '../lib/redact';
import type { Knex } from 'knex';
import type { Client } from '@temporalio/client';
import { Config, ConfigError, loadConfig } from '../lib/config';
import { createDb } from '../db/knex';
import { connectTemporal } from '../lib/temporal';
import { CliError } from './errors';
import { isUndefinedTable } from '../db/pgErrors';

/**
 * What a command needs from the outside world, opened lazily: `--help` and argument errors need
 * no server, and a command closes what it opened so the process exits as soon as it is done.
 *
 * The environment and the output streams are injectable (`configureCliContext`) so tests run the
 * real program in-process against their own database and capture what it prints.
 */

type Env = Record<string, string | undefined>;
type Write = (text: string) => void;

interface CliContextSettings {
  env: Env;
  stdout: Write;
  stderr: Write;
}

const defaults = (): CliContextSettings => ({
  env: process.env,
  // Looked up at call time, not captured, so a replaced process.stdout.write is honoured.
  stdout: (s) => void process.stdout.write(s),
  stderr: (s) => void process.stderr.write(s),
});

let current: CliContextSettings = defaults();

/** Replaces the environment and/or output of the CLI; returns a function restoring the previous ones. */
export function configureCliContext(settings: Partial<CliContextSettings>): () => void {
  const previous = current;
  current = { ...current, ...settings };
  return () => {
    current = previous;
  };
}

/** Writes a line (or lines) to standard output. */
export function print(text: string): void {
  current.stdout(text.endsWith('\n') ? text : `${text}\n`);
}

/** Writes a line to standard error (warnings that must not mix with output scripts read). */
export function printErr(text: string): void {
  current.stderr(text.endsWith('\n') ? text : `${text}\n`);
}

/** The configuration, read from the (injected) environment; a bad value is a one-line error. */
export function cliConfig(): Config {
  try {
    return loadConfig(current.env);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(`configuration: ${err.message}`);
    throw err;
  }
}

/** Hides the password of a connection URL before it goes into a message (lib/redact.ts). */
export { redactUrl };

// PostgreSQL / socket errors that mean "cannot use this database at all", as opposed to a bug.
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', '3D000', '28P01', '28000']);

function databaseError(err: unknown, url: string): unknown {
  const code = (err as { code?: string } | null)?.code;
  const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
  if (code && UNREACHABLE.has(code)) return new CliError(`cannot use the database at ${redactUrl(url)}: ${msg}`);
  // The database exists but was never migrated.
  if (isUndefinedTable(err)) return new CliError(`the database at ${redactUrl(url)} is not migrated (${msg}); run \`npm run up\` or \`npx tsx scripts/setup.ts\``);
  return err;
}

/**
 * knex prints its warnings with console.log, i.e. on standard output, where they would corrupt
 * `--json` output; a failed connection also prints a stack trace. Route warnings to standard error
 * and drop the connection one: the error it accompanies becomes the command's one-line message.
 */
function quietKnexWarnings(db: Knex): void {
  const logger = (db.client as { logger?: { _warn?: (m: unknown) => void } }).logger;
  if (!logger) return;
  logger._warn = (m: unknown) => {
    const text = typeof m === 'string' ? m : String(m);
    if (!text.startsWith('Acquire connection error')) printErr(`warning: ${text}`);
  };
}

/** Opens the database of the configuration, runs `fn`, and closes the pool whatever happens. */
export async function withDb<T>(fn: (db: Knex, config: Config) => Promise<T>): Promise<T> {
  const config = cliConfig();
  // A CLI command runs a handful of queries one after the other: two connections are plenty.
  const db = createDb(config.database.url, 2);
  quietKnexWarnings(db);
  try {
    return await fn(db, config);
  } catch (err) {
    throw databaseError(err, config.database.url);
  } finally {
    await db.destroy();
  }
}

/** Connects to Temporal, runs `fn` with a client, and closes the connection whatever happens. */
export async function withTemporal<T>(fn: (client: Client, config: Config) => Promise<T>): Promise<T> {
  const config = cliConfig();
  let conn: Awaited<ReturnType<typeof connectTemporal>>;
  try {
    conn = await connectTemporal(config.temporal);
  } catch (err) {
    const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new CliError(`cannot reach Temporal at ${config.temporal.address} (namespace ${config.temporal.namespace}): ${msg}`);
  }
  try {
    return await fn(conn.client, config);
  } finally {
    await conn.connection.close();
  }
}

/**
 * Ctrl-C for a long command that keeps its state (migrate, reconcile): the first asks it to stop
 * at the next safe point (`signal`) with `message` on stderr, the second quits at once (exit 130).
 * `dispose()` takes the handler off again.
 */
export function stopOnInterrupt(message: string): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    printErr(`\n${message} (Ctrl-C again to quit at once)`);
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  return { signal: controller.signal, dispose: () => process.off('SIGINT', onSigint) };
}
