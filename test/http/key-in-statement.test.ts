import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { keyLookups, recordingDatabase } from '../helpers/round-trips.js';
import { BASE, orderBody, shop } from '../helpers/orders.js';
import { createKeyService } from '../../src/keys/keys.service.js';
import { keyCheckOwed } from '../../src/keys/key-check.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';

/**
 * A key this instance has authenticated is checked inside the request's first statement instead of a look-up of its
 * own (src/keys/key-check.ts). Two instances on one database: `a` revokes and changes companies, `b` serves
 * with the key in its memory. Whatever `b` remembers, a refusal must show from the very next request, look exactly
 * like any other, and leave nothing written.
 */
let testDb: TestDatabase;
let a: TestApp;
let b: TestApp;
let recorder: ReturnType<typeof recordingDatabase>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  recorder = recordingDatabase(testDb.db);
  a = await buildTestApp(testDb.db);
  b = await buildTestApp(recorder);
});
afterAll(async () => {
  await a?.app.close();
  await b?.app.close();
  await testDb?.drop();
});

const TEE = [{ sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', name: 'M', selling_price: '299.00', stock: '5' }] }];
const UNKNOWN = `cok_${'A'.repeat(12)}_${'B'.repeat(32)}`;

const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const mcpCall = (name: string, args: object, meta?: object) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

/** The routes that check the key in their statement, each as a request that succeeds for a good key. */
const ROUTES: { name: string; method: 'GET' | 'POST'; url: string; body?: () => object; headers?: Record<string, string>; ok: number }[] = [
  { name: 'browse', method: 'GET', url: '/catalog/products', ok: 200 },
  { name: 'search', method: 'GET', url: '/catalog/products?search=tee', ok: 200 },
  { name: 'in-stock browse', method: 'GET', url: '/catalog/products?in_stock=true', ok: 200 },
  { name: 'product detail', method: 'GET', url: '/catalog/products/TEE-M', ok: 200 },
  { name: 'unknown product', method: 'GET', url: '/catalog/products/NOPE', ok: 404 },
  { name: 'categories', method: 'GET', url: '/catalog/categories', ok: 200 },
  { name: 'create order', method: 'POST', url: '/orders', body: () => orderBody(), ok: 201 },
  { name: 'order lookup', method: 'GET', url: '/orders/NOPE-1', ok: 404 },
  { name: 'customer lookup (key read on its own)', method: 'GET', url: '/customers?phone=9876543210', ok: 404 },
  { name: 'MCP browse_catalog', method: 'POST', url: '/mcp', body: () => mcpCall('browse_catalog', {}), ok: 200 },
  // a tool that writes never runs on a key from memory (src/mcp/tools.ts): its key is read in full before it runs
  { name: 'MCP place_order (key read on its own)', method: 'POST', url: '/mcp', body: () => mcpCall('place_order', orderBody()), ok: 200 },
  {
    name: 'MCP browse_catalog, revision 2026-07-28',
    method: 'POST',
    url: '/mcp',
    body: () => mcpCall('browse_catalog', {}, MODERN_META),
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'browse_catalog' },
    ok: 200,
  },
  { name: 'MCP tools/list (key read on its own)', method: 'POST', url: '/mcp', body: () => ({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), ok: 200 },
];

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const headersOf = (route: (typeof ROUTES)[number], key: string) => ({
  'x-api-key': key,
  ...(route.url === '/mcp' ? MCP_HEADERS : {}),
  ...route.headers,
});
const send = (route: (typeof ROUTES)[number], key: string) =>
  b.app.inject({ method: route.method, url: `${BASE}${route.url}`, headers: headersOf(route, key), payload: route.body?.() });

/** What a client can tell apart: status, body, and which headers came (values such as the request id differ). */
const visible = (res: Awaited<ReturnType<typeof send>>) => ({
  status: res.statusCode,
  body: res.body,
  headers: Object.keys(res.headers)
    .filter((h) => h !== 'date')
    .sort(),
});

async function counts(companyId: string) {
  const [row] = await testDb.db.query<{ orders: number; customers: number; reserved: string }>(
    sql`SELECT (SELECT count(*)::int FROM orders WHERE company_id = ${companyId}) AS orders,
               (SELECT count(*)::int FROM customers WHERE company_id = ${companyId}) AS customers,
               (SELECT coalesce(sum(reserved), 0)::text FROM stock_levels WHERE company_id = ${companyId}) AS reserved`,
  );
  return row;
}

describe.each(ROUTES)('a key known to the instance, on $name', (route) => {
  it('is not looked up again while it stays good', async () => {
    const s = await shop(a, TEE);
    expect((await send(route, s.key)).statusCode).toBe(route.ok);
    recorder.statements.length = 0;
    expect((await send(route, s.key)).statusCode).toBe(route.ok);
    expect(keyLookups(recorder.statements)).toHaveLength(route.name.includes('key read on its own') ? 1 : 0);
  });

  it('revoked through another instance: refused on the very next request, exactly like an unknown key, and nothing written', async () => {
    const s = await shop(a, TEE);
    expect((await send(route, s.key)).statusCode).toBe(route.ok);
    await a.services.keys.revoke(s.companyId, { kind: 'cli', name: 'test' }, s.keyRecord.id);
    const before = await counts(s.companyId);
    const refused = await send(route, s.key);
    expect(visible(refused)).toEqual(visible(await send(route, UNKNOWN)));
    expect(refused.statusCode).toBe(401);
    expect(await counts(s.companyId)).toEqual(before);
    // refused once, forgotten: the next request reads the key from the database again
    recorder.statements.length = 0;
    expect((await send(route, s.key)).statusCode).toBe(401);
    expect(keyLookups(recorder.statements)).toHaveLength(1);
  });

  it('its company made inactive, or moved to a plan without orders, through another instance: 403 from the next request, as a fresh request gets it', async () => {
    for (const change of [sql`status = 'inactive'`, sql`plan = 'messaging'`]) {
      const s = await shop(a, TEE);
      expect((await send(route, s.key)).statusCode).toBe(route.ok);
      await testDb.db.query(sql`UPDATE companies SET ${change} WHERE id = ${s.companyId}`);
      const before = await counts(s.companyId);
      const refused = await send(route, s.key);
      expect(refused.statusCode).toBe(403);
      const fresh = await a.app.inject({ method: route.method, url: `${BASE}${route.url}`, headers: headersOf(route, s.key), payload: route.body?.() });
      expect(visible(refused)).toEqual(visible(fresh));
      expect(await counts(s.companyId)).toEqual(before);
    }
  });
});

describe('a known key revoked elsewhere, on a request refused before any statement', () => {
  it.each([
    ['browse with a limit out of bounds', 'GET', '/catalog/products?limit=0', undefined],
    ['a product id too long', 'GET', `/catalog/products/${'X'.repeat(300)}`, undefined],
    ['an order lookup with an unusable phone', 'GET', '/orders/ORD-1?phone=12', undefined],
    ['an order with no items', 'POST', '/orders', { ...orderBody(), items: [] }],
    ['an order with a bad phone', 'POST', '/orders', orderBody({ customer: { name: 'A', phone: '12' } })],
  ] as const)('%s: 401 like an unknown key, not the input error', async (_name, method, url, body) => {
    const s = await shop(a, TEE);
    expect((await b.app.inject({ url: `${BASE}/catalog/categories`, headers: s.headers })).statusCode).toBe(200);
    const good = await b.app.inject({ method, url: `${BASE}${url}`, headers: s.headers, payload: body });
    expect([400, 404, 422]).toContain(good.statusCode);
    await a.services.keys.revoke(s.companyId, { kind: 'cli', name: 'test' }, s.keyRecord.id);
    const refused = await b.app.inject({ method, url: `${BASE}${url}`, headers: s.headers, payload: body });
    const unknown = await b.app.inject({ method, url: `${BASE}${url}`, headers: { 'x-api-key': UNKNOWN }, payload: body });
    expect(refused.statusCode).toBe(401);
    expect(visible(refused)).toEqual(visible(unknown));
  });
});

describe('the keys an instance holds in memory', () => {
  it('are bounded: the least recently used is dropped first', async () => {
    const keys = createKeyService({ db: testDb.db, knownKeysMax: 2 });
    const made = await Promise.all([1, 2, 3].map(() => createCompanyWithKey(a.services)));
    for (const m of made) expect((await keys.authenticate(m.key)).ok).toBe(true);
    expect(keys.knownKeys()).toBe(2);
    // the first key was dropped: asked for from memory, it is read from the database and comes back without a check
    const first = await keys.authenticate(made[0].key, { deferred: true });
    expect(first.ok && keyCheckOwed(first.tenant)).toBe(false);
    const third = await keys.authenticate(made[2].key, { deferred: true });
    expect(third.ok && keyCheckOwed(third.tenant)).toBe(true);
  });
});
