/**
 * npx tsx bench/tracing.ts [--duration 5 --rounds 3 --before DIR --modes before,off,sampled,every]
 *
 * What tracing costs: the same service (bench/server.ts) with tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT), exporting
 * 10 % of traces, and exporting every span, over OTLP (http/protobuf, the default) to a sink in this process; with
 * `--before DIR` (a checkout of the commit before tracing, e.g. `git archive <commit> | tar -x -C DIR` with
 * node_modules linked) also the service without any tracing code. Measured in the same run with autocannon in
 * rotated rounds (the order of the servers shifts every round). Prints the medians as a table for docs/performance.md.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { createPgDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { generateCatalogue } from '../src/catalogue/catalogue.generate.js';
import { refreshInStockOfCompany } from '../src/catalogue/catalogue.queries.js';
import { configSchema } from '../src/config.js';
import { createServices } from '../src/services.js';
import { recreateDatabase, startBenchServer } from './harness.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    before: { type: 'string' },
    modes: { type: 'string', default: 'before,off,sampled,every' },
  },
});
const DURATION = Number(args.duration);
const ROUNDS = Number(args.rounds);
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'commerce_bench_tracing';
const BENCH_URL = Object.assign(new URL(SERVER_URL), { pathname: `/${DB_NAME}` }).toString();
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

async function setUp(): Promise<{ key: string; skus: string[] }> {
  await recreateDatabase(SERVER_URL, DB_NAME);
  const db = createPgDatabase({ url: BENCH_URL, poolMax: 4, statementTimeoutMs: 600_000, connectTimeoutMs: 10_000 });
  try {
    await migrate(db);
    const services = createServices({ db, config: configSchema.parse({ SEED_DEMO: 'false' }) });
    const company = await services.companies.create({ kind: 'cli', name: 'bench' }, { name: 'Bench tracing', slug: 'bench-tracing' });
    const key = (await services.keys.create(company.id, { kind: 'cli', name: 'bench' }, 'bench')).key;
    await generateCatalogue(db, company.id, { products: 2_000, seed: 1 });
    await db.query(sql`UPDATE stock_levels SET on_hand = 1000000000 WHERE company_id = ${company.id}`);
    await refreshInStockOfCompany(db, company.id); // a raw stock write: the in-stock flags follow, as every writer's do
    await db.query(sql`VACUUM ANALYZE`);
    const skus = (await db.query<{ sku: string }>(sql`SELECT sku FROM variants WHERE company_id = ${company.id} ORDER BY id LIMIT 2000`)).map((r) => r.sku);
    return { key, skus };
  } finally {
    await db.close();
  }
}

/** An OTLP/HTTP sink: answers 200 and counts what it was sent. */
async function sink() {
  const seen = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => (seen.bytes += c.length));
    req.on('end', () => {
      seen.requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => server.close() };
}

const startServer = (env: Record<string, string>, cwd = process.cwd()) =>
  startBenchServer('bench/server.ts', { OTEL_EXPORTER_OTLP_ENDPOINT: '', DATABASE_URL: BENCH_URL, LOG_LEVEL: 'warn', DB_POOL_MAX: '10', ...env }, cwd);

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function cannon(base: string, duration: number, request: () => { method?: string; path: string; body?: string; headers?: Record<string, string> }) {
  const result = await autocannon({
    url: base,
    connections: 10,
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
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  log('setting up (2,000 products)');
  const { key, skus } = await setUp();
  const otlp = await sink();
  const exporting = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_SERVICE_NAME: 'commerce-api-bench' };
  const wanted = new Set(args.modes.split(','));
  const servers = [];
  if (args.before && wanted.has('before')) servers.push({ name: 'no tracing code (before)', ...(await startServer({}, args.before)) });
  if (wanted.has('off')) servers.push({ name: 'off', ...(await startServer({})) });
  if (wanted.has('sampled')) {
    servers.push({
      name: 'on, 10 % of traces',
      ...(await startServer({ ...exporting, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' })),
    });
  }
  if (wanted.has('every')) servers.push({ name: 'on, every trace', ...(await startServer(exporting)) });
  const modes = servers;
  const api = '/api/v1/commerce';
  const headers = { 'x-api-key': key };
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  let ref = 0;
  const workloads = [
    { name: 'product detail', request: () => ({ path: `${api}/catalog/products/${pick(skus)}`, headers }) },
    {
      name: 'POST /orders',
      request: () => ({
        method: 'POST',
        path: `${api}/orders`,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          customer: { name: 'Bench Customer', phone: `+9198${String(10000000 + (ref % 500) * 7919).slice(-8)}` },
          items: [{ product_id: pick(skus), quantity: 1 }],
          external_reference: `tr-${process.pid}-${ref++}`,
          delivery_address: { line1: '1 MG Road', city: 'Bengaluru', pincode: '560001' },
          payment: 'cod',
        }),
      }),
    },
  ];
  try {
    log('warm-up');
    for (const w of workloads) for (const m of modes) await cannon(m.base, 1, w.request);
    const results = new Map<string, Measure[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const w of workloads) {
        const order = [...modes.slice(round % modes.length), ...modes.slice(0, round % modes.length)];
        for (const m of order) {
          const r = await cannon(m.base, DURATION, w.request);
          log(`round ${round + 1} ${w.name} tracing ${m.name}: ${r.rps.toFixed(0)} req/s p50 ${r.p50} ms p99 ${r.p99} ms errors ${r.errors}`);
          results.set(`${w.name}|${m.name}`, [...(results.get(`${w.name}|${m.name}`) ?? []), r]);
        }
      }
    }
    const rows = ['| Workload (10 connections) | Tracing | req/s | p50 ms | p99 ms | errors |', '| --- | --- | ---: | ---: | ---: | ---: |'];
    for (const w of workloads) {
      for (const m of modes) {
        const rs = results.get(`${w.name}|${m.name}`)!;
        rows.push(
          `| ${w.name} | ${m.name} | ${median(rs.map((r) => r.rps)).toFixed(0)} | ${median(rs.map((r) => r.p50))} | ${median(rs.map((r) => r.p99))} | ${rs.reduce((a, r) => a + r.errors, 0)} |`,
        );
      }
    }
    await new Promise((r) => setTimeout(r, 6000)); // the last batch (5 s schedule) reaches the sink
    process.stdout.write(
      `${rows.join('\n')}\n\nOTLP sink: ${otlp.seen.requests} exports, ${(otlp.seen.bytes / 1e6).toFixed(1)} MB (medians of ${ROUNDS} rounds of ${DURATION} s)\n`,
    );
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
    otlp.close();
  }
}

await main();
