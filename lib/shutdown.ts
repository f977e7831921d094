import type { Logger } from './logger';

/**
 * Until a process has something to drain, a SIGTERM or SIGINT exits it at once: the Temporal
 * runtime's own signal handlers, installed by the first connection, would otherwise swallow the
 * signal and the process would linger until its supervisor SIGKILLs it. Returns the function that
 * removes these handlers, once `onShutdown` takes over.
 */
export function exitOnSignalDuringStartup(name: string): () => void {
  const exit = (signal: NodeJS.Signals) => {
    process.stderr.write(`${name}: ${signal} during start-up: exiting\n`);
    process.exit(0);
  };
  process.on('SIGTERM', exit);
  process.on('SIGINT', exit);
  return () => {
    process.off('SIGTERM', exit);
    process.off('SIGINT', exit);
  };
}

/**
 * Runs `stop` once on SIGTERM or SIGINT (in-flight work finishes inside it); a second signal
 * exits at once. The process exits when stop resolves or after `graceMs`.
 */
export function onShutdown(log: Logger, stop: () => Promise<void>, graceMs = 30_000): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down gracefully');
    const force = setTimeout(() => {
      log.error('graceful shutdown timed out');
      process.exit(1);
    }, graceMs);
    force.unref();
    stop().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err) => {
        log.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
}
