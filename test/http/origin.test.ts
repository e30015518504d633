import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { useTestApp } from '../helpers/app.js';
import { BASE, count, get, listeningUrl, orderBody, shop, stockRow, uid } from '../helpers/orders.js';
import { SPEC_ROUTES } from '../helpers/routes.js';

/**
 * The Origin allow-list (issue 18): a request carrying an Origin that is not allowed is refused with 403 before any
 * work, whatever its key; a request without Origin (a server-side agent or chat flow) is served; the allowed origins
 * are ALLOWED_ORIGINS plus PUBLIC_URL's origin, compared as browsers send them.
 */

const ctx = useTestApp({ ALLOWED_ORIGINS: 'https://Shop.Example.com, http://localhost:5173', PUBLIC_URL: 'https://api.example.in/base' });

const tee = () => [{ sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', selling_price: '299.00', stock: '10' }] }];

function inject(route: (typeof SPEC_ROUTES)[number], headers: Record<string, string>) {
  return ctx.app.inject({
    method: route.method,
    url: `${BASE}${route.url}`,
    headers: { ...headers, ...(route.body ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } : {}) },
    payload: route.body ? JSON.stringify(route.body) : undefined,
  });
}

describe.each(SPEC_ROUTES)('Origin on $method $url ($name)', (route) => {
  it('a foreign, "null" or malformed Origin is refused with 403 before the key is looked at; none or an allowed one is served', async () => {
    const co = await shop(ctx);
    const key = route.permission ? (await ctx.services.keys.create(co.companyId, 'perm', [route.permission])).key : co.key;
    for (const origin of ['https://evil.example.com', 'null', 'https://shop.example.com.evil.net', 'not a url', 'http://shop.example.com']) {
      for (const headers of [{ 'x-api-key': key }, { 'x-api-key': 'cok_wrong' }, {}] as Record<string, string>[]) {
        const res = await inject(route, { ...headers, origin });
        expect({ origin, status: res.statusCode }).toEqual({ origin, status: 403 });
        expect(res.json().error.code).toBe('forbidden');
        expect(res.json().error.message).toContain('Origin');
      }
    }
    for (const origin of [undefined, 'https://shop.example.com', 'https://SHOP.example.com:443', 'http://localhost:5173', 'https://api.example.in']) {
      const res = await inject(route, { 'x-api-key': key, ...(origin ? { origin } : {}) });
      expect({ origin, status: res.statusCode }).not.toEqual({ origin, status: 403 });
      expect(res.statusCode).not.toBe(401);
      expect(res.statusCode).toBeLessThan(500);
    }
  });
});

describe('Origin refusals do no work', () => {
  it('an order sent from a foreign origin with a valid key creates nothing, reserves nothing and spends no rate budget', async () => {
    const s = await shop(ctx, tee());
    const body = orderBody({ external_reference: `o-${uid()}` });
    const refused = await ctx.app.inject({
      method: 'POST',
      url: `${BASE}/orders`,
      headers: { 'x-api-key': s.key, origin: 'https://evil.example.com' },
      payload: body,
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['x-ratelimit-remaining']).toBeUndefined();
    expect(await count(ctx, 'orders', s.companyId)).toBe(0);
    expect(await count(ctx, 'customers', s.companyId)).toBe(0);
    expect(await stockRow(ctx, s.companyId, s.variantIds['TEE-M'])).toMatchObject({ reserved: '0.000' });
    // the same order without Origin is placed
    const placed = await ctx.app.inject({ method: 'POST', url: `${BASE}/orders`, headers: { 'x-api-key': s.key }, payload: body });
    expect(placed.statusCode, placed.body).toBe(201);
    expect(await count(ctx, 'orders', s.companyId)).toBe(1);
  });

  it('public routes (probes, signed links) are not behind the check: a browser opens them from anywhere', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/healthz', headers: { origin: 'https://evil.example.com' } });
    expect(res.statusCode).toBe(200);
  });

  it('DNS rebinding on /mcp: Host and Origin both evil.example.com is refused; the official SDK client without Origin lists tools', async () => {
    const s = await shop(ctx);
    const rebinding = await ctx.app.inject({
      method: 'POST',
      url: `${BASE}/mcp`,
      headers: {
        host: 'evil.example.com',
        origin: 'http://evil.example.com',
        'x-api-key': s.key,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      },
    });
    expect(rebinding.statusCode).toBe(403);
    expect(rebinding.json().error.code).toBe('forbidden');

    const url = await listeningUrl(ctx);
    const client = new Client({ name: 'vitest', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { 'x-api-key': s.key } } }));
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });

  it('the lookup of a refused request is 403 too, and the body is the error shape with the request id', async () => {
    const s = await shop(ctx);
    const res = await get(ctx, { 'x-api-key': s.key, origin: 'https://evil.example.com' }, '/orders/ORD-1');
    expect(res.status).toBe(403);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(res.body.error).toMatchObject({ code: 'forbidden' });
  });
});

describe('ALLOWED_ORIGINS', () => {
  it('is empty by default: every Origin is refused but PUBLIC_URL’s', () => {
    expect(loadConfig({}).ALLOWED_ORIGINS).toEqual([]);
    expect(loadConfig({ ALLOWED_ORIGINS: ' https://A.example:443 ,, http://b.example:8080/path ' }).ALLOWED_ORIGINS).toEqual([
      'https://a.example',
      'http://b.example:8080',
    ]);
  });

  it('a value that is not an http(s) origin stops start-up with the variable named', () => {
    for (const bad of ['shop.example.com', 'ftp://x.example', 'null', '*'])
      expect(() => loadConfig({ ALLOWED_ORIGINS: bad })).toThrow(expect.objectContaining({ message: expect.stringContaining('ALLOWED_ORIGINS') }));
    expect(() => loadConfig({ ALLOWED_ORIGINS: 'nope' })).toThrow(ConfigError);
  });
});
