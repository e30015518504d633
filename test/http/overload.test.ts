import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPgDatabase, type Database } from '../../src/db/client.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { BASE, count, orderBody, shop, stockRow, uid } from '../helpers/orders.js';
import { sql } from 'drizzle-orm';

/**
 * Load shedding: past a bound (heap, event-loop delay, database pool queue) new work is refused at the door
 * with 503 `unavailable` and Retry-After in the error shape, before authentication or any query; the probes stay
 * answerable and readiness says why; a refused order leaves nothing behind.
 */

const tee = () => [{ sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', selling_price: '299.00', stock: '1000' }] }];
let testDb: TestDatabase;
const apps: TestApp[] = [];
const opened: Database[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  for (const a of apps) await a.app.close();
  for (const d of opened) await d.close();
  await testDb?.drop();
});

async function appWith(overrides: Record<string, string>, db: Database = testDb.db) {
  const a = await buildTestApp(db, overrides);
  apps.push(a);
  return a;
}

/** under-pressure samples heap and event-loop delay once a second: wait for its first sample. */
async function sampled(a: TestApp) {
  for (let i = 0; i < 100 && a.app.memoryUsage().heapUsed === 0; i++) await new Promise((r) => setTimeout(r, 50));
  expect(a.app.memoryUsage().heapUsed).toBeGreaterThan(0);
}

function expectRefusal(
  res: { statusCode: number; headers: Record<string, unknown>; json: () => { error: { code: string; message: string } } },
  reason: RegExp,
) {
  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toBe('2');
  const body = res.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe('unavailable');
  expect(body.error.message, body.error.message).toMatch(reason);
  expect(body.error.message).toContain('retry after 2 s');
}

describe('heap bound', () => {
  it('past OVERLOAD_MAX_HEAP_MB every API request is refused with 503 and Retry-After before its key is read; probes answer, readiness says why', async () => {
    const normal = await appWith({});
    const s = await shop(normal, tee());
    const a = await appWith({ OVERLOAD_MAX_HEAP_MB: '1' });
    await sampled(a);

    const browse = await a.app.inject({ method: 'GET', url: `${BASE}/catalog/products`, headers: { 'x-api-key': s.key } });
    expectRefusal(browse, /heap \d+ MB in use, limit 1 MB/);
    // no key, a wrong key: the same 503, so nothing was looked up
    expectRefusal(await a.app.inject({ method: 'GET', url: `${BASE}/catalog/products` }), /heap/);
    expectRefusal(await a.app.inject({ method: 'GET', url: `${BASE}/catalog/products`, headers: { 'x-api-key': 'cok_wrong' } }), /heap/);
    const mcp = await a.app.inject({
      method: 'POST',
      url: `${BASE}/mcp`,
      headers: { 'x-api-key': s.key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expectRefusal(mcp, /heap/);

    // an order refused under overload writes nothing; the same order is placed once the service is calm
    const body = orderBody({ external_reference: `ov-${uid()}` });
    expectRefusal(await a.app.inject({ method: 'POST', url: `${BASE}/orders`, headers: { 'x-api-key': s.key }, payload: body }), /heap/);
    expect(await count(a, 'orders', s.companyId)).toBe(0);
    expect(await count(a, 'customers', s.companyId)).toBe(0);
    expect(await stockRow(a, s.companyId, s.variantIds['TEE-M'])).toMatchObject({ reserved: '0.000' });

    expect((await a.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const ready = await a.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().error).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/^overloaded \(heap \d+ MB in use, limit 1 MB\)$/) });

    // the same database, an instance without the bound: served, and the order is placed once
    expect((await normal.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    const placed = await normal.app.inject({ method: 'POST', url: `${BASE}/orders`, headers: { 'x-api-key': s.key }, payload: body });
    expect(placed.statusCode, placed.body).toBe(201);
    expect(await count(a, 'orders', s.companyId)).toBe(1);
  });
});

describe('event-loop delay bound', () => {
  it('a blocked event loop makes the next requests 503 until a calm sample', async () => {
    const a = await appWith({ OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '20' });
    await sampled(a);
    let refused: Awaited<ReturnType<typeof a.app.inject>> | undefined;
    // block the loop across a sample (once a second); the sample after it reports the delay
    for (let attempt = 0; attempt < 5 && !refused; attempt++) {
      const until = Date.now() + 1100;
      while (Date.now() < until);
      await new Promise((r) => setTimeout(r, 20));
      const res = await a.app.inject({ method: 'GET', url: `${BASE}/catalog/categories` });
      if (res.statusCode === 503) refused = res;
    }
    expect(refused).toBeDefined();
    expectRefusal(refused!, /event loop (delay \d+ ms|blocked through the last sample), limit 20 ms/);
    expect((await a.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    // calm again after a sample without blocking: served (401 for no key, not 503)
    let calm = 0;
    for (let i = 0; i < 60 && calm !== 401; i++) {
      await new Promise((r) => setTimeout(r, 100));
      calm = (await a.app.inject({ method: 'GET', url: `${BASE}/catalog/categories` })).statusCode;
    }
    expect(calm).toBe(401);
  });
});

/** On PGlite there is no pool (one connection, queued inside PGlite): the pool bound is a PostgreSQL server's. */
describe.skipIf(inject('testDb') === null)('database pool bound', () => {
  it('with queries queued for a connection at the bound, new work is refused; accepted orders are whole and refused ones left nothing', async () => {
    const small = createPgDatabase({ url: testDb.url!, poolMax: 2, statementTimeoutMs: 30_000, connectTimeoutMs: 10_000 });
    opened.push(small);
    const a = await appWith({ OVERLOAD_MAX_DB_POOL_WAITING: '1' }, small);
    const s = await shop(a, tee());

    // two connections busy and one query waiting: the bound is met
    const held = [1, 2, 3].map(() => small.query(sql`SELECT pg_sleep(1.5)`));
    await new Promise((r) => setTimeout(r, 200));
    expect(small.poolStats().waiting).toBe(1);
    expectRefusal(
      await a.app.inject({ method: 'GET', url: `${BASE}/catalog/products`, headers: { 'x-api-key': s.key } }),
      /1 queries waiting for a database connection, limit 1/,
    );
    const ready = await a.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().error.message).toMatch(/^overloaded \(1 queries waiting/);
    expect((await a.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    await Promise.all(held);
    expect((await a.app.inject({ method: 'GET', url: `${BASE}/catalog/products`, headers: { 'x-api-key': s.key } })).statusCode).toBe(200);

    // orders arriving while the pool is held: the first wave passes the door and queues (no waiting yet when each
    // arrived), the second meets the queue the first made and is refused; the first wave then completes
    const order = () =>
      a.app.inject({ method: 'POST', url: `${BASE}/orders`, headers: { 'x-api-key': s.key }, payload: orderBody({ external_reference: `b-${uid()}` }) });
    const hold = [1, 2].map(() => small.query(sql`SELECT pg_sleep(1.5)`));
    await new Promise((r) => setTimeout(r, 200));
    const first = Array.from({ length: 10 }, order);
    await new Promise((r) => setTimeout(r, 300));
    expect(small.poolStats().waiting).toBeGreaterThanOrEqual(1);
    const second = await Promise.all(Array.from({ length: 10 }, order));
    for (const r of second) expectRefusal(r, /waiting for a database connection/);
    await Promise.all(hold);
    for (const r of await Promise.all(first)) expect(r.statusCode, r.body).toBe(201);
    // exactly the accepted orders exist, each whole, reserving its one unit
    expect(await count(a, 'orders', s.companyId)).toBe(10);
    expect(await count(a, 'order_lines', s.companyId)).toBe(10);
    const after = await stockRow(a, s.companyId, s.variantIds['TEE-M']);
    expect(after).toMatchObject({ reserved: '10.000', open: '10.000' });
  });
});

describe('probes', () => {
  it('are quiet: a health check writes no request log line, while an API request still logs its lines', async () => {
    const a = await appWith({});
    const before = a.logs.length;
    for (let i = 0; i < 3; i++) {
      expect((await a.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect((await a.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    }
    expect(a.logs.slice(before)).toEqual([]);
    await a.app.inject({ method: 'GET', url: `${BASE}/catalog/categories` });
    expect(a.logs.slice(before).map((l) => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
  });
});
