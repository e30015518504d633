import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy to put between the app and PostgreSQL (or Redis), so a test can make the server
 * unreachable without touching the real one (other tests use it):
 * - `cut('refuse')`: live connections are reset and new ones are accepted then closed at once;
 * - `cut('blackhole')`: live connections are reset and new ones are accepted but never answered
 *   (what a dead host or a dropped route looks like: only timeouts end the wait);
 * - `cut('freeze')`: live connections stay open but nothing passes any more, and new ones are
 *   blackholed (a silent partition: no reset ever reaches the app);
 * - `restore()`: new connections are forwarded again (frozen ones are closed).
 */
export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  url(upstreamUrl: string): string;
  cut(mode?: 'refuse' | 'blackhole' | 'freeze'): void;
  restore(): void;
  /** Connections accepted while cut, for the figures. */
  readonly refused: number;
  close(): Promise<void>;
}

export async function startTcpProxy(upstreamHost: string, upstreamPort: number): Promise<TcpProxy> {
  let mode: 'open' | 'refuse' | 'blackhole' | 'freeze' = 'open';
  let refused = 0;
  const live = new Set<Socket>();
  const track = (s: Socket) => {
    live.add(s);
    s.on('close', () => live.delete(s));
    s.on('error', () => {});
  };

  const server: Server = createServer((client) => {
    track(client);
    if (mode === 'refuse') {
      refused++;
      client.destroy();
      return;
    }
    if (mode === 'blackhole' || mode === 'freeze') {
      refused++;
      client.pause();
      return;
    }
    const upstream = connect(upstreamPort, upstreamHost);
    track(upstream);
    client.on('data', (d) => mode === 'open' && upstream.write(d));
    upstream.on('data', (d) => mode === 'open' && client.write(d));
    const kill = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', kill);
    upstream.on('close', kill);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  return {
    port,
    url(upstreamUrl) {
      const u = new URL(upstreamUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut(m = 'refuse') {
      mode = m;
      if (m !== 'freeze') for (const s of live) s.resetAndDestroy();
    },
    restore() {
      if (mode !== 'open') for (const s of live) s.destroy();
      mode = 'open';
    },
    get refused() {
      return refused;
    },
    async close() {
      for (const s of live) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
