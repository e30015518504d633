/**
 * A tiny HTTP reverse proxy, run as its own process by tests (`node --import tsx test/helpers/reverse-proxy.ts
 * <upstream port> [forwarded proto]`): like nginx with `proxy_set_header Host $host`, it passes the request on
 * with Host unchanged, appends the client's address to X-Forwarded-For and sets X-Forwarded-Proto/Host.
 * It connects upstream from 127.0.0.1 and prints `listening <port>` once ready.
 */
import { createServer, request } from 'node:http';

const upstreamPort = Number(process.argv[2]);
const proto = process.argv[3] ?? 'http';

const server = createServer((req, res) => {
  const forwarded = req.headers['x-forwarded-for'];
  const prior = Array.isArray(forwarded) ? forwarded.join(', ') : forwarded;
  const client = req.socket.remoteAddress ?? '';
  const headers = {
    ...req.headers,
    'x-forwarded-for': prior ? `${prior}, ${client}` : client,
    'x-forwarded-proto': proto,
    'x-forwarded-host': req.headers.host ?? '',
  };
  delete headers.connection;
  const upstream = request({ host: '127.0.0.1', port: upstreamPort, localAddress: '127.0.0.1', method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    res.writeHead(502).end();
  });
  req.pipe(upstream);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`listening ${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
