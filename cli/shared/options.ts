import { InvalidArgumentError, Option } from 'commander';
import { CliError } from '../errors';
import { stopOnInterrupt } from '../context';
import { DEFAULT_API_URL } from './api';

/**
 * The options and parsers the API clients of the CLI share (`migrate`, `reconcile`): where the
 * API is and how to authenticate, how long an outage is waited out, and how progress shows.
 */

export type ProgressKind = 'auto' | 'plain' | 'none';

/** What the shared options parse to. */
export interface ApiCommandOptions {
  apiUrl: string;
  apiKey?: string;
  outageTimeout: number;
  progress: ProgressKind;
}

export function url(value: string): string {
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
    return value;
  } catch {
    throw new InvalidArgumentError('expected an http(s) URL.');
  }
}

export function minutes(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number of minutes.');
  return n;
}

export function minutesOrZero(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number of minutes (0: no bound).');
  return n;
}

/** `--api-url <url>`. */
export const apiUrlOption = (): Option => new Option('--api-url <url>', 'base URL of the data-import API').argParser(url).default(DEFAULT_API_URL);

/** `--api-key <key>`, or DATA_IMPORT_API_KEY. */
export const apiKeyOption = (): Option => new Option('--api-key <key>', 'organisation API key (the API authenticates every data-import call)').env('DATA_IMPORT_API_KEY');

/** `--outage-timeout <minutes>`, described for the command (0: wait for ever). */
export const outageTimeoutOption = (description: string, defaultMinutes: number): Option =>
  new Option('--outage-timeout <minutes>', description).argParser(minutesOrZero).default(defaultMinutes);

/** `--progress auto|plain|none`. */
export const progressOption = (): Option =>
  new Option('--progress <kind>', 'progress on stderr: auto (a bar on a terminal, else a line every 5 s), plain, none').choices(['auto', 'plain', 'none']).default('auto');

/**
 * Runs a client command's work until it ends or Ctrl-C stops it (`stopping` says what happens
 * then; the work sees the signal). Its own errors (`known`: a message and a stable code) and a
 * missing input are reported as one-line CLI errors.
 */
export async function runInterruptible<T>(
  o: { input: string; stopping: string; known: (err: unknown) => err is Error & { code: string } },
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const interrupt = stopOnInterrupt(o.stopping);
  try {
    return await work(interrupt.signal);
  } catch (err) {
    if (o.known(err)) throw new CliError(`${err.message} [${err.code}]`);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new CliError(`input not found: ${o.input}`);
    throw err;
  } finally {
    interrupt.dispose();
  }
}
