// The MCP conformance suite cannot send an API key: this proxy forwards every request to PROXY_TARGET unchanged
// (Host and Origin included, so the DNS-rebinding checks still reach the service) and adds X-API-KEY.
// Run by .ci/mcp-conformance.sh with Node 24, which runs this file as it is (type stripping).
import http from 'node:http';

const target = new URL(process.env.PROXY_TARGET ?? '');
const key = process.env.PROXY_KEY ?? '';
const port = Number(process.env.PROXY_PORT);
http
  .createServer((req, res) => {
    const headers = { ...req.headers, 'x-api-key': key };
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (err) => res.writeHead(502).end(String(err)));
    req.pipe(upstream);
  })
  .listen(port, '127.0.0.1', () => console.log(`mcp-key-proxy: 127.0.0.1:${port} -> ${target.origin}`));
