import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentProfiles, readAgentProfile } from '../../src/checkout/agent-profile.js';

/** A platform's UCP profile, fetched as a webhook is sent (guarded, bounded, cached), read for its order webhook. */

const PROFILE = {
  ucp: {
    version: '2026-01-11',
    capabilities: [
      { name: 'dev.ucp.shopping.checkout', version: '2026-01-11', config: { webhook_url: 'https://wrong.example/hook' } },
      { name: 'dev.ucp.shopping.order', version: '2026-01-11', config: { webhook_url: 'http://localhost:8284/webhooks/partners/p/events/order' } },
    ],
  },
};

let server: Server;
let base: string;
let hits = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    if (req.url === '/profile.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(PROFILE));
    if (req.url === '/slow') return setTimeout(() => res.writeHead(200).end(JSON.stringify(PROFILE)), 1500);
    if (req.url === '/redirect') return res.writeHead(302, { location: '/profile.json' }).end();
    if (req.url === '/huge') return res.writeHead(200).end(`{"pad":"${'x'.repeat(70 * 1024)}"}`);
    res.writeHead(200).end('not json');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const open = { allowHttp: true, allowPrivate: true };

describe('agent profiles', () => {
  it("reads the order capability's webhook URL and the version", () => {
    expect(readAgentProfile(PROFILE)).toEqual({ webhookUrl: 'http://localhost:8284/webhooks/partners/p/events/order', version: '2026-01-11' });
    expect(readAgentProfile({ ucp: { version: 'soon', capabilities: [{ name: 'x', config: { webhook_url: 'javascript:alert(1)' } }] } })).toEqual({
      webhookUrl: null,
      version: null,
    });
    expect(readAgentProfile('nonsense')).toEqual({ webhookUrl: null, version: null });
  });

  it('fetches once per URL within the time it is kept', async () => {
    const profiles = createAgentProfiles({ policy: open });
    const before = hits;
    const [a, b] = await Promise.all([profiles.get(`${base}/profile.json`), profiles.get(`${base}/profile.json`)]);
    expect(a.webhookUrl).toContain('/events/order');
    expect(b).toEqual(a);
    expect(hits - before).toBe(1);
  });

  it('reads nothing from a slow, redirecting, oversized or non-JSON answer', async () => {
    const profiles = createAgentProfiles({ policy: open, timeoutMs: 300 });
    for (const path of ['/slow', '/redirect', '/huge', '/text'])
      expect(await profiles.get(`${base}${path}`), path).toEqual({ webhookUrl: null, version: null });
  });

  it('refuses private addresses and plain http unless the deployment allows them', async () => {
    const strict = createAgentProfiles({ policy: { allowHttp: true, allowPrivate: false } });
    const before = hits;
    expect(await strict.get(`${base}/profile.json`)).toEqual({ webhookUrl: null, version: null });
    expect(hits).toBe(before);
    const httpsOnly = createAgentProfiles({ policy: { allowHttp: false, allowPrivate: true } });
    expect(await httpsOnly.get(`${base}/profile.json`)).toEqual({ webhookUrl: null, version: null });
  });
});
