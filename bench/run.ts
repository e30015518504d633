/**
 * npm run bench [-- --duration 5 --rounds 3 --quick --soak 10 --no-write --only 'name part,name part' --against DIR]
 *
 * Benchmarks the real service (child process, rate limiter ON) against baselines measured in the same run:
 * a bare Fastify route and SELECT 1 through the same pool (same process), and pgbench running the database
 * work of an order (order-mimic). Every workload runs in each of `rounds` rounds, taken in rotation, and the
 * median is reported with its ratio to the baseline. The table is printed and appended to docs/performance.md.
 *
 * --against DIR: a before/after comparison on a machine whose speed moves. A second server is started from another
 * checkout (DIR, e.g. a worktree of an older commit with node_modules) against the same database, and every service
 * workload runs on both in each round, back to back, the order alternating by round; the report adds both sides'
 * medians and their ratios to their own `SELECT 1` route. Drift between runs no longer lands on one side.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { progress as progressLine } from '../src/cli/output.js';
import { citusWorkers, createCitusDatabase, dropCitusDatabase } from '../test/helpers/citus.js';
import { recreateDatabase, startBenchServer } from './harness.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    quick: { type: 'boolean', default: false },
    soak: { type: 'string', default: '0' },
    'no-write': { type: 'boolean', default: false },
    only: { type: 'string' },
    against: { type: 'string' },
  },
});
const DURATION = Number(args.duration);
const ROUNDS = Number(args.rounds);
const SMALL = args.quick ? 2_000 : 10_000;
const LARGE = args.quick ? 20_000 : 100_000;
const PAST_ORDERS = args.quick ? 2_000 : 20_000;
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = process.env.BENCH_DB_NAME ?? 'commerce_bench';
/** BENCH_CITUS=1: BENCH_DATABASE_URL is a Citus coordinator; the database is made on every node and distributed. */
const CITUS = process.env.BENCH_CITUS === '1';

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
const progress = (label: string) => (done: number, total: number) => progressLine(`[bench] ${label}`, done, total);
const withDb = (url: string, name: string) => Object.assign(new URL(url), { pathname: `/${name}` }).toString();
const BENCH_URL = withDb(SERVER_URL, DB_NAME);

interface Fixture {
  keySmall: string;
  keyLarge: string;
  skus: string[];
  hotSku: string;
  agedSku: string;
  freshSku: string;
  orderNumbers: string[];
}

// ---------------------------------------------------------------- data

async function setUp(): Promise<Fixture> {
  if (CITUS) {
    // No template and no plain CREATE DATABASE on Citus: every node, the extension, then migrate() distributes.
    const workers = await citusWorkers(SERVER_URL);
    await dropCitusDatabase(SERVER_URL, DB_NAME, workers);
    await createCitusDatabase(SERVER_URL, DB_NAME, workers);
  } else {
    await recreateDatabase(SERVER_URL, DB_NAME);
  }

  const db = createPgDatabase({ url: BENCH_URL, poolMax: 10, statementTimeoutMs: 600_000, connectTimeoutMs: 10_000 });
  try {
    await migrate(db);
    const config = configSchema.parse({ SEED_DEMO: 'false' });
    const services = createServices({ db, config });
    const small = await services.companies.create({ kind: 'cli', name: 'bench' }, { name: 'Bench 10k', slug: 'bench-10k' });
    const large = await services.companies.create({ kind: 'cli', name: 'bench' }, { name: 'Bench 100k', slug: 'bench-100k' });
    const keySmall = (await services.keys.create(small.id, { kind: 'cli', name: 'bench' }, 'bench')).key;
    const keyLarge = (await services.keys.create(large.id, { kind: 'cli', name: 'bench' }, 'bench')).key;
    await generateCatalogue(db, small.id, { products: SMALL, seed: 1, onProgress: progress(`catalogue ${SMALL.toLocaleString()} products`) });
    await generateCatalogue(db, large.id, { products: LARGE, seed: 2, onProgress: progress(`catalogue ${LARGE.toLocaleString()} products`) });
    // Orders must not run out of stock during the run: a large on-hand everywhere at the ship-from location.
    await db.query(sql`UPDATE stock_levels SET on_hand = 1000000000 WHERE company_id = ${small.id}`);
    await refreshInStockOfCompany(db, small.id); // a raw stock write: the in-stock flags follow, as every writer's do
    // Steady state: autovacuum has set the visibility map (the generator rewrites every product row once).
    await db.query(sql`VACUUM ANALYZE`);

    const skus = (await db.query<{ sku: string }>(sql`SELECT sku FROM variants WHERE company_id = ${small.id} ORDER BY id LIMIT 5000`)).map((r) => r.sku);
    const [hotSku, agedSku, freshSku] = [skus[0], skus[1], skus[2]];

    // The aged SKU gets its past orders through the real service, so its reservation rows are real.
    const ctx = { companyId: small.id, keyId: 'bench', keyPrefix: 'bench', permissions: ['commerce'] };
    const orderNumbers: string[] = [];
    let done = 0;
    const report = progress(`past orders on ${agedSku}`);
    const worker = async () => {
      while (done < PAST_ORDERS) {
        const i = done++;
        const { order } = await services.orders.place(ctx, orderBody(`past-${i}`, agedSku));
        if (orderNumbers.length < 2000) orderNumbers.push(order.order_number);
        if (i % 500 === 0 || i === PAST_ORDERS - 1) report(Math.min(i + 1, PAST_ORDERS), PAST_ORDERS);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    report(PAST_ORDERS, PAST_ORDERS);
    // Statistics as autovacuum would leave them: analysed before the past orders, `customers` read as one row, and the
    // order lookup's generic plan walked all 500 customers of the company on every request (0.25 ms instead of 0.07).
    await db.query(sql`ANALYZE`);

    // order-mimic tables for pgbench (not on Citus: mimic_orders has a company_id, and the server's boot would
    // distribute it, breaking mimic_lines' key; the pgbench baseline is one node's anyway)
    if (!CITUS)
      await db.query(
        sql.raw(`
      CREATE TABLE mimic_stock (id int PRIMARY KEY, on_hand numeric(14,3) NOT NULL, reserved numeric(14,3) NOT NULL DEFAULT 0);
      CREATE TABLE mimic_orders (id bigserial PRIMARY KEY, company_id text NOT NULL, amount numeric(14,2) NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
      CREATE TABLE mimic_lines (order_id bigint NOT NULL REFERENCES mimic_orders (id), variant_id int NOT NULL, quantity numeric(14,3) NOT NULL, unit_price numeric(12,2) NOT NULL);
      INSERT INTO mimic_stock (id, on_hand) SELECT g, 1000000000 FROM generate_series(1, ${SMALL}) g;
      ANALYZE;`),
      );
    return { keySmall, keyLarge, skus, hotSku, agedSku, freshSku, orderNumbers };
  } finally {
    await db.close();
  }
}

let refCounter = 0;
const nextRef = () => `bench-${process.pid}-${Date.now().toString(36)}-${refCounter++}`;
const PHONES = Array.from({ length: 500 }, (_, i) => `+9198${String(10000000 + i * 7919).slice(-8)}`);

function orderBody(ref: string, sku: string) {
  return {
    customer: { name: 'Bench Customer', phone: PHONES[refCounter % PHONES.length] },
    items: [{ product_id: sku, quantity: 1 }],
    external_reference: ref,
    delivery_address: { line1: '1 MG Road', city: 'Bengaluru', pincode: '560001' },
    payment: 'cod' as const,
  };
}

// ---------------------------------------------------------------- server

const startServer = (cwd?: string) => startBenchServer('bench/server.ts', { DATABASE_URL: BENCH_URL, LOG_LEVEL: 'warn', DB_POOL_MAX: '20' }, cwd);

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

// ---------------------------------------------------------------- workloads

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

type Workload = { name: string; connections: number; run: (durationS: number) => Promise<Measure> };

function cannon(base: string, connections: number, request: () => { method?: string; path: string; body?: string; headers?: Record<string, string> }) {
  return async (duration: number): Promise<Measure> => {
    const result = await autocannon({
      url: base,
      connections,
      duration,
      requests: [
        {
          setupRequest: (req) => {
            const r = request();
            return { ...req, method: (r.method ?? 'GET') as 'GET', path: r.path, body: r.body, headers: { ...req.headers, ...r.headers } };
          },
        },
      ],
    });
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx + result.timeouts };
  };
}

function pgbench(connections: number, hot: boolean) {
  return async (duration: number): Promise<Measure> => {
    const dir = mkdtempSync(join(tmpdir(), 'pgbench-'));
    try {
      const u = new URL(BENCH_URL);
      const out = execFileSync(
        'pgbench',
        [
          '-n',
          '-M',
          'prepared',
          '-f',
          'bench/order-mimic.sql',
          '-D',
          `hot=${hot ? 1 : 0}`,
          '-D',
          `nvariants=${SMALL}`,
          '-c',
          String(connections),
          '-j',
          '2',
          '-T',
          String(duration),
          '-l',
          '--log-prefix',
          join(dir, 'log'),
          '-h',
          u.hostname,
          '-p',
          u.port || '5432',
          '-U',
          decodeURIComponent(u.username) || 'postgres',
          DB_NAME,
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const tpsMatch = /tps = ([\d.]+)/.exec(out);
      if (!tpsMatch) throw new Error(`pgbench printed no tps (${connections} clients): ${out.slice(-500)}`);
      const tps = Number(tpsMatch[1]);
      const latencies = readdirSync(dir)
        .flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n'))
        .map((line) => Number(line.split(' ')[2]) / 1000)
        .sort((a, b) => a - b);
      const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
      const failed = Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0);
      return { rps: tps, p50: at(0.5), p99: at(0.99), errors: failed };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/**
 * Autovacuum's analyse, where the server runs without autovacuum (this machine's PostgreSQL has `autovacuum = off`):
 * before each workload, ANALYZE every table changed past autoanalyze's own threshold (50 rows + 10% by default), as
 * autovacuum would have within its minute. Without it the orders workloads leave `customers` and `orders` analysed as
 * they were before them (one customer), and statements planned from those statistics measure a state no production
 * database stays in. Does nothing where autovacuum is on.
 */
async function autoanalyze(): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ on: boolean; relname: string | null }>(`
      SELECT current_setting('autovacuum')::bool AS on, t.relname
      FROM (SELECT 1) one LEFT JOIN pg_stat_user_tables t
        ON t.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::int
                                  + current_setting('autovacuum_analyze_scale_factor')::float8 * t.n_live_tup`);
    if (rows[0].on) return;
    for (const { relname } of rows) if (relname) await client.query(`ANALYZE ${pg.escapeIdentifier(relname)}`);
  } finally {
    await client.end();
  }
}

/** The per-request envelope of MCP revision 2026-07-28 (no handshake). */
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

function workloads(port: number, f: Fixture, hasPgbench: boolean): Workload[] {
  const base = `http://127.0.0.1:${port}`;
  const api = '/api/v1/commerce';
  const small = { 'x-api-key': f.keySmall };
  const large = { 'x-api-key': f.keyLarge };
  const json = { 'content-type': 'application/json' };
  const mcpHeaders = { ...small, ...json, accept: 'application/json, text/event-stream' };
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  const searches = [
    'cotton kurta',
    'organic dal',
    'neem soap',
    'wireless earbuds',
    'copper bottle',
    'printed saree',
    'herbal',
    'smartwatch black',
    'basmati',
    'block print',
  ];
  const list: Workload[] = [];
  for (const c of [10, 50]) {
    const w = (name: string, req: Parameters<typeof cannon>[2]) => list.push({ name, connections: c, run: cannon(base, c, req) });
    w('bare route (baseline)', () => ({ path: '/bench/bare' }));
    w('SELECT 1 route (baseline)', () => ({ path: '/bench/select1' }));
    w('browse page 1 (10k)', () => ({ path: `${api}/catalog/products`, headers: small }));
    w('browse offset 5000 (10k)', () => ({ path: `${api}/catalog/products?offset=5000`, headers: small }));
    w('search (100k)', () => ({ path: `${api}/catalog/products?search=${encodeURIComponent(pick(searches))}`, headers: large }));
    // a word the model has not seen in most requests (a number out of 100,000): the database's index answers it
    w('search (100k), unseen words', () => ({
      path: `${api}/catalog/products?search=${encodeURIComponent(`${pick(searches)} ${Math.floor(Math.random() * 100_000)}`)}`,
      headers: large,
    }));
    w('in_stock browse (100k)', () => ({ path: `${api}/catalog/products?in_stock=true`, headers: large }));
    w('product detail', () => ({ path: `${api}/catalog/products/${pick(f.skus)}`, headers: small }));
    w('POST /orders uniform', () => ({
      method: 'POST',
      path: `${api}/orders`,
      headers: { ...small, ...json },
      body: JSON.stringify(orderBody(nextRef(), pick(f.skus))),
    }));
    w('POST /orders hot SKU', () => ({
      method: 'POST',
      path: `${api}/orders`,
      headers: { ...small, ...json },
      body: JSON.stringify(orderBody(nextRef(), f.hotSku)),
    }));
    w('order lookup', () => ({ path: `${api}/orders/${pick(f.orderNumbers)}`, headers: small }));
    w('MCP browse_catalog', () => ({
      method: 'POST',
      path: `${api}/mcp`,
      headers: mcpHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'browse_catalog', arguments: {} } }),
    }));
    w('MCP 2026-07-28 browse_catalog', () => ({
      method: 'POST',
      path: `${api}/mcp`,
      headers: { ...mcpHeaders, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'browse_catalog' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'browse_catalog', arguments: {}, _meta: MODERN_META } }),
    }));
    w('MCP place_order', () => ({
      method: 'POST',
      path: `${api}/mcp`,
      headers: mcpHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'place_order', arguments: orderBody(nextRef(), pick(f.skus)) } }),
    }));
    if (hasPgbench) {
      list.push({ name: 'pgbench order-mimic uniform (baseline)', connections: c, run: pgbench(c, false) });
      list.push({ name: 'pgbench order-mimic hot (baseline)', connections: c, run: pgbench(c, true) });
    }
  }
  const w10 = (name: string, req: Parameters<typeof cannon>[2]) => list.push({ name, connections: 10, run: cannon(base, 10, req) });
  w10(`POST /orders aged SKU (${PAST_ORDERS.toLocaleString()} past orders)`, () => ({
    method: 'POST',
    path: `${api}/orders`,
    headers: { ...small, ...json },
    body: JSON.stringify(orderBody(nextRef(), f.agedSku)),
  }));
  w10('POST /orders fresh SKU', () => ({
    method: 'POST',
    path: `${api}/orders`,
    headers: { ...small, ...json },
    body: JSON.stringify(orderBody(nextRef(), f.freshSku)),
  }));
  return list;
}

// ---------------------------------------------------------------- report

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const key = (w: { name: string; connections: number }) => `${w.name}@${w.connections}`;

interface Target {
  label: string;
  value: (m: Map<string, Measure>) => number | undefined;
  goal: string;
  ok: (v: number) => boolean;
  unit?: string;
}

function ratio(a: string, b: string, c = 10) {
  return (m: Map<string, Measure>) => {
    const x = m.get(`${a}@${c}`);
    const y = m.get(`${b}@${c}`);
    return x && y ? x.rps / y.rps : undefined;
  };
}

const TARGETS: Target[] = [
  { label: 'browse page 1 vs SELECT 1 route, c=10', value: ratio('browse page 1 (10k)', 'SELECT 1 route (baseline)'), goal: '>= 0.25x', ok: (v) => v >= 0.25 },
  { label: 'browse offset 5000 vs page 1, c=10', value: ratio('browse offset 5000 (10k)', 'browse page 1 (10k)'), goal: '>= 0.5x', ok: (v) => v >= 0.5 },
  { label: 'search (100k) vs browse page 1 (10k), c=10', value: ratio('search (100k)', 'browse page 1 (10k)'), goal: '>= 0.5x', ok: (v) => v >= 0.5 },
  {
    label: 'search (100k), unseen words vs browse page 1 (10k), c=10',
    value: ratio('search (100k), unseen words', 'browse page 1 (10k)'),
    goal: '>= 0.5x',
    ok: (v) => v >= 0.5,
  },
  {
    label: 'in_stock browse (100k) vs browse page 1 (10k), c=10',
    value: ratio('in_stock browse (100k)', 'browse page 1 (10k)'),
    goal: '>= 0.5x',
    ok: (v) => v >= 0.5,
  },
  { label: 'product detail vs SELECT 1 route, c=10', value: ratio('product detail', 'SELECT 1 route (baseline)'), goal: '>= 0.5x', ok: (v) => v >= 0.5 },
  { label: 'order lookup vs SELECT 1 route, c=10', value: ratio('order lookup', 'SELECT 1 route (baseline)'), goal: '>= 0.4x', ok: (v) => v >= 0.4 },
  {
    label: 'POST /orders uniform vs pgbench mimic uniform, c=10',
    value: ratio('POST /orders uniform', 'pgbench order-mimic uniform (baseline)'),
    goal: '>= 0.3x',
    ok: (v) => v >= 0.3,
  },
  {
    label: 'POST /orders hot vs pgbench mimic hot, c=10',
    value: ratio('POST /orders hot SKU', 'pgbench order-mimic hot (baseline)'),
    goal: '>= 0.5x',
    ok: (v) => v >= 0.5,
  },
  {
    label: `aged SKU (${PAST_ORDERS.toLocaleString()} past orders) vs fresh SKU, c=10`,
    value: ratio(`POST /orders aged SKU (${PAST_ORDERS.toLocaleString()} past orders)`, 'POST /orders fresh SKU'),
    goal: '>= 0.9x',
    ok: (v) => v >= 0.9,
  },
  { label: 'MCP browse_catalog vs REST browse, c=10', value: ratio('MCP browse_catalog', 'browse page 1 (10k)'), goal: '>= 0.9x', ok: (v) => v >= 0.9 },
  {
    label: 'MCP 2026-07-28 browse_catalog vs REST browse, c=10',
    value: ratio('MCP 2026-07-28 browse_catalog', 'browse page 1 (10k)'),
    goal: '>= 0.9x',
    ok: (v) => v >= 0.9,
  },
  { label: 'p99 browse page 1, c=10', value: (m) => m.get('browse page 1 (10k)@10')?.p99, goal: '<= 20 ms', ok: (v) => v <= 20, unit: 'ms' },
  { label: 'p99 POST /orders uniform, c=10', value: (m) => m.get('POST /orders uniform@10')?.p99, goal: '<= 20 ms', ok: (v) => v <= 20, unit: 'ms' },
];

/**
 * --against: each service workload on both servers, as a ratio to that server's own `SELECT 1` route at the same
 * concurrency, and the change of this checkout's ratio against the other's.
 */
function comparison(
  mine: Map<string, Measure>,
  theirs: Map<string, Measure>,
  dir: string,
  rounds: { mine: Map<string, Measure[]>; theirs: Map<string, Measure[]> },
): string[] {
  const theirCommit = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const rows = [...theirs.keys()].map((k) => {
    const [name, c] = k.split('@');
    const base = `SELECT 1 route (baseline)@${c}`;
    const a = theirs.get(k)!;
    const b = mine.get(k)!;
    const ra = a.rps / theirs.get(base)!.rps;
    const rb = b.rps / mine.get(base)!.rps;
    const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
    // the same round's two measurements, taken seconds apart: the machine's drift between rounds cancels
    const A = rounds.theirs.get(k)!;
    const B = rounds.mine.get(k)!;
    const paired = median(A.map((m, r) => B[r].rps / m.rps)) - 1;
    return `| ${name} | ${c} | ${a.rps.toFixed(0)} | ${b.rps.toFixed(0)} | ${ra.toFixed(3)} | ${rb.toFixed(3)} | ${pct(rb / ra - 1)} | ${pct(paired)} | ${a.p50.toFixed(1)} / ${a.p99.toFixed(1)} | ${b.p50.toFixed(1)} / ${b.p99.toFixed(1)} |`;
  });
  return [
    `Against ${theirCommit} (${dir}), each workload on both servers in every round, the order alternating:`,
    '',
    `| Workload | c | ${theirCommit} req/s | this req/s | ${theirCommit} ÷ SELECT 1 | this ÷ SELECT 1 | change of the ratio | this ÷ ${theirCommit}, same round (median) | p50 / p99 ms ${theirCommit} | this |`,
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ];
}

function machine(): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  let pgVersion: string;
  try {
    pgVersion = execFileSync('psql', [SERVER_URL, '-tAc', 'SHOW server_version'], { encoding: 'utf8' }).trim();
  } catch {
    pgVersion = '?';
  }
  return `${cpus().length} cores (${cpu}), Node ${process.version}, PostgreSQL ${pgVersion}`;
}

// ---------------------------------------------------------------- main

async function main() {
  const hasPgbench = (() => {
    try {
      execFileSync('pgbench', ['--version'], { stdio: 'ignore' });
      return !CITUS;
    } catch {
      return false;
    }
  })();
  log(`data: ${SMALL.toLocaleString()} and ${LARGE.toLocaleString()} products, ${PAST_ORDERS.toLocaleString()} past orders; ${ROUNDS} rounds of ${DURATION} s`);
  const fixture = await setUp();
  const { child, port } = await startServer();
  const other = args.against ? await startServer(args.against) : undefined;
  const results = new Map<string, Measure[]>();
  const otherResults = new Map<string, Measure[]>();
  let rss = '';
  try {
    const all = workloads(port, fixture, hasPgbench);
    // --only 'a,b': the workloads whose names contain any of the comma-separated parts
    const only = args.only?.split(',').filter(Boolean);
    const chosen = (ws: Workload[]) => (only ? ws.filter((x) => only.some((part) => x.name.includes(part))) : ws);
    const list = chosen(all);
    // the other checkout's server takes the same service workloads (pgbench runs no server code: measured once)
    const otherList = other ? chosen(workloads(other.port, fixture, false)) : [];
    const otherOf = new Map(otherList.map((w) => [key(w), w]));
    log(`warm-up (${list.length + otherList.length} workloads, 1 s each)`);
    for (const w of [...list, ...otherList]) await w.run(1);
    const warmRss = rssMb(child.pid!);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [i, w] of list.entries()) {
        log(`round ${round}/${ROUNDS}  ${i + 1}/${list.length}  ${w.name} c=${w.connections}`);
        const twin = otherOf.get(key(w));
        const sides: [Workload, Map<string, Measure[]>][] = [[w, results]];
        if (twin) sides[round % 2 ? 'push' : 'unshift']([twin, otherResults]);
        for (const [workload, into] of sides) {
          await autoanalyze();
          const m = await workload.run(DURATION);
          into.set(key(w), [...(into.get(key(w)) ?? []), m]);
        }
      }
    }
    const soakMinutes = Number(args.soak);
    if (soakMinutes > 0) {
      const mixed = all.filter((w) => w.connections === 10 && !w.name.includes('baseline'));
      const until = Date.now() + soakMinutes * 60_000;
      log(`soak: ${soakMinutes} min of mixed traffic`);
      while (Date.now() < until) {
        for (const w of mixed) {
          if (Date.now() >= until) break;
          await w.run(5);
        }
        log(`soak: ${Math.max(0, Math.round((until - Date.now()) / 1000))} s left, RSS ${rssMb(child.pid!).toFixed(0)} MB`);
      }
      const after = rssMb(child.pid!);
      rss = `RSS after ${soakMinutes}-minute mixed soak vs after warm-up: ${after.toFixed(0)} MB / ${warmRss.toFixed(0)} MB = ${(after / warmRss).toFixed(2)}x (target <= 1.2x)`;
    }
  } finally {
    child.kill('SIGTERM');
    other?.child.kill('SIGTERM');
  }

  const medians = (from: Map<string, Measure[]>) =>
    new Map(
      [...from].map(([k, ms]) => [
        k,
        {
          rps: median(ms.map((m) => m.rps)),
          p50: median(ms.map((m) => m.p50)),
          p99: median(ms.map((m) => m.p99)),
          errors: ms.reduce((s, m) => s + m.errors, 0),
        },
      ]),
    );
  const med = medians(results);
  const otherMed = medians(otherResults);

  const rows = [...med.entries()].map(([k, m]) => {
    const [name, c] = k.split('@');
    return `| ${name} | ${c} | ${m.rps.toFixed(0)} | ${m.p50.toFixed(1)} | ${m.p99.toFixed(1)} | ${m.errors} |`;
  });
  const targetRows = TARGETS.map((t) => {
    const v = t.value(med);
    const shown = v === undefined ? 'n/a' : t.unit ? `${v.toFixed(1)} ${t.unit}` : `${v.toFixed(2)}x`;
    return `| ${t.label} | ${t.goal} | ${shown} | ${v === undefined ? '-' : t.ok(v) ? 'met' : 'NOT met'} |`;
  });
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const report = [
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${commit}`,
    '',
    `Machine: ${machine()}. Data: ${SMALL.toLocaleString()}-product and ${LARGE.toLocaleString()}-product companies, ${PAST_ORDERS.toLocaleString()} past orders on the aged SKU. Median of ${ROUNDS} rounds of ${DURATION} s, in rotation; rate limiter on.`,
    '',
    '| Workload | Connections | req/s | p50 ms | p99 ms | errors (all rounds) |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    '| Target | Goal | Measured | |',
    '|---|---|---|---|',
    ...targetRows,
    ...(rss ? ['', rss] : []),
    ...(args.against ? ['', ...comparison(med, otherMed, args.against, { mine: results, theirs: otherResults })] : []),
    '',
  ].join('\n');
  process.stdout.write(`\n${report}\n`);
  if (!args['no-write']) {
    appendFileSync('docs/performance.md', `\n${report}`);
    log('appended to docs/performance.md');
  }
}

main().catch((err) => {
  process.stderr.write(`[bench] failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
