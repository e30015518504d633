import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';

const BASE = '/api/v1/commerce';
const MODERN = '2026-07-28';
let testDb: TestDatabase;
let ctx: TestApp;
let origin: string;
let tenant: Awaited<ReturnType<typeof createCompanyWithKey>>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  ctx = await buildTestApp(testDb.db);
  origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  tenant = await createCompanyWithKey(ctx.services);
  await addLocations(ctx.db, tenant.company.id);
  await addProduct(ctx.db, tenant.company.id, {
    sku: 'SHIRT',
    name: 'Cotton Shirt',
    variants: [{ sku: 'SHIRT-RED-XL', attributes: { Colour: 'Red', Size: 'XL' }, selling_price: '799.00', mrp: '999.00', stock: '10' }],
  });
});
afterAll(async () => {
  await ctx?.app.close();
  await testDb?.drop();
});

const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

/** One 2026-07-28 request as the revision sends it: `_meta` envelope, `Mcp-Method` and (for tools/call) `Mcp-Name`. */
async function modern(method: string, params: Record<string, unknown> = {}, opts: { key?: string; address?: string; headers?: Record<string, string> } = {}) {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  const res = await fetch(`${opts.address ?? origin}${BASE}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...name,
      'x-api-key': opts.key ?? tenant.key,
      ...opts.headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

async function rest(url: string) {
  const res = await fetch(`${origin}${BASE}${url}`, { headers: { 'x-api-key': tenant.key } });
  return { status: res.status, body: await res.json() };
}

/** The same call in the 2025 era (no handshake: the stateless server takes a bare tools/call). */
async function legacyCall(name: string, args: unknown) {
  const res = await fetch(`${origin}${BASE}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': '2025-11-25', 'x-api-key': tenant.key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  return ((await res.json()) as { result: Record<string, unknown> }).result;
}

/** A modern result less what the revision adds to every result (`resultType`, `serverInfo` in `_meta`). */
const sameAsLegacy = ({ resultType, _meta, ...rest }: Record<string, unknown>) => {
  expect(resultType).toBe('complete');
  expect(_meta).toBeDefined();
  return rest;
};

const toolJson = (result: { content: { type: string; text: string }[] }) => JSON.parse(result.content[0].text);
const unsign = (value: unknown) => JSON.parse(JSON.stringify(value).replace(/expires=\d+&sig=[\w-]+/g, 'SIGNED'));

describe('revision 2026-07-28 beside the 2025 era on the same endpoint', () => {
  it('answers server/discover with every revision served, our server info and a cache hint', async () => {
    const res = await modern('server/discover');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body.result.supportedVersions).toEqual([MODERN]); // the stateless revisions; 2025-era clients use initialize
    expect(res.body.result.ttlMs).toBe(3_600_000);
    expect(res.body.result.cacheScope).toBe('public');
    expect(res.body.result.capabilities.tools).toBeDefined();
    expect(res.body.result._meta['io.modelcontextprotocol/serverInfo'].name).toBe('commerce-api');
    expect(res.body.result.instructions).toMatch(/browse_catalog/);
  });

  it('answers prompts and resources as empty lists, cacheable like the tool list (there are none; clients ask anyway)', async () => {
    for (const [method, field] of [
      ['prompts/list', 'prompts'],
      ['resources/list', 'resources'],
      ['resources/templates/list', 'resourceTemplates'],
    ] as const) {
      const res = await modern(method);
      expect(res.status, method).toBe(200);
      expect(res.body.result[field]).toEqual([]);
      expect(res.body.result.ttlMs).toBe(3_600_000);
      expect(res.body.result.cacheScope).toBe('public');
    }
    const discover = await modern('server/discover');
    expect(discover.body.result.capabilities).toMatchObject({ tools: {}, prompts: { listChanged: false }, resources: { listChanged: false } });
  });

  it('answers a resource read as not found, -32602 with the URI in data (SEP-2164), since the resources capability is declared', async () => {
    const uri = 'test://nonexistent-resource';
    const res = await modern('resources/read', { uri }, { headers: { 'mcp-name': uri } });
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32602, data: { uri } } });
  });

  it('lists the same twenty-one tools with the same schemas as the 2025 era, cacheable for an hour by anyone (no company data)', async () => {
    const res = await modern('tools/list');
    expect(res.status).toBe(200);
    expect(res.body.result.resultType).toBe('complete');
    expect(res.body.result.ttlMs).toBe(3_600_000);
    expect(res.body.result.cacheScope).toBe('public');
    const legacy = await fetch(`${origin}${BASE}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': tenant.key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const legacyBody = await legacy.json();
    expect(legacyBody.result.ttlMs).toBeUndefined();
    expect(res.body.result.tools).toEqual(legacyBody.result.tools);
    expect(res.body.result.tools).toHaveLength(21);
  });

  it('calls browse_catalog with the REST body as result, JSON, and no cache hint on live stock', async () => {
    const res = await modern('tools/call', { name: 'browse_catalog', arguments: { search: 'shirt' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const result = res.body.result;
    expect(result.isError).toBeFalsy();
    expect(result.ttlMs).toBeUndefined();
    expect(result.cacheScope).toBeUndefined();
    const viaRest = await rest('/catalog/products?search=shirt');
    expect(unsign(result.structuredContent)).toEqual(unsign(viaRest.body));
    expect(unsign(toolJson(result))).toEqual(unsign(viaRest.body));
    expect(result.structuredContent.data[0].variants[0].available).toBe('10.000');
  });

  it('answers a refused call with isError and the REST error object, as in the 2025 era', async () => {
    const missing = await modern('tools/call', { name: 'get_product_details', arguments: { id: 'NOPE' } });
    expect(missing.body.result.isError).toBe(true);
    expect(toolJson(missing.body.result)).toEqual((await rest('/catalog/products/NOPE')).body);
    expect(sameAsLegacy(missing.body.result)).toEqual(await legacyCall('get_product_details', { id: 'NOPE' }));
    const bad = await modern('tools/call', { name: 'browse_catalog', arguments: { limit: 500 } });
    expect(bad.body.result.isError).toBe(true);
    expect(toolJson(bad.body.result).error.code).toBe('validation_failed');
    expect(toolJson(bad.body.result).error.details[0].path).toBe('limit');
    expect(sameAsLegacy(bad.body.result)).toEqual(await legacyCall('browse_catalog', { limit: 500 }));
    const unknown = await modern('tools/call', { name: 'no_such_tool', arguments: {} });
    expect(toolJson(unknown.body.result).error.code).toBe('not_found');
  });

  it('takes the same key and company: no key is 401, another company sees nothing', async () => {
    const res = await fetch(`${origin}${BASE}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }),
    });
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('unauthorized');
    const other = await createCompanyWithKey(ctx.services);
    const theirs = await modern('tools/call', { name: 'browse_catalog', arguments: {} }, { key: other.key });
    expect(theirs.body.result.structuredContent.total).toBe(0);
  });

  it('checks Mcp-Method and Mcp-Name against the body (400, HeaderMismatch -32020)', async () => {
    const wrongName = await modern('tools/call', { name: 'browse_catalog', arguments: {} }, { headers: { 'mcp-name': 'place_order' } });
    expect(wrongName.status).toBe(400);
    expect(wrongName.body.error.code).toBe(-32020);
    const wrongMethod = await modern('tools/list', {}, { headers: { 'mcp-method': 'tools/call' } });
    expect(wrongMethod.status).toBe(400);
    expect(wrongMethod.body.error.code).toBe(-32020);
  });

  it('refuses a version it does not serve with the list of those it does', async () => {
    const res = await fetch(`${origin}${BASE}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'server/discover', 'x-api-key': tenant.key },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'server/discover',
        params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.data.supported).toContain(MODERN);
  });

  it('keeps answering the 2025-era official client in JSON on the same endpoint', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${origin}${BASE}/mcp`), { requestInit: { headers: { 'x-api-key': tenant.key } } });
    const client = new Client({ name: 'vitest', version: '1.0.0' });
    await client.connect(transport);
    expect(transport.protocolVersion).toBe('2025-11-25');
    const result = await client.callTool({ name: 'browse_catalog', arguments: { search: 'shirt' } });
    expect((result.structuredContent as { total: number }).total).toBe(1);
    await client.close();
  });
});

describe('HTTP requests per tool call for a fresh client (docs/performance.md)', () => {
  it('2025 era, official SDK client: initialize, notifications/initialized, its GET for a stream (405), then tools/call', async () => {
    const seen: string[] = [];
    const counting: typeof fetch = async (input, init) => {
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method: string }).method : '';
      seen.push(`${init?.method ?? 'GET'} ${body}`.trim());
      return fetch(input, init);
    };
    const transport = new StreamableHTTPClientTransport(new URL(`${origin}${BASE}/mcp`), {
      requestInit: { headers: { 'x-api-key': tenant.key } },
      fetch: counting,
    });
    const client = new Client({ name: 'vitest', version: '1.0.0' });
    await client.connect(transport);
    await client.callTool({ name: 'list_categories', arguments: {} });
    await client.close();
    expect(seen).toEqual(['POST initialize', 'POST notifications/initialized', 'GET', 'POST tools/call']);
  });

  it('2026-07-28: one POST (the call carries its version and capabilities; no handshake)', async () => {
    const res = await modern('tools/call', { name: 'list_categories', arguments: {} });
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBeFalsy();
  });
});

describe('budget: one request per tool call whatever the revision', () => {
  it('spends one per 2026-07-28 tools/call; server/discover, tools/list and notifications spend none', async () => {
    const limited = await buildTestApp(testDb.db, { RATE_LIMIT_MAX: '3' });
    const address = await limited.app.listen({ host: '127.0.0.1', port: 0 });
    const t = await createCompanyWithKey(limited.services);
    const opts = { key: t.key, address };
    try {
      for (const method of ['server/discover', 'tools/list', 'server/discover']) {
        const res = await modern(method, {}, opts);
        expect(res.status, method).toBe(200);
        expect(res.headers.get('x-ratelimit-remaining'), method).toBe('3');
      }
      const note = await fetch(`${address}${BASE}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': '2025-11-25', 'x-api-key': t.key },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      });
      expect(note.status).toBe(202);
      expect(note.headers.get('x-ratelimit-remaining')).toBe('3');
      const call = () => modern('tools/call', { name: 'list_categories', arguments: {} }, opts);
      expect((await call()).headers.get('x-ratelimit-remaining')).toBe('2');
      expect((await call()).headers.get('x-ratelimit-remaining')).toBe('1');
      expect((await call()).headers.get('x-ratelimit-remaining')).toBe('0');
      const over = await call();
      expect(over.status).toBe(429);
      expect(over.body.error.code).toBe('rate_limited');
    } finally {
      await limited.app.close();
    }
  });
});
