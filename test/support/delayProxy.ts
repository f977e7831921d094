import { startForwardingProxy } from './silentProxy';

/**
 * A TCP proxy on 127.0.0.1 that delays every chunk by `delayMs` each way (order kept), as a
 * slow link or a host too loaded to answer at once does: each round trip through it takes at
 * least twice the delay.
 */
export interface DelayProxy {
  /** host:port to connect to instead of the target. */
  address: string;
  close(): Promise<void>;
}

export async function startDelayProxy(targetHost: string, targetPort: number, delayMs: number): Promise<DelayProxy> {
  const { address, sockets, server } = await startForwardingProxy(targetHost, targetPort, (fn) => setTimeout(fn, delayMs));
  return {
    address,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
