import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 that can go silent, as a host that loses power or its link does to
 * the peers of its connections: while silenced, nothing is forwarded either way and nothing is
 * closed — bytes and closes are held, not dropped with a reset — so each side sees only a peer
 * that stops answering. `heal()` delivers what was held, in order, as a healed link would.
 *
 * Only the application sees the silence: the proxy's own sockets still acknowledge TCP segments,
 * so kernel keepalives do not notice it (a test of a mechanism that relies on them needs a real
 * packet drop, in a network namespace).
 */
export interface SilentProxy {
  /** host:port to connect to instead of the target. */
  address: string;
  silence(): void;
  heal(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 to the target that passes every chunk, end and close of either side
 * through `forward` (which runs it now, later, or holds it): the silent and the delaying proxies.
 */
export async function startForwardingProxy(targetHost: string, targetPort: number, forward: (fn: () => void) => void): Promise<{ address: string; sockets: Set<net.Socket>; server: net.Server }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('data', (d) => forward(() => upstream.write(d)));
    upstream.on('data', (d) => forward(() => client.write(d)));
    client.on('end', () => forward(() => upstream.end()));
    upstream.on('end', () => forward(() => client.end()));
    client.on('close', () => forward(() => upstream.destroy()));
    upstream.on('close', () => forward(() => client.destroy()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`, sockets, server };
}

export async function startSilentProxy(targetHost: string, targetPort: number): Promise<SilentProxy> {
  let silent = false;
  const held: (() => void)[] = [];
  const whenAudible = (fn: () => void) => (silent ? held.push(fn) : fn());
  const { address, sockets, server } = await startForwardingProxy(targetHost, targetPort, whenAudible);
  return {
    address,
    silence() {
      silent = true;
    },
    heal() {
      silent = false;
      for (const fn of held.splice(0)) fn();
    },
    async close() {
      held.splice(0);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
