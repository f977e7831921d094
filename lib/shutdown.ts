import type { Logger } from './logger';

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
