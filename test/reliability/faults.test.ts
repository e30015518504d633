import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openRedis } from '../../src/boot.js';
import { configSchema } from '../../src/config.js';
import { createPgDatabase, type Database } from '../../src/db/client.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { auditCompany } from '../helpers/audit.js';

/**
 * Faults without touching the machine's PostgreSQL or Redis: a TCP proxy sits between the app and each,
 * and is cut and restored. Time bounds are liveness checks (no hang), generous on purpose. The app runs with the
 * service's default database timeouts (connect 5 s, statement 10 s), as a deployment does; the settings a test
 * changes are its subject (a 200 ms statement timeout to see the server cancel, a pool of 2 to exhaust, a limit of 3).
 */
const BASE = '/api/v1/commerce';
const LIVENESS_MS = 15_000;
const DEFAULTS = configSchema.parse({});
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let testDb: TestDatabase;
let proxy: TcpProxy;
let proxied: Database;
let ctx: TestApp;
let url: string;
const cleanup: (() => Promise<unknown>)[] = [];
export const figures = { faultsInjected: 0, requestsDuringFaults: 0, ordersRetried: 0 };

/** On embedded PGlite (no PostgreSQL server) this file is skipped: the faults are a PostgreSQL server's (a proxy between the service and the server). */
const SERVER = inject('testDb') !== null;

beforeAll(async () => {
  if (!SERVER) return;
  testDb = await createTestDatabase();
  if (!testDb.url) throw new Error('the fault tests need a PostgreSQL server (TEST_DATABASE_URL)');
  const u = new URL(testDb.url);
  proxy = await startTcpProxy(u.hostname, Number(u.port || 5432));
  proxied = createPgDatabase({
    url: proxy.url(testDb.url),
    poolMax: DEFAULTS.DB_POOL_MAX,
    statementTimeoutMs: DEFAULTS.DB_STATEMENT_TIMEOUT_MS,
    connectTimeoutMs: DEFAULTS.DB_CONNECT_TIMEOUT_MS,
  });
  ctx = await buildTestApp(proxied);
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => {});
  await ctx?.app.close();
  await proxied?.close().catch(() => {});
  await proxy?.close();
  await testDb?.drop();
  console.log(`[faults] ${JSON.stringify(figures)}`);
});

/** A company with stock, made through the direct (unproxied) connection. */
async function shop(stock = '1000') {
  const co = await createCompanyWithKey(ctx.services);
  await addLocations(testDb.db, co.company.id);
  const { variantIds } = await addProduct(testDb.db, co.company.id, {
    sku: 'F',
    name: 'Fault item',
    variants: [
      { sku: 'F-1', selling_price: '100.00', stock },
      { sku: 'F-2', selling_price: '50.00', stock },
    ],
  });
  return { ...co, companyId: co.company.id, variantIds };
}

const orderBody = (ref: string, i = 0) => ({
  customer: { name: `Buyer ${i}`, phone: `98${String(10_000_000 + i).slice(-8)}` },
  items: [
    { product_id: 'F-1', quantity: 1 },
    { product_id: 'F-2', quantity: 2 },
  ],
  external_reference: ref,
});

/** One HTTP call; returns status (0 on a network error) and how long it took. */
async function timed(path: string, init: RequestInit = {}) {
  const t0 = Date.now();
  try {
    const res = await fetch(`${url}${path}`, { ...init, signal: AbortSignal.timeout(LIVENESS_MS + 5000) });
    const text = await res.text();
    return { status: res.status, ms: Date.now() - t0, body: text ? JSON.parse(text) : undefined };
  } catch (err) {
    return { status: 0, ms: Date.now() - t0, body: { error: String(err) } };
  }
}

const postOrder = (headers: Record<string, string>, body: unknown) =>
  timed(`${BASE}/orders`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Retries like the spec tells clients: on network errors, 5xx and 429, with backoff; gives up after 60 s. */
async function placeWithRetry(headers: Record<string, string>, body: unknown) {
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 120; attempt++) {
    const r = await postOrder(headers, body);
    statuses.push(r.status);
    if (r.status !== 0 && r.status < 500 && r.status !== 429) return { final: r, statuses };
    figures.ordersRetried++;
    await new Promise((res) => setTimeout(res, Math.min(1000, 50 * 2 ** Math.min(attempt, 4))));
  }
  throw new Error(`no answer after retries: ${statuses.join(',')}`);
}

async function waitReady() {
  const t0 = Date.now();
  while (Date.now() - t0 < 30_000) {
    if ((await timed('/readyz')).status === 200) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('not ready 30 s after the database came back');
}

describe.skipIf(!SERVER)('database unreachable (proxy cut), then back', () => {
  for (const mode of ['refuse', 'blackhole'] as const) {
    it(`${mode}: requests fail quickly with 500/503, /readyz is 503, the service recovers by itself, retried orders end as one order each`, async () => {
      const s = await shop();
      expect((await timed(`${BASE}/catalog/products`, { headers: s.headers })).status).toBe(200);

      proxy.cut(mode);
      figures.faultsInjected++;
      const refs = Array.from({ length: 5 }, (_, i) => `cut-${mode}-${i}-${randomBytes(3).toString('hex')}`);
      const during = await Promise.all([
        timed('/readyz'),
        timed(`${BASE}/catalog/products`, { headers: s.headers }),
        timed(`${BASE}/catalog/products/F-1`, { headers: s.headers }),
        timed(`${BASE}/customers?phone=9876543210`, { headers: s.headers }),
        ...refs.map((ref, i) => postOrder(s.headers, orderBody(ref, i))),
      ]);
      figures.requestsDuringFaults += during.length;
      expect(during[0].status).toBe(503);
      for (const r of during) {
        expect([500, 503], JSON.stringify(r)).toContain(r.status);
        if (r.status === 500) expect(r.body.error.code).toBe('internal');
        expect(r.ms, 'liveness: no request hangs while the database is away').toBeLessThan(LIVENESS_MS);
      }

      proxy.restore();
      const recoveredMs = await waitReady();
      expect(recoveredMs).toBeLessThan(LIVENESS_MS);
      expect((await timed(`${BASE}/catalog/products`, { headers: s.headers })).status).toBe(200);

      // the clients retry with the same references: each ends with exactly one order
      const finals = await Promise.all(refs.map((ref, i) => placeWithRetry(s.headers, orderBody(ref, i))));
      for (const f of finals) expect([200, 201]).toContain(f.final.status);
      const audit = await auditCompany(testDb.db, s.companyId);
      expect(audit.totals.orders).toBe(refs.length);
      expect([audit.stock, audit.partial, audit.orphans, audit.duplicates]).toEqual([[], [], [], []]);
    });
  }

  it('cut in the middle of order traffic (connections reset mid-transaction): every reference ends as exactly one whole order', async () => {
    const s = await shop('100000');
    const refs = Array.from({ length: 60 }, (_, i) => `mid-${i}-${randomBytes(3).toString('hex')}`);
    const running = Promise.all(
      refs.map(async (ref, i) => {
        await new Promise((r) => setTimeout(r, i * 10));
        return placeWithRetry(s.headers, orderBody(ref, i));
      }),
    );
    for (let k = 0; k < 3; k++) {
      await new Promise((r) => setTimeout(r, 150));
      proxy.cut('refuse');
      figures.faultsInjected++;
      await new Promise((r) => setTimeout(r, 300));
      proxy.restore();
    }
    const finals = await running;
    const failed = finals.filter((f) => f.statuses.some((x) => x === 0 || x >= 500)).length;
    console.log(`[faults] mid-traffic: ${refs.length} orders, ${failed} saw a 5xx or reset and were retried`);
    const ids = new Set(finals.map((f) => f.final.body.data.order_id));
    expect(ids.size).toBe(refs.length);
    const audit = await auditCompany(testDb.db, s.companyId);
    expect(audit.totals.orders).toBe(refs.length);
    expect(audit.totals.reserved).toBe(String(refs.length * 3) + '.000');
    expect([audit.stock, audit.partial, audit.orphans, audit.duplicates]).toEqual([[], [], [], []]);
  });
});

describe.skipIf(!SERVER)('timeouts', () => {
  it('statement timeout: a query past DB_STATEMENT_TIMEOUT_MS is cancelled by the server (57014)', async () => {
    const db = createPgDatabase({ url: testDb.url!, poolMax: 1, statementTimeoutMs: 200, connectTimeoutMs: 1000 });
    cleanup.push(() => db.close());
    const t0 = Date.now();
    const err = await db.query(sql`SELECT pg_sleep(5)`).catch((e: { code?: string }) => e);
    expect((err as { code?: string }).code).toBe('57014');
    expect(Date.now() - t0).toBeLessThan(4000);
    // the connection is still usable afterwards
    expect(await db.query(sql`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });

  it('an order stuck behind a held stock-row lock is cancelled by the statement timeout: 500, nothing written, then it succeeds on retry', async () => {
    const s = await shop();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = testDb.db.tx(async (tx) => {
      await tx.query(sql`SELECT 1 FROM stock_levels WHERE company_id = ${s.companyId} FOR UPDATE`);
      locked();
      await held;
    });
    await isLocked;
    const ref = `locked-${randomBytes(3).toString('hex')}`;
    const r = await postOrder(s.headers, orderBody(ref));
    release();
    await holder;
    expect(r.status).toBe(500);
    expect(r.ms).toBeLessThan(LIVENESS_MS);
    expect((await auditCompany(testDb.db, s.companyId)).totals.orders).toBe(0);
    expect((await placeWithRetry(s.headers, orderBody(ref))).final.status).toBe(201);
  });

  it('pool exhaustion does not wedge the process: with every connection held, requests fail within the connect timeout, then succeed once released', async () => {
    const db = createPgDatabase({
      url: testDb.url!,
      poolMax: 2,
      statementTimeoutMs: DEFAULTS.DB_STATEMENT_TIMEOUT_MS,
      connectTimeoutMs: DEFAULTS.DB_CONNECT_TIMEOUT_MS,
    });
    cleanup.push(() => db.close());
    const small = await buildTestApp(db, { DB_POOL_MAX: '2' });
    cleanup.push(() => small.app.close());
    const co = await createCompanyWithKey(small.services);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let n = 0;
    let allHeld!: () => void;
    const holding = new Promise<void>((r) => (allHeld = r));
    const holders = [0, 1].map(() =>
      db.tx(async () => {
        if (++n === 2) allHeld();
        await held;
      }),
    );
    await holding;
    figures.faultsInjected++;
    const t0 = Date.now();
    const during = await Promise.all(Array.from({ length: 10 }, () => small.app.inject({ url: `${BASE}/catalog/categories`, headers: co.headers })));
    const ms = Date.now() - t0;
    figures.requestsDuringFaults += during.length;
    expect(during.map((r) => r.statusCode)).toEqual(Array(10).fill(500));
    expect(ms).toBeLessThan(LIVENESS_MS);
    expect((await small.app.inject({ url: '/readyz' })).statusCode).toBe(503);
    release();
    await Promise.all(holders);
    const after = await Promise.all(Array.from({ length: 10 }, () => small.app.inject({ url: `${BASE}/catalog/categories`, headers: co.headers })));
    expect(after.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
  });
});

describe.skipIf(!SERVER)('Redis gone while REDIS_URL is set: fail open (docs/decisions.md)', () => {
  for (const mode of ['refuse', 'blackhole', 'freeze'] as const) {
    it(`${mode}: requests keep being served quickly without limits, and the shared limit is back after Redis returns`, async () => {
      const r = new URL(REDIS_URL);
      const redisProxy = await startTcpProxy(r.hostname, Number(r.port || 6379));
      cleanup.push(() => redisProxy.close());
      const redis = await openRedis(redisProxy.url(REDIS_URL), 1000);
      cleanup.push(async () => redis.disconnect());
      const a = await buildTestApp(testDb.db, { RATE_LIMIT_MAX: '3' }, redis);
      cleanup.push(() => a.app.close());
      const co = await createCompanyWithKey(a.services);
      const get = () => a.app.inject({ url: `${BASE}/catalog/categories`, headers: co.headers });
      expect([(await get()).statusCode, (await get()).statusCode, (await get()).statusCode, (await get()).statusCode]).toEqual([200, 200, 200, 429]);

      redisProxy.cut(mode);
      figures.faultsInjected++;
      const t0 = Date.now();
      // in parallel: while frozen each request waits out the Redis command timeout (bounded) before going on
      const during = (await Promise.all(Array.from({ length: 8 }, () => get()))).map((res) => res.statusCode);
      figures.requestsDuringFaults += during.length;
      expect(during).toEqual(Array(8).fill(200));
      expect(Date.now() - t0, 'liveness: Redis away must not hang requests').toBeLessThan(LIVENESS_MS);
      // failed authentications are still answered (401) while the shared counter is away
      expect((await a.app.inject({ url: `${BASE}/catalog/categories`, headers: { 'x-api-key': 'cok_nope' } })).statusCode).toBe(401);

      redisProxy.restore();
      const t1 = Date.now();
      let limited = false;
      while (!limited && Date.now() - t1 < LIVENESS_MS) {
        limited = (await get()).statusCode === 429;
        if (!limited) await new Promise((res) => setTimeout(res, 100));
      }
      expect(limited, 'the limit applies again once Redis is back').toBe(true);
    });
  }
});
