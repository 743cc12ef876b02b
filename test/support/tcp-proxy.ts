/**
 * A TCP proxy the test controls, between the gateway and PostgreSQL: `cut('refuse')` drops every connection
 * and refuses new ones (a database that went down, or HAProxy with no primary); `cut('blackhole')` drops them
 * and then accepts connections that never answer (a machine that vanished); `restore()` forwards again.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  port: number;
  cut(mode: 'refuse' | 'blackhole'): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let mode: 'forward' | 'blackhole' = 'forward';
  let isCut = false;
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const onConnection = (client: Socket) => {
    track(client);
    if (mode === 'blackhole') return; // accepted, never answered
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  };
  let server: Server = createServer(onConnection);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const listen = async () => {
    server = createServer(onConnection);
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  };
  const stopListening = () => new Promise<void>((r) => server.close(() => r()));
  const dropAll = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    port,
    async cut(how) {
      isCut = true;
      const closed = stopListening();
      dropAll();
      await closed;
      if (how === 'blackhole') {
        mode = 'blackhole';
        await listen();
      }
    },
    async restore() {
      if (!isCut) return;
      isCut = false;
      if (mode === 'blackhole') {
        const closed = stopListening();
        dropAll();
        await closed;
      }
      mode = 'forward';
      await listen();
    },
    async close() {
      const closed = stopListening();
      dropAll();
      await closed;
    },
  };
}
