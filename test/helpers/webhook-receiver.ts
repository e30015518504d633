import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  body: { id: string; type: string; created_at: string; data: Record<string, unknown> };
}

/**
 * A real HTTP receiver on this machine. Records every well-received delivery (2xx answered) in `received`;
 * `down` answers 503 to everything, `failShare` answers 500 to that share of requests (seeded, repeatable),
 * `redirectTo` answers 302 to that location, `delayMs` holds every answer. `attempts` counts every request.
 */
export async function webhookReceiver(opts: { failShare?: number; seed?: number } = {}) {
  const state = { delayMs: 0, down: false, failShare: opts.failShare ?? 0, redirectTo: null as string | null, attempts: 0, received: [] as Received[] };
  let seed = opts.seed ?? 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void answer());
    const answer = async () => {
      state.attempts++;
      if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
      if (state.redirectTo) {
        res.writeHead(302, { location: state.redirectTo });
        return res.end();
      }
      if (state.down || (state.failShare > 0 && random() < state.failShare)) {
        res.writeHead(state.down ? 503 : 500);
        return res.end('no');
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      state.received.push({ headers: req.headers, raw, body: JSON.parse(raw) as Received['body'] });
      res.writeHead(200);
      res.end('ok');
    };
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { state, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}
