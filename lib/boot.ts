import { loadConfig, ConfigError, Config } from './config';
import { createLogger, Logger } from './logger';
import { onShutdown } from './shutdown';
import { activeTracing } from './tracing';
import { redactUrls } from './redact';

export interface Boot {
  config: Config;
  log: Logger;
  /** Runs `stop` once on SIGTERM/SIGINT, then exits (lib/shutdown.ts). */
  onShutdown(stop: () => Promise<void>, graceMs?: number): void;
}

/**
 * The bootstrap both long-running processes share (api/main.ts, worker/main.ts): the
 * configuration read once (a bad value exits 2 naming the variable), the process's logger, its
 * shutdown hook (which exports the spans still buffered last, when tracing is on: lib/tracing.ts); a start-up failure exits 1 with `describeFailure`'s line on stderr.
 */
export function bootProcess(name: string, start: (boot: Boot) => Promise<void>, describeFailure: (err: unknown) => string, opts: { requires?: (config: Config) => void } = {}): void {
  const run = async (): Promise<void> => {
    let config: Config;
    try {
      config = loadConfig();
      // The settings this process cannot run without (the API: AUTH_SIGNING_KEY).
      opts.requires?.(config);
    } catch (err) {
      if (err instanceof ConfigError) {
        process.stderr.write(`configuration error: ${err.message}\n`);
        process.exit(2);
      }
      throw err;
    }
    const log = createLogger({ level: config.logLevel, name });
    const tracing = activeTracing();
    if (tracing) {
      const { serviceName, protocol, sampler, ratio } = tracing.settings;
      log.info({ serviceName, protocol, sampler, ...(sampler.endsWith('traceidratio') ? { ratio } : {}) }, 'tracing on: spans are exported over OTLP/HTTP');
    }
    // The process's stop, then the spans still buffered are exported before it exits.
    const stopThenFlush = (stop: () => Promise<void>) => async () => {
      await stop();
      await activeTracing()?.shutdown();
    };
    await start({ config, log, onShutdown: (stop, graceMs) => onShutdown(log, stopThenFlush(stop), graceMs) });
  };
  run().catch((err: unknown) => {
    // A connection error may quote a URL of the configuration: its credentials are not printed.
    process.stderr.write(`${redactUrls(describeFailure(err))}\n`);
    process.exit(1);
  });
}
