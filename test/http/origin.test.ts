import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { buildTestApp, useTestApp, type TestApp } from '../helpers/app.js';
import { BASE, count, get, listeningUrl, orderBody, shop, stockRow, uid } from '../helpers/orders.js';
import { SPEC_ROUTES } from '../helpers/routes.js';

/**
 * The Origin allow-list: a request carrying an Origin that is not allowed is refused with 403 before any
 * work, whatever its key; a request without Origin (a server-side agent or chat flow) is served; the allowed origins
 * are ALLOWED_ORIGINS plus PUBLIC_URL's origin, compared as browsers send them, plus the origin the request
 * was addressed to and, on a loopback bind, localhost pages; a local service's MCP endpoint refuses foreign Host names.
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
    const key = route.permission ? (await ctx.services.keys.create(co.companyId, { kind: 'cli', name: 'test' }, 'perm', [route.permission])).key : co.key;
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

describe('the service’s own origin, and the names a local service answers to', () => {
  let plain: TestApp; // no PUBLIC_URL, no ALLOWED_ORIGINS, listening on 127.0.0.1 (the defaults)
  let wide: TestApp; // listening on every interface, as in a container
  beforeAll(async () => {
    plain = await buildTestApp(ctx.testDb.db);
    wide = await buildTestApp(ctx.testDb.db, { HOST: '0.0.0.0' });
  });
  afterAll(async () => {
    await plain?.app.close();
    await wide?.app.close();
  });

  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  const mcp = (app: TestApp, headers: Record<string, string>) =>
    app.app.inject({
      method: 'POST',
      url: `${BASE}/mcp`,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      payload: list,
    });
  const products = (app: TestApp, headers: Record<string, string>) => app.app.inject({ method: 'GET', url: `${BASE}/catalog/products`, headers });

  it('a page of the service itself may POST an order with no setting: its own origin is allowed', async () => {
    const s = await shop(plain, tee());
    const url = await listeningUrl(plain);
    const own = new URL(url).origin;
    for (const origin of [own, own.replace('127.0.0.1', 'localhost')]) {
      const res = await fetch(`${url}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': s.key, origin },
        body: JSON.stringify(orderBody({ external_reference: `own-${uid()}` })),
      });
      expect({ origin, status: res.status }).toEqual({ origin, status: 201 });
    }
    const foreign = await fetch(`${url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': s.key, origin: 'https://evil.example.com' },
      body: JSON.stringify(orderBody({ external_reference: `own-${uid()}` })),
    });
    expect(foreign.status).toBe(403);
    expect(await count(plain, 'orders', s.companyId)).toBe(2);
  });

  it('on a loopback bind, pages on localhost, 127.0.0.1 and [::1] (any port) are served; a rebound name is not', async () => {
    const s = await shop(plain);
    for (const origin of ['http://localhost:5173', 'http://LOCALHOST', 'https://127.0.0.1:8443', 'http://[::1]:3000']) {
      const res = await products(plain, { ...s.headers, origin });
      expect({ origin, status: res.statusCode }).toEqual({ origin, status: 200 });
    }
    for (const origin of ['http://evil.example.com', 'http://localhost.evil.example.com', 'http://127.0.0.1.evil.example.com']) {
      const res = await products(plain, { ...s.headers, origin });
      expect({ origin, status: res.statusCode }).toEqual({ origin, status: 403 });
    }
    // DNS rebinding: evil.example.com now resolves to 127.0.0.1, so to the browser the page and the API share an origin
    const rebound = { host: 'evil.example.com:3000', origin: 'http://evil.example.com:3000' };
    for (const res of [await products(plain, { ...s.headers, ...rebound }), await mcp(plain, { ...s.headers, ...rebound })]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
    }
  });

  it('the MCP endpoint of a local service refuses a foreign Host, with or without Origin; its loopback names and PUBLIC_URL’s are served', async () => {
    const s = await shop(plain);
    for (const host of ['evil.example.com', 'evil.example.com:3000', 'api.example.in', '10.0.0.5:3000', 'localhost@evil.example.com', '[::2]']) {
      const res = await mcp(plain, { ...s.headers, host });
      expect({ host, status: res.statusCode }).toEqual({ host, status: 403 });
      expect(res.json().error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('DNS rebinding') });
    }
    for (const host of ['localhost', 'localhost:3000', 'LocalHost:3000', '127.0.0.1:3000', '[::1]:3000', '[0:0:0:0:0:0:0:1]']) {
      const res = await mcp(plain, { ...s.headers, host });
      expect({ host, status: res.statusCode }).toEqual({ host, status: 200 });
    }
    const notAllowed = await plain.app.inject({ method: 'GET', url: `${BASE}/mcp`, headers: { ...s.headers, host: 'evil.example.com' } });
    expect(notAllowed.statusCode).toBe(403);
    // REST is not behind the Host check: a same-machine proxy that keeps the client's Host still reaches it
    expect((await products(plain, { ...s.headers, host: 'shop.example.in' })).statusCode).toBe(200);
    // PUBLIC_URL names the service: its host is one of its names (ctx: PUBLIC_URL https://api.example.in/base)
    const p = await shop(ctx);
    expect((await mcp(ctx, { ...p.headers, host: 'api.example.in' })).statusCode).toBe(200);
    expect((await mcp(ctx, { ...p.headers, host: 'evil.example.com' })).statusCode).toBe(403);
  });

  it('a local service with a trusted proxy in front (TRUST_PROXY) is published under the proxy’s names: its MCP endpoint takes them', async () => {
    const proxied = await buildTestApp(ctx.testDb.db, { TRUST_PROXY: 'loopback' });
    try {
      const s = await shop(proxied);
      const forwarded = { host: '127.0.0.1:3000', 'x-forwarded-host': 'shop.example.in', 'x-forwarded-proto': 'https' };
      expect((await mcp(proxied, { ...s.headers, ...forwarded })).statusCode).toBe(200);
      expect((await products(proxied, { ...s.headers, ...forwarded, origin: 'https://shop.example.in' })).statusCode).toBe(200);
      expect((await products(proxied, { ...s.headers, ...forwarded, origin: 'http://evil.example.com' })).statusCode).toBe(403);
    } finally {
      await proxied.app.close();
    }
  });

  it('a service listening on every interface takes any Host; its own origin is the one a request was addressed to', async () => {
    const s = await shop(wide);
    expect((await mcp(wide, { ...s.headers, host: 'shop.example.in' })).statusCode).toBe(200);
    expect((await products(wide, { ...s.headers, host: 'shop.example.in', origin: 'http://shop.example.in' })).statusCode).toBe(200);
    expect((await products(wide, { ...s.headers, host: 'localhost:3000', origin: 'http://localhost:3000' })).statusCode).toBe(200);
    for (const origin of ['https://shop.example.in', 'http://localhost:5173', 'http://evil.example.com']) {
      const res = await products(wide, { ...s.headers, host: 'shop.example.in', origin });
      expect({ origin, status: res.statusCode }).toEqual({ origin, status: 403 });
    }
  });
});
