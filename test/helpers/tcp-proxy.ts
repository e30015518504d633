import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy to put between the app and PostgreSQL (or Redis), so a test can make the server
 * unreachable without touching the real one (other tests use it):
 * - `cut('refuse')`: live connections are reset and new ones are accepted then closed at once;
 * - `cut('blackhole')`: live connections are reset and new ones are accepted but never answered
 *   (what a dead host or a dropped route looks like: only timeouts end the wait);
 * - `restore()`: new connections are forwarded again.
 */
export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  url(upstreamUrl: string): string;
  cut(mode?: 'refuse' | 'blackhole'): void;
  restore(): void;
  /** Connections accepted while cut, for the figures. */
  readonly refused: number;
  close(): Promise<void>;
}

export async function startTcpProxy(upstreamHost: string, upstreamPort: number): Promise<TcpProxy> {
  let mode: 'open' | 'refuse' | 'blackhole' = 'open';
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
    if (mode === 'blackhole') {
      refused++;
      client.pause();
      return;
    }
    const upstream = connect(upstreamPort, upstreamHost);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
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
      for (const s of live) s.resetAndDestroy();
    },
    restore() {
      for (const s of live) if (mode === 'blackhole') s.destroy();
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
