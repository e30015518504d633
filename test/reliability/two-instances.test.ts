import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openRedis } from '../../src/boot.js';
import { createPgDatabase, type Database } from '../../src/db/client.js';
import { createCourierWorker } from '../../src/fulfilment/worker.js';
import type { BookingRequest, CourierAdapter } from '../../src/couriers/types.js';
import { runSoak, seedSoakCompany } from '../../bench/soak-run.js';
import { buildTestApp, captureLogger, testConfig, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { auditCompany } from '../helpers/audit.js';

/**
 * Two service instances (two apps, each with its own pool and Redis client, on two ports) against one
 * PostgreSQL and one Redis: the key's rate limit is one budget, stock is never oversold, and two
 * courier workers never book one order twice.
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let testDb: TestDatabase;
const pools: Database[] = [];
const redisClients: Redis[] = [];
const apps: TestApp[] = [];

/** On embedded PGlite (no PostgreSQL server) this file is skipped: two instances share one database: a PGlite folder belongs to one process. */
const SERVER = inject('testDb') !== null;

beforeAll(async () => {
  if (!SERVER) return;
  testDb = await createTestDatabase();
  if (!testDb.url) throw new Error('needs a PostgreSQL server (TEST_DATABASE_URL)');
});
afterAll(async () => {
  for (const a of apps) await a.app.close();
  for (const p of pools) await p.close();
  for (const r of redisClients) r.disconnect();
  await testDb?.drop();
});

/**
 * One instance: its own pool and Redis connection, listening on its own port. The pool waits up to 30 s for a
 * connection and a statement up to 30 s: 80 orders queue on one hot stock row, and on a loaded Citus cluster (CI runs
 * it beside other work) the last of them waited over 5 s for a pooled connection and got a 503. Those refusals are
 * tested in faults.test.ts; here every request must reach the row.
 */
async function instance(overrides: Record<string, string>) {
  const db = createPgDatabase({ url: testDb.url!, poolMax: 10, statementTimeoutMs: 30_000, connectTimeoutMs: 30_000 });
  pools.push(db);
  const redis = await openRedis(REDIS_URL, 2000);
  redisClients.push(redis);
  const a = await buildTestApp(db, overrides, redis);
  apps.push(a);
  await a.app.listen({ host: '127.0.0.1', port: 0 });
  return { ...a, base: `http://127.0.0.1:${(a.app.server.address() as AddressInfo).port}${a.config.BASE_PATH}` };
}

async function call(base: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe.skipIf(!SERVER)('two instances, one PostgreSQL, one Redis', () => {
  it('share one rate-limit budget per key: REST on one and MCP tool calls on the other, in parallel', async () => {
    const [a, b] = [await instance({ RATE_LIMIT_MAX: '20' }), await instance({ RATE_LIMIT_MAX: '20' })];
    const co = await createCompanyWithKey(a.services);
    const tool = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_categories', arguments: {} } };
    const first = await Promise.all([
      ...Array.from({ length: 10 }, () => call(a.base, '/catalog/categories', co.headers)),
      ...Array.from({ length: 10 }, () => call(b.base, '/mcp', co.headers, tool)),
    ]);
    expect(first.map((r) => r.status)).toEqual(Array(20).fill(200));
    // the budget of 20 is spent across both: the next request on either is refused
    expect((await call(b.base, '/catalog/categories', co.headers)).status).toBe(429);
    expect((await call(a.base, '/mcp', co.headers, tool)).status).toBe(429);
    // another key of the same company has its own budget
    const other = await a.services.keys.create(co.company.id, { kind: 'cli', name: 'test' }, 'second');
    expect((await call(b.base, '/catalog/categories', { 'x-api-key': other.key })).status).toBe(200);
  });

  it('never oversell: 80 parallel orders for 10 units spread over both instances give exactly 10 orders', async () => {
    const [a, b] = [await instance({ RATE_LIMIT_MAX: '100000' }), await instance({ RATE_LIMIT_MAX: '100000' })];
    const co = await createCompanyWithKey(a.services);
    await addLocations(testDb.db, co.company.id);
    const { variantIds } = await addProduct(testDb.db, co.company.id, {
      sku: 'H',
      name: 'Hot',
      variants: [{ sku: 'H-1', selling_price: '10.00', stock: '10' }],
    });
    const results = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        call(i % 2 ? a.base : b.base, '/orders', co.headers, {
          customer: { name: `B${i}`, phone: `98${String(10_000_000 + i).slice(-8)}` },
          items: [{ product_id: 'H-1', quantity: 1 }],
          external_reference: `two-${i}`,
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(results.filter((r) => r.status !== 201 && r.status !== 409)).toEqual([]);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(70);
    const audit = await auditCompany(testDb.db, co.company.id);
    expect(audit.totals).toMatchObject({ orders: 10, customers: 10, reserved: '10.000' });
    expect([audit.stock, audit.partial, audit.orphans, audit.duplicates]).toEqual([[], [], [], []]);
    const [row] = await testDb.db.query<{ on_hand: string; reserved: string }>(
      sql`SELECT on_hand, reserved FROM stock_levels WHERE company_id = ${co.company.id} AND variant_id = ${variantIds['H-1']}`,
    );
    expect(row).toEqual({ on_hand: '10.000', reserved: '10.000' });
  });

  it('short soak across both instances (retries land on the other instance): the audit finds nothing', async () => {
    const [a, b] = [await instance({ RATE_LIMIT_MAX: '100000' }), await instance({ RATE_LIMIT_MAX: '100000' })];
    const seed = await seedSoakCompany(testDb.db, a.services, { hot: 3, cold: 57, hotStock: 20 });
    const report = await runSoak(seed, { db: testDb.db, baseUrls: [a.base, b.base], orders: 300, clients: 16, progressEvery: 10_000 });
    const { audit, ...figures } = report;
    console.log(`[two-instances] ${JSON.stringify({ ...figures, totals: audit.totals })}`);
    expect(report.problems).toEqual([]);
    expect(report.otherStatuses).toEqual({});
    expect(report.refusedOutOfStock).toBeGreaterThan(0);
    expect(report.minAvailableSeen).toBeGreaterThanOrEqual(0);
  }, 90_000);

  it('two courier workers (one per instance) never book one order twice', async () => {
    const a = await instance({ RATE_LIMIT_MAX: '100000' });
    const co = await createCompanyWithKey(a.services, {});
    await testDb.db.query(sql`UPDATE companies SET auto_courier_booking = true WHERE id = ${co.company.id}`);
    await addLocations(testDb.db, co.company.id);
    await addProduct(testDb.db, co.company.id, { sku: 'W', name: 'Worker item', variants: [{ sku: 'W-1', selling_price: '10.00', stock: '1000' }] });
    const ORDERS = 40;
    for (let i = 0; i < ORDERS; i++) {
      const r = await call(a.base, '/orders', co.headers, {
        customer: { name: `W${i}`, phone: '9876543210' },
        items: [{ product_id: 'W-1', quantity: 1 }],
        external_reference: `wk-${i}`,
        delivery_address: { line1: '1 Road', city: 'Bengaluru', pincode: '560038' },
      });
      expect(r.status).toBe(201);
    }
    const [{ n: jobs }] = await testDb.db.query<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM jobs WHERE company_id = ${co.company.id} AND status = 'pending'`,
    );
    expect(jobs).toBe(ORDERS);

    const booked = new Map<string, string[]>();
    const fakeCourier = (worker: string): CourierAdapter => ({
      name: 'shiprocket',
      async book(req: BookingRequest) {
        booked.set(req.orderNumber, [...(booked.get(req.orderNumber) ?? []), worker]);
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 20)); // a courier call takes time: widen the race
        return { awb: `AWB${req.orderNumber}-${worker}`, courier: 'Fake', courierOrderId: `co-${req.orderNumber}`, courierShipmentId: `cs-${req.orderNumber}` };
      },
      async track() {
        return null;
      },
      trackingUrl: () => null,
    });
    const config = testConfig({ FULFILMENT_POLL_MS: '10', FULFILMENT_LEASE_MS: '120000' });
    const workerLog = captureLogger().logger.child({ component: 'courier-worker' });
    const workerPools = [0, 1].map(() => createPgDatabase({ url: testDb.url!, poolMax: 4, statementTimeoutMs: 10_000, connectTimeoutMs: 5000 }));
    pools.push(...workerPools);
    const workers = workerPools.map((db, i) =>
      createCourierWorker({ db, config, log: workerLog.child({ worker: i }), adapterFor: () => fakeCourier(`w${i}`) }),
    );
    for (const w of workers) w.start();
    const t0 = Date.now();
    while (Date.now() - t0 < 30_000) {
      const [{ n }] = await testDb.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM jobs WHERE company_id = ${co.company.id} AND status = 'pending'`);
      if (n === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const w of workers) await w.stop();
    const perWorker = { w0: 0, w1: 0 };
    for (const list of booked.values()) for (const w of list) perWorker[w as 'w0' | 'w1']++;
    console.log(`[two-instances] courier bookings: ${booked.size} orders, by worker ${JSON.stringify(perWorker)}`);
    expect(booked.size).toBe(ORDERS);
    expect([...booked.entries()].filter(([, list]) => list.length !== 1)).toEqual([]);
    const [{ n: shipments }] = await testDb.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM shipments WHERE company_id = ${co.company.id}`);
    expect(shipments).toBe(ORDERS);
  });
});
