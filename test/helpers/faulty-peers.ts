import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Peers that fail the way real ones do, for the workers' failure-injection tests (test/reliability/worker-faults.test.ts). */

/** A port nothing listens on now (taken from the system, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * An https receiver whose certificate is self-signed (made here with openssl, valid for 127.0.0.1): a client that checks
 * certificates must refuse it. `connections` counts the TLS connections tried; `requests` those that got as far as HTTP.
 */
export async function selfSignedReceiver() {
  const dir = mkdtempSync(join(tmpdir(), 'self-signed-'));
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const state = { connections: 0, requests: 0 };
  const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => {
    state.requests++;
    res.writeHead(200).end('ok');
  });
  rmSync(dir, { recursive: true, force: true });
  server.on('connection', () => state.connections++);
  server.on('tlsClientError', () => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { state, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/**
 * A receiver's address where nothing listens (connections are refused) until `recover()` starts a plain receiver on
 * it that answers 200 and counts what it got.
 */
export async function refusingReceiver() {
  const port = await freePort();
  const state = { received: 0 };
  let server: Server | undefined;
  return {
    state,
    url: `http://127.0.0.1:${port}/hook`,
    async recover() {
      server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          state.received++;
          res.writeHead(200).end('ok');
        });
      });
      await new Promise<void>((r) => server!.listen(port, '127.0.0.1', r));
    },
    close: () => new Promise<void>((r) => (server ? server.close(() => r()) : r())),
  };
}
