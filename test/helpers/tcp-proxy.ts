// A TCP proxy on loopback (node:net) between tapedeck and a server, for the network faults a client cannot tell
// from a slow server. `silence()` is a cut with no packet and no RST: each connection's server side is destroyed
// (the server sees its client gone and ends the session), its client side stays open and is sent nothing more, and
// what the client sends is dropped. Connections made while silent hang the same way, until `heal()`.
import { createConnection, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  port: number;
  /** how many connections have been made through it (each client connection counts once) */
  connections(): number;
  /** the cut: every server side destroyed, every client side left open and silent */
  silence(): void;
  /** connections made from now on are forwarded again (the silent ones stay silent) */
  heal(): void;
  close(): Promise<void>;
}

export async function tcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let silent = false;
  let made = 0;
  const pairs = new Set<{ client: Socket; server?: Socket }>();
  const mute = (pair: { client: Socket; server?: Socket }) => {
    pair.server?.destroy();
    pair.server = undefined;
    pair.client.removeAllListeners('data');
    pair.client.on('data', () => {}); // read and dropped: the client's writes never block or fail
  };
  const proxy = createServer((client) => {
    made++;
    const pair: { client: Socket; server?: Socket } = { client };
    pairs.add(pair);
    client.on('error', () => {});
    client.on('close', () => {
      pair.server?.destroy();
      pairs.delete(pair);
    });
    if (silent) return mute(pair);
    const server = createConnection(target);
    pair.server = server;
    server.on('error', () => client.destroy());
    server.on('close', () => {
      // The server ended it (not the cut): the client hears it, as it would without the proxy.
      if (pair.server === server) client.destroy();
    });
    client.on('data', (c) => server.write(c));
    server.on('data', (c) => client.write(c));
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return {
    port: (proxy.address() as AddressInfo).port,
    connections: () => made,
    silence() {
      silent = true;
      for (const pair of pairs) mute(pair);
    },
    heal() {
      silent = false;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const { client, server } of pairs) {
          client.destroy();
          server?.destroy();
        }
        proxy.close(() => r());
      }),
  };
}

/** A PostgreSQL URL with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(proxy.port);
  return u.toString();
}
