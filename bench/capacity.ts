/**
 * npm run capacity [-- --products 1000 --requests 3000]
 *
 * The capacity model's inputs (docs/scaling.md): CPU time per request, in the service and in PostgreSQL,
 * for each kind of request a chat flow or agent sends. CPU seconds, not wall time, so the figures hold on a busy
 * machine: the service's CPU is its process's (utime + stime from /proc), the database's is the CPU of the backends
 * serving the service's pool (the pool is fixed, so the same backends serve the whole run; background work such as
 * WAL writing, checkpoints and autovacuum is not in it). Each workload is warmed up, then run for a fixed number of
 * requests at 4 connections; the table gives milliseconds of CPU per request and what one core of each serves at
 * 60 requests per minute per key.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { createPgDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { generateCatalogue } from '../src/catalogue/catalogue.generate.js';
import { refreshInStockOfCompany } from '../src/catalogue/catalogue.queries.js';
import { configSchema } from '../src/config.js';
import { createServices } from '../src/services.js';
import { recreateDatabase, startBenchServer } from './harness.js';

const { values: args } = parseArgs({
  options: { products: { type: 'string', default: '1000' }, requests: { type: 'string', default: '3000' }, orders: { type: 'string', default: '500' } },
});
const PRODUCTS = Number(args.products);
const REQUESTS = Number(args.requests);
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'commerce_capacity';
const POOL = 4;
const log = (msg: string) => process.stderr.write(`[capacity] ${msg}\n`);
const withDb = (url: string, name: string) => Object.assign(new URL(url), { pathname: `/${name}` }).toString();
const URL_ = withDb(SERVER_URL, DB_NAME);
const TICK_MS = 1000 / 100; // /proc times are in clock ticks of 10 ms (USER_HZ 100 on Linux)

/** utime + stime of a process (all its threads), in ms. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0; // a backend that ended
  }
}

async function setUp() {
  await recreateDatabase(SERVER_URL, DB_NAME);
  const db = createPgDatabase({ url: URL_, poolMax: 8, statementTimeoutMs: 600_000, connectTimeoutMs: 10_000 });
  try {
    await migrate(db);
    const services = createServices({ db, config: configSchema.parse({ SEED_DEMO: 'false' }) });
    const company = await services.companies.create({ kind: 'cli', name: 'bench' }, { name: 'Capacity', slug: 'capacity' });
    const key = (await services.keys.create(company.id, { kind: 'cli', name: 'bench' }, 'capacity')).key;
    await generateCatalogue(db, company.id, { products: PRODUCTS, seed: 3, onProgress: (d, t) => d === t && log(`catalogue: ${t} products`) });
    await db.query(sql`UPDATE stock_levels SET on_hand = 1000000000 WHERE company_id = ${company.id}`);
    await refreshInStockOfCompany(db, company.id); // a raw stock write: the in-stock flags follow, as every writer's do
    const skus = (await db.query<{ sku: string }>(sql`SELECT sku FROM variants WHERE company_id = ${company.id} ORDER BY id`)).map((r) => r.sku);
    const ctx = { companyId: company.id, keyId: 'capacity', keyPrefix: 'capacity', permissions: ['commerce'] };
    const orderNumbers: string[] = [];
    for (let i = 0; i < Number(args.orders); i++)
      orderNumbers.push((await services.orders.place(ctx, orderBody(`past-${i}`, skus[i % skus.length]))).order.order_number);
    log(`${orderNumbers.length} past orders`);
    await db.query(sql`VACUUM ANALYZE`);
    return { key, skus, orderNumbers };
  } finally {
    await db.close();
  }
}

let n = 0;
function orderBody(ref: string, sku: string) {
  return {
    customer: { name: 'Capacity Customer', phone: `+9198${String(10000000 + (n++ % 500) * 7919).slice(-8)}` },
    items: [{ product_id: sku, quantity: 1 }],
    external_reference: ref,
    delivery_address: { line1: '1 MG Road', city: 'Bengaluru', pincode: '560001' },
    payment: 'cod' as const,
  };
}

const startServer = () => startBenchServer('bench/server.ts', { DATABASE_URL: URL_, LOG_LEVEL: 'warn', DB_POOL_MAX: String(POOL), REDIS_URL: '' });

type Req = () => { method?: string; path: string; body?: string; headers?: Record<string, string> };

async function run(base: string, amount: number, request: Req) {
  const result = await autocannon({
    url: base,
    connections: POOL,
    amount,
    requests: [
      {
        setupRequest: (req) => {
          const r = request();
          return { ...req, method: (r.method ?? 'GET') as 'GET', path: r.path, body: r.body, headers: { ...req.headers, ...r.headers } };
        },
      },
    ],
  });
  return { done: result.requests.total, errors: result.errors + result.non2xx + result.timeouts, rps: result.requests.average };
}

async function main() {
  const f = await setUp();
  const { child, port } = await startServer();
  const base = `http://127.0.0.1:${port}`;
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  const backends = async () =>
    (await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'`, [DB_NAME])).rows.map(
      (r) => r.pid,
    );
  const api = '/api/v1/commerce';
  const headers = { 'x-api-key': f.key };
  const json = { 'content-type': 'application/json' };
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  let ref = 0;
  const workloads: [string, Req][] = [
    ['SELECT 1 route (baseline)', () => ({ path: '/bench/select1' })],
    ['browse page 1', () => ({ path: `${api}/catalog/products`, headers })],
    [
      'search',
      () => ({ path: `${api}/catalog/products?search=${encodeURIComponent(pick(['cotton kurta', 'organic dal', 'neem soap', 'copper bottle']))}`, headers }),
    ],
    ['product detail', () => ({ path: `${api}/catalog/products/${pick(f.skus)}`, headers })],
    ['order lookup', () => ({ path: `${api}/orders/${pick(f.orderNumbers)}`, headers })],
    [
      'customer by phone',
      () => ({ path: `${api}/customers?phone=${encodeURIComponent(`+9198${String(10000000 + (ref++ % 500) * 7919).slice(-8)}`)}`, headers }),
    ],
    [
      'POST /orders',
      () => ({
        method: 'POST',
        path: `${api}/orders`,
        headers: { ...headers, ...json },
        body: JSON.stringify(orderBody(`cap-${process.pid}-${ref++}`, pick(f.skus))),
      }),
    ],
    [
      'MCP browse_catalog',
      () => ({
        method: 'POST',
        path: `${api}/mcp`,
        headers: { ...headers, ...json, accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'browse_catalog', arguments: {} } }),
      }),
    ],
    [
      'MCP place_order',
      () => ({
        method: 'POST',
        path: `${api}/mcp`,
        headers: { ...headers, ...json, accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'place_order', arguments: orderBody(`cap-mcp-${process.pid}-${ref++}`, pick(f.skus)) },
        }),
      }),
    ],
  ];
  const rows: { name: string; svc: number; db: number; rps: number; errors: number }[] = [];
  try {
    for (const [name, req] of workloads) {
      await run(base, Math.max(200, REQUESTS / 10), req); // warm-up: JIT, the read model, the pool's backends
      const pids = await backends();
      const svc0 = cpuMs(child.pid!);
      const db0 = pids.reduce((s, p) => s + cpuMs(p), 0);
      const r = await run(base, REQUESTS, req);
      const svc = (cpuMs(child.pid!) - svc0) / r.done;
      const db = (pids.reduce((s, p) => s + cpuMs(p), 0) - db0) / r.done;
      rows.push({ name, svc, db, rps: r.rps, errors: r.errors });
      log(`${name}: ${r.done} requests, service ${svc.toFixed(3)} ms CPU each, database ${db.toFixed(3)} ms (${r.errors} errors)`);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    // the machine's PostgreSQL is shared (and copied whole by the replica test): leave no database behind
    await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    await admin.end();
  }
  const perCore = (ms: number) => (ms > 0 ? Math.floor(1000 / ms).toLocaleString('en-IN') : '–');
  console.log(`\nCPU per request (${PRODUCTS.toLocaleString()} products, ${REQUESTS} requests each at ${POOL} connections, pool ${POOL})\n`);
  console.log('| Request | service CPU ms | database CPU ms | requests/s per service core | per database core | errors |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.name} | ${r.svc.toFixed(3)} | ${r.db.toFixed(3)} | ${perCore(r.svc)} | ${perCore(r.db)} | ${r.errors} |`);
  // A key's budget is 60 requests a minute: a company at its limit sends 1 request a second.
  const mix: [string, number][] = [
    ['browse page 1', 0.3],
    ['search', 0.2],
    ['product detail', 0.25],
    ['order lookup', 0.1],
    ['customer by phone', 0.05],
    ['POST /orders', 0.1],
  ];
  const cost = (k: 'svc' | 'db') => mix.reduce((s, [name, w]) => s + w * rows.find((r) => r.name === name)![k], 0);
  console.log(
    `\nA chat-flow mix (${mix.map(([name, w]) => `${w * 100}% ${name}`).join(', ')}) costs ${cost('svc').toFixed(3)} ms of service CPU and ` +
      `${cost('db').toFixed(3)} ms of database CPU per request: at 60 requests per minute per key (1/s), one service core serves ` +
      `${perCore(cost('svc'))} companies at their limit and one database core ${perCore(cost('db'))}.`,
  );
}

await main();
