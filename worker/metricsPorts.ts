import net from 'node:net';
import type http from 'node:http';

/**
 * Ports of the worker's two Prometheus endpoints (its own metrics and the Temporal SDK's). A second
 * worker on the same host must come up with no flags (docs/operations.md "Supervision and ports"), so a preferred port that is
 * taken falls back to a free one chosen by the OS; the port actually used is logged. Metrics are
 * never a reason for a worker not to import.
 */

function isAddressInUse(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EADDRINUSE' || code === 'EACCES';
}

function listen(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/** Listens on `preferred`, or on a free port when it is taken; resolves with the port used. */
export async function listenWithFallback(server: http.Server | net.Server, preferred: number, host: string): Promise<{ port: number; fellBack: boolean }> {
  try {
    return { port: await listen(server, preferred, host), fellBack: false };
  } catch (err) {
    if (!isAddressInUse(err)) throw err;
    return { port: await listen(server, 0, host), fellBack: true };
  }
}

/**
 * `preferred` when nothing listens on it now, else a port the OS reports free. For listeners this
 * process does not open itself (the SDK's, in Rust): another process may take the port between
 * this check and the bind — unlikely, and then the worker exits and its supervisor restarts it.
 */
export async function freePort(preferred: number, host: string): Promise<{ port: number; fellBack: boolean }> {
  const probe = net.createServer();
  const result = await listenWithFallback(probe, preferred, host);
  await new Promise<void>((r) => probe.close(() => r()));
  return result;
}
