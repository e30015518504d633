import { execFile, execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createReadReplica, lsnValue, type ReadReplica } from '../../src/db/replica.js';
import { openDatabase, type Database } from '../../src/db/index.js';
import { testConfig } from '../helpers/app.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { get, orderBody, post, shop } from '../helpers/orders.js';

/**
 * Catalogue reads on a real streaming replica (docs/scaling.md): a second PostgreSQL cluster on this machine
 * made by scripts/replica.sh with `pg_basebackup -R`. Runs where the test server is this machine's PostgreSQL (its
 * Debian cluster tools, as root); skipped on PGlite, on Citus (a replica of the coordinator alone is no replica of the
 * data) and elsewhere.
 */
const run = promisify(execFile);
const testDb0 = inject('testDb');
const primaryPort = testDb0 ? Number(new URL(testDb0.serverUrl).port || 5432) : 0;

function replicaPossible(): boolean {
  if (!testDb0 || testDb0.citus || process.getuid?.() !== 0) return false;
  if (!['127.0.0.1', 'localhost'].includes(new URL(testDb0.serverUrl).hostname)) return false;
  try {
    return execFileSync('pg_lsclusters', ['-h'], { encoding: 'utf8' })
      .split('\n')
      .some((line) => line.split(/\s+/)[2] === String(primaryPort));
  } catch {
    return false;
  }
}
const RUN = replicaPossible();

const script = (...args: string[]) =>
  run('bash', ['scripts/replica.sh', ...args], { env: { ...process.env, PRIMARY_PORT: String(primaryPort) }, timeout: 120_000 });

async function freePort(): Promise<number> {
  for (;;) {
    const port = 5440 + Math.floor(Math.random() * 400);
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer()
        .once('error', () => resolve(false))
        .listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const MAX_LAG_MS = 3000; // generous: the whole suite runs alongside, and replay on a loaded machine may trail by a second
let port = 0;
let testDb: TestDatabase;
let replicaUrl: string;
let replica: ReadReplica;
const states: string[] = []; // what the replica told of its state changes
let primaryApp: TestApp; // another instance, without a replica: where orders are placed
let app: TestApp; // the instance whose catalogue reads go to the replica

/** Runs `text` on the replica's copy of the test database (a connection of its own). */
async function onReplica<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: replicaUrl, connectionTimeoutMillis: 2000 });
  await c.connect();
  try {
    return (await c.query<T>(text)).rows;
  } finally {
    await c.end();
  }
}

const inUse = () => until('the replica in use', async () => replica.status().state === 'in_use');
/** True when the replica Db's statement ran on a standby, false when the primary answered it. */
const servedByStandby = async () => (await replica.query<{ r: boolean }>(sql`SELECT pg_is_in_recovery() AS r`))[0].r;

beforeAll(async () => {
  if (!RUN) return;
  port = Number(process.env.TEST_REPLICA_PORT) || (await freePort());
  await script('create', String(port));
  testDb = await createTestDatabase();
  const u = new URL(testDb.url!);
  u.port = String(port);
  replicaUrl = u.toString();
  // a physical replica copies the whole cluster: the test's new database appears there once replayed
  await until('the test database on the replica', () => onReplica('SELECT 1').then(() => true));
  replica = createReadReplica(testDb.db, {
    url: replicaUrl,
    maxLagMs: MAX_LAG_MS,
    checkMs: 200,
    onState: (state, why) => states.push(why ? `${state}: ${why}` : state),
    poolMax: 5,
    statementTimeoutMs: 10_000,
    connectTimeoutMs: 2000,
  });
  const withReplica: Database = { ...testDb.db, replica };
  primaryApp = await buildTestApp(testDb.db);
  app = await buildTestApp(withReplica);
  await inUse();
});

afterAll(async () => {
  await app?.app.close();
  await primaryApp?.app.close();
  await replica?.close();
  await testDb?.drop();
  if (port) await script('remove', String(port));
});

const products = (stock = '20') => [
  { sku: 'TEE', name: 'Cotton Tee', variants: [{ sku: 'TEE-M', name: 'M', selling_price: '299.00', stock }] },
  { sku: 'MUG', name: 'Steel Mug', variants: [{ sku: 'MUG-1', name: 'One', selling_price: '149.00', stock: '1' }] },
];
const mug = (page: { data: { sku: string }[] }) => page.data.find((p) => p.sku === 'MUG');
const tee = (page: { data: { sku: string }[] }) => page.data.find((p) => p.sku === 'TEE');

describe('lsnValue', () => {
  it('orders WAL positions across the 32-bit boundary', () => {
    expect(lsnValue('0/0')).toBe(0n);
    expect(lsnValue('1/0') > lsnValue('0/FFFFFFFF')).toBe(true);
    expect(lsnValue('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
  });
});

describe('openDatabase with DATABASE_REPLICA_URL', () => {
  it('refuses a replica without DATABASE_URL (embedded PGlite has none)', async () => {
    const config = testConfig({ DATABASE_URL: '', DATABASE_REPLICA_URL: 'postgres://postgres@127.0.0.1:5999/x' });
    await expect(openDatabase(config)).rejects.toThrow(/set DATABASE_URL too/);
  });

  it.skipIf(!RUN)('gives the database a replica, which the check finds in use, and closes both', async () => {
    const told: string[] = [];
    const db = await openDatabase(testConfig({ DATABASE_URL: testDb.url, DATABASE_REPLICA_URL: replicaUrl }), (msg) => told.push(msg));
    try {
      expect(db.replica).toBeDefined();
      await until('the replica in use', async () => db.replica!.status().state === 'in_use', 10_000);
      expect((await db.replica!.query<{ r: boolean }>(sql`SELECT pg_is_in_recovery() AS r`))[0].r).toBe(true);
      expect((await db.query<{ r: boolean }>(sql`SELECT pg_is_in_recovery() AS r`))[0].r).toBe(false);
      expect(told).toEqual(['read replica in use']);
    } finally {
      await db.close();
    }
  });
});

describe.skipIf(!testDb0 || testDb0.citus)('a replica URL that names no standby', () => {
  it('is down, told why, and every read goes to the primary', async () => {
    const own = await createTestDatabase();
    const told: string[] = [];
    const notStandby = createReadReplica(own.db, {
      url: own.url!, // the primary itself, by mistake
      maxLagMs: 100,
      checkMs: 100,
      poolMax: 2,
      statementTimeoutMs: 5000,
      connectTimeoutMs: 2000,
      onState: (state, why) => told.push(`${state}: ${why}`),
    });
    try {
      await until('the first check', async () => told.length > 0, 10_000);
      expect(told).toEqual(['down: DATABASE_REPLICA_URL names a server that is not a standby']);
      expect(await notStandby.query(sql`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
      expect(notStandby.status()).toMatchObject({ state: 'down', lagMs: null, reads: { replica: 0, primary: 1 } });
    } finally {
      await notStandby.close();
      await own.drop();
    }
  });
});

describe.skipIf(!RUN)('catalogue reads on a streaming replica (scripts/replica.sh)', () => {
  it('browse, detail and categories are read on the replica; /readyz and /metrics tell it', async () => {
    const s = await shop(primaryApp, products());
    await inUse();
    expect(await servedByStandby()).toBe(true);
    const before = replica.status().reads;
    for (const path of [
      '/catalog/products',
      '/catalog/products/TEE-M',
      '/catalog/categories',
      '/catalog/products?search=mug',
      '/catalog/products?in_stock=true',
    ]) {
      expect((await get(app, s.headers, path)).status, path).toBe(200);
    }
    const after = replica.status().reads;
    expect(after.replica - before.replica).toBeGreaterThanOrEqual(5);
    expect(after.primary).toBe(before.primary);
    expect((await app.app.inject({ url: '/readyz' })).json()).toEqual({ status: 'ok', database: 'ok', replica: 'in_use' });
    const metrics = await app.app.metrics.registry.metrics();
    expect(metrics).toMatch(/^commerce_db_replica_in_use 1$/m);
    expect(metrics).toMatch(/^commerce_db_replica_lag_seconds \d/m);
  });

  it("orders and their lookups stay on the primary, and each order's reservation shows in the very next browse on the replica", async () => {
    const s = await shop(primaryApp, products());
    await inUse();
    const reads = replica.status().reads;
    expect(tee((await get(app, s.headers, '/catalog/products')).body)).toMatchObject({ available: '20.000' });
    for (let i = 1; i <= 10; i++) {
      // placed through the replica instance itself on odd turns, through the other on even ones
      const placed = await post(i % 2 ? app : primaryApp, s.headers, orderBody({ items: [{ product_id: 'TEE-M', quantity: 1 }] }));
      expect(placed.status).toBe(201);
      const ref = placed.body.data.order_number as string;
      expect((await get(app, s.headers, `/orders/${ref}`)).status).toBe(200);
      const page = await get(app, s.headers, '/catalog/products');
      expect(tee(page.body), `after order ${i}`).toMatchObject({ available: `${20 - i}.000` });
    }
    // the browses were the replica's (a fence wait past the bound would have sent one to the primary)
    expect(replica.status().reads.replica - reads.replica).toBeGreaterThanOrEqual(11);
    const sold = await post(primaryApp, s.headers, orderBody({ items: [{ product_id: 'MUG-1', quantity: 1 }] }));
    expect(sold.status).toBe(201);
    expect(mug((await get(app, s.headers, '/catalog/products')).body)).toMatchObject({ available: '0.000', in_stock: false });
    expect((await get(app, s.headers, '/catalog/products/MUG-1')).body.data.variants[0]).toMatchObject({ available: '0.000', in_stock: false });
    expect((await get(app, s.headers, '/catalog/products?in_stock=true')).body).toMatchObject({ total: 1, data: [{ sku: 'TEE' }] });
    // a second order for the sold-out mug is refused: the stock check that decides it is the primary's
    expect((await post(app, s.headers, orderBody({ items: [{ product_id: 'MUG-1', quantity: 1 }] }))).status).toBe(409);
  });

  it('a replica whose replay stops is skipped past the bound: fresh stock from the primary, then back in use', async () => {
    const s = await shop(primaryApp, products());
    await inUse();
    expect(tee((await get(app, s.headers, '/catalog/products')).body)).toMatchObject({ available: '20.000' });
    await onReplica('SELECT pg_wal_replay_pause()');
    try {
      expect((await post(primaryApp, s.headers, orderBody({ items: [{ product_id: 'TEE-M', quantity: 3 }] }))).status).toBe(201);
      const started = Date.now();
      expect(tee((await get(app, s.headers, '/catalog/products')).body)).toMatchObject({ available: '17.000' });
      expect(Date.now() - started).toBeLessThan(MAX_LAG_MS + 2000); // waited at most the bound, then the primary answered
      expect(replica.status().state).toBe('lagging');
      const reads = replica.status().reads;
      const quick = Date.now();
      expect(tee((await get(app, s.headers, '/catalog/products')).body)).toMatchObject({ available: '17.000' });
      expect(Date.now() - quick).toBeLessThan(MAX_LAG_MS); // skipped: no wait
      expect(replica.status().reads.primary).toBeGreaterThan(reads.primary);
      expect(await servedByStandby()).toBe(false);
      await until('the check to see the lag', async () => (replica.status().lagMs ?? 0) >= MAX_LAG_MS, 10_000);
      expect((await app.app.inject({ url: '/readyz' })).json()).toMatchObject({ status: 'ok', replica: 'lagging' });
    } finally {
      await onReplica('SELECT pg_wal_replay_resume()');
    }
    await inUse();
    expect(await servedByStandby()).toBe(true);
    expect(tee((await get(app, s.headers, '/catalog/products')).body)).toMatchObject({ available: '17.000' });
  });

  it('a replica killed (SIGKILL) is skipped without a failed request, and used again once restarted', async () => {
    const s = await shop(primaryApp, products());
    await inUse();
    const told = states.length;
    await script('kill', String(port));
    // the first browses find it gone (connections reset, then refused): each is answered by the primary
    const pages = await Promise.all(Array.from({ length: 20 }, (_, i) => get(app, s.headers, i % 2 ? '/catalog/products' : '/catalog/products/TEE-M')));
    expect(pages.map((p) => p.status)).toEqual(Array(20).fill(200));
    expect(replica.status().state).toBe('down');
    expect((await post(primaryApp, s.headers, orderBody({ items: [{ product_id: 'TEE-M', quantity: 2 }] }))).status).toBe(201);
    expect(tee((await get(app, s.headers, '/catalog/products')).body)).toMatchObject({ available: '18.000' });
    expect((await app.app.inject({ url: '/readyz' })).json()).toEqual({ status: 'ok', database: 'ok', replica: 'down' });
    expect(await app.app.metrics.registry.metrics()).toMatch(/^commerce_db_replica_in_use 0$/m);

    await script('start', String(port));
    await inUse();
    expect(states.slice(told)[0]).toMatch(/^down: ./); // with the error that showed it
    expect(states.at(-1)).toBe('in_use');
    const reads = replica.status().reads;
    expect(tee((await get(app, s.headers, '/catalog/products')).body)).toMatchObject({ available: '18.000' });
    expect(replica.status().reads.replica).toBeGreaterThan(reads.replica);
    expect(await servedByStandby()).toBe(true);
  });
});
