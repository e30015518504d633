/**
 * npm run bench:retention [-- --events 1000000 --seconds 15 --rounds 3 --connections 10 --finish]
 *
 * Whether the retention worker's purge holds up orders: POST /orders throughput and latency without a purge (the
 * baseline) and while the real worker (src/privacy/retention-worker.ts, at its default batch and pause) purges a
 * company's `events` old events with their delivered webhook deliveries, in the same run on the same server and
 * database. Orders go to the same company whose events are purged (the same tables, the same index). Baseline and
 * purge windows alternate round by round so the machine's drift lands on both; the purge is stopped (after its batch
 * in flight) at the end of each purge window and resumed at the next. Prints orders/s, p50/p99 per window, the medians,
 * the ratio purge ÷ baseline (the target: at least 0.9x) and the purge's rows/s. With --finish, then, without orders,
 * the purge of what is left, timed (at the worker's pace: it rests four times as long as each batch took).
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { createPgDatabase } from '../src/db/client.js';
import type { Db } from '../src/db/index.js';
import { migrate } from '../src/db/migrate.js';
import { generateCatalogue } from '../src/catalogue/catalogue.generate.js';
import { refreshInStockOfCompany } from '../src/catalogue/catalogue.queries.js';
import { progress as progressLine } from '../src/cli/output.js';
import { configSchema } from '../src/config.js';
import { createServices } from '../src/services.js';
import { createRetentionWorker } from '../src/privacy/retention-worker.js';
import { recreateDatabase, startBenchServer } from './harness.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    seconds: { type: 'string', default: '15' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    products: { type: 'string', default: '500' },
    finish: { type: 'boolean', default: false },
  },
});
const EVENTS = Number(args.events);
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
const CONNECTIONS = Number(args.connections);
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'commerce_bench_retention';
const URL_ = Object.assign(new URL(SERVER_URL), { pathname: `/${DB_NAME}` }).toString();
const log = (msg: string) => process.stderr.write(`[bench:retention] ${msg}\n`);
const API = '/api/v1/commerce';
/** Rows inserted per statement while seeding. */
const SEED_CHUNK = 100_000;
/** An order.created event's data as the service writes it, roughly (its size is what the purge moves). */
const EVENT_DATA = JSON.stringify({
  order_number: 'ORD-000000',
  status: 'confirmed',
  amount: '1299.00',
  currency: 'INR',
  items: [{ sku: 'SKU-000001', name: 'A product name of usual length', quantity: 1, unit_price: '1299.00' }],
  customer: { id: 'cus_00000000000000000000000000' },
});

async function setUp() {
  await recreateDatabase(SERVER_URL, DB_NAME);
  const db = createPgDatabase({ url: URL_, poolMax: 4, statementTimeoutMs: 600_000, connectTimeoutMs: 10_000 });
  try {
    await migrate(db);
    const services = createServices({ db, config: configSchema.parse({ SEED_DEMO: 'false' }) });
    const company = await services.companies.create({ kind: 'cli', name: 'bench' }, { name: 'Retention Bench', slug: 'retention-bench' });
    const key = (await services.keys.create(company.id, { kind: 'cli', name: 'bench' }, 'bench')).key;
    await generateCatalogue(db, company.id, {
      products: Number(args.products),
      seed: 4,
      onProgress: (d, t) => progressLine('[bench:retention] catalogue', d, t),
    });
    await db.query(sql`UPDATE stock_levels SET on_hand = 1000000000 WHERE company_id = ${company.id}`);
    await refreshInStockOfCompany(db, company.id);
    const skus = (await db.query<{ sku: string }>(sql`SELECT sku FROM variants WHERE company_id = ${company.id} ORDER BY id`)).map((r) => r.sku);
    await seedEvents(db, company.id);
    log('VACUUM ANALYZE');
    await db.query(sql`VACUUM ANALYZE`);
    return { companyId: company.id, key, skus };
  } finally {
    await db.close();
  }
}

/** EVENTS events 60 to 40 days old, each with a delivered webhook delivery, with generate_series in chunks. */
async function seedEvents(db: Db, companyId: string) {
  await db.query(sql`INSERT INTO webhook_endpoints (company_id, id, url, events, secret_enc)
                     VALUES (${companyId}, 'we_bench', 'https://hooks.example/bench', '{order.created}', 'sealed')`);
  const started = performance.now();
  // 20 days spread over the events, oldest first
  const stepMs = (20 * 86_400_000) / EVENTS;
  for (let from = 1; from <= EVENTS; from += SEED_CHUNK) {
    const to = Math.min(EVENTS, from + SEED_CHUNK - 1);
    await db.query(sql`
      INSERT INTO events (company_id, id, type, subject_id, data, created_at)
      SELECT ${companyId}, 'evt_bench_' || g, 'order.created', 'ord_bench_' || (g % 100000), ${EVENT_DATA}::json,
             now() - interval '60 days' + g * ${stepMs} * interval '1 millisecond'
        FROM generate_series(${from}::int, ${to}::int) AS g`);
    await db.query(sql`
      INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id, subject_id, seq, status, attempts, last_status_code, delivered_at, created_at, updated_at)
      SELECT ${companyId}, 'we_bench', 'evt_bench_' || g, 'ord_bench_' || (g % 100000), g, 'delivered', 1, 200,
             now() - interval '60 days' + g * ${stepMs} * interval '1 millisecond',
             now() - interval '60 days' + g * ${stepMs} * interval '1 millisecond',
             now() - interval '60 days' + g * ${stepMs} * interval '1 millisecond'
        FROM generate_series(${from}::int, ${to}::int) AS g`);
    progressLine('[bench:retention] events and deliveries', to, EVENTS);
  }
  log(`seeded ${EVENTS} events and ${EVENTS} deliveries in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
const median = (xs: number[]) => percentile(xs, 50);

async function main() {
  const f = await setUp();
  log('starting the server');
  const { child, base } = await startBenchServer('bench/server.ts', { DATABASE_URL: URL_, LOG_LEVEL: 'warn', DB_POOL_MAX: '20', REDIS_URL: '' });
  // the worker as main.ts runs it, on a pool of its own (as a second service instance's would be), defaults for the rest
  const config = configSchema.parse({ SEED_DEMO: 'false' });
  const db = createPgDatabase({ url: URL_, poolMax: 2, statementTimeoutMs: 600_000, connectTimeoutMs: 10_000 });
  const workerLog = { info: () => {}, error: (o: object, msg: string) => log(`worker error: ${msg} ${JSON.stringify(o)}`) };
  const remaining = async () =>
    Number((await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM events WHERE company_id = ${f.companyId} AND id LIKE 'evt\\_bench\\_%'`))[0].n);
  let n = 0;

  const placeOrder = async () => {
    const res = await fetch(`${base}${API}/orders`, {
      method: 'POST',
      headers: { 'x-api-key': f.key, 'content-type': 'application/json' },
      body: JSON.stringify({
        customer: { name: 'Bench Buyer', phone: `+9198${String(20_000_000 + (n % 5000) * 13)}` },
        items: [{ product_id: pick(f.skus), quantity: 1 }],
        external_reference: `r-${process.pid}-${n++}`,
        delivery_address: { line1: '12 MG Road', city: 'Bengaluru', pincode: '560038' },
        payment: 'prepaid',
      }),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST /orders: ${res.status} ${text.slice(0, 200)}`);
  };

  /** CONNECTIONS loops placing orders back to back for `seconds`: orders/s and latency. */
  const measure = async (seconds: number) => {
    const latencies: number[] = [];
    let errors = 0;
    const end = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (Date.now() < end) {
          const t = performance.now();
          try {
            await placeOrder();
            latencies.push(performance.now() - t);
          } catch (err) {
            if (errors++ === 0) log(`first error: ${(err as Error).message}`);
          }
        }
      }),
    );
    return { rate: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
  };

  /** A measurement while the worker purges; the purge is stopped after the window (its batch in flight finished). */
  const duringPurge = async (seconds: number) => {
    const before = await remaining();
    const worker = createRetentionWorker({ db, config, log: workerLog });
    const t = performance.now();
    const pass = worker.runOnce();
    const r = await measure(seconds);
    await worker.stop();
    await pass;
    const purgeSeconds = (performance.now() - t) / 1000;
    const purged = before - (await remaining());
    return { ...r, purged, purgeSeconds };
  };

  const baseline: Awaited<ReturnType<typeof measure>>[] = [];
  const purging: Awaited<ReturnType<typeof duringPurge>>[] = [];
  const line = (name: string, round: number, r: { rate: number; p50: number; p99: number; errors: number }, extra = '') =>
    log(`round ${round}/${ROUNDS}  ${name}: ${r.rate.toFixed(0)} orders/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.errors} errors${extra}`);
  let tail: { purged: number; seconds: number } | undefined;
  try {
    log('warm-up');
    await measure(3);
    for (let round = 1; round <= ROUNDS; round++) {
      const runBaseline = async () => {
        const r = await measure(SECONDS);
        baseline.push(r);
        line('baseline (no purge)', round, r);
      };
      const runPurge = async () => {
        const r = await duringPurge(SECONDS);
        purging.push(r);
        line('during the purge', round, r, `; purged ${r.purged} events (${(r.purged / r.purgeSeconds).toFixed(0)} events/s)`);
      };
      if (round % 2) {
        await runBaseline();
        await runPurge();
      } else {
        await runPurge();
        await runBaseline();
      }
    }
    if (args.finish) {
      const left = await remaining();
      log(`purging the ${left} events left, without orders`);
      const t = performance.now();
      await createRetentionWorker({ db, config, log: workerLog }).runOnce();
      tail = { purged: left - (await remaining()), seconds: (performance.now() - t) / 1000 };
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await db.close();
  }

  const rate = (rs: { rate: number }[]) => median(rs.map((r) => r.rate));
  const b = rate(baseline);
  const p = rate(purging);
  const purged = purging.reduce((s, r) => s + r.purged, 0);
  const purgeSeconds = purging.reduce((s, r) => s + r.purgeSeconds, 0);
  console.log(
    `\nPOST ${API}/orders at ${CONNECTIONS} concurrent buyers, ${ROUNDS} rounds of ${SECONDS} s, with and without the retention purge of ` +
      `${EVENTS} events (+ as many deliveries), batch ${config.RETENTION_BATCH}, rest 4x a batch's time, at least ${config.RETENTION_PAUSE_MS} ms (medians)\n`,
  );
  console.log('| Window | orders/s | p50 ms | p99 ms | errors | ÷ baseline |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, rs, r] of [
    ['baseline (no purge)', baseline, b],
    ['during the purge', purging, p],
  ] as const)
    console.log(
      `| ${name} | ${r.toFixed(0)} | ${median(rs.map((x) => x.p50)).toFixed(1)} | ${median(rs.map((x) => x.p99)).toFixed(1)} | ${rs.reduce((s, x) => s + x.errors, 0)} | ${(r / b).toFixed(2)}x |`,
    );
  const sameRound = purging.map((r, i) => r.rate / baseline[i].rate);
  console.log(`\nSame-round ratios: ${sameRound.map((x) => x.toFixed(2)).join(', ')} (median ${median(sameRound).toFixed(2)}x; target >= 0.9x)`);
  console.log(
    `Purge under load: ${purged} events (+ their deliveries) in ${purgeSeconds.toFixed(1)} s, ${(purged / purgeSeconds).toFixed(0)} events/s ` +
      `(${((2 * purged) / purgeSeconds).toFixed(0)} rows/s)`,
  );
  if (tail)
    console.log(
      `Purge without orders: ${tail.purged} events in ${tail.seconds.toFixed(1)} s, ${(tail.purged / Math.max(tail.seconds, 0.001)).toFixed(0)} events/s ` +
        `(${((2 * tail.purged) / Math.max(tail.seconds, 0.001)).toFixed(0)} rows/s)`,
    );
}

await main();
