import net from 'node:net';

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
  const sockets = new Set<net.Socket>();
  const later = (fn: () => void) => setTimeout(fn, delayMs);
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('data', (d) => later(() => upstream.write(d)));
    upstream.on('data', (d) => later(() => client.write(d)));
    client.on('end', () => later(() => upstream.end()));
    upstream.on('end', () => later(() => client.end()));
    client.on('close', () => later(() => upstream.destroy()));
    upstream.on('close', () => later(() => client.destroy()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    address: `127.0.0.1:${port}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
