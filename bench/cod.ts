/**
 * npm run bench:cod [-- --seconds 10 --rounds 3 --connections 10 --customers 2000]
 *
 * What cash on delivery costs on POST /orders, in the same run on the same server and database: each buyer loop
 * places orders back to back for `seconds`, `connections` loops at once, the three paths alternating round by round
 * so the machine's drift lands on all of them. Each path has a company of its own, seeded alike (the same catalogue,
 * the same customers with the same past orders):
 *   1. baseline: POST /orders paid "prepaid", for a company that never set its COD settings;
 *   2. POST /orders paid "cod" for a company whose COD rules are all on: 500 blocked PIN codes and ranges (none
 *      holds the order's PIN), max_order_value above any order, rto_threshold 2. Each order pays the rule read
 *      (src/cod/cod-rules.service.ts: the rules and the customer's returns to origin, in one statement);
 *   3. the same rules with confirm_before_booking on, each order then confirmed by the buyer: POST /orders and
 *      POST /orders/{order_number}/cod-confirmation {"answer":"confirm"}, two requests per order.
 * The buyers' phones are drawn from `customers` phones, each a customer of every company with one past order or
 * (every fourth) four, some returned to origin (never more than the threshold, so no COD order is refused), so the
 * rule read counts a realistic customer's parcels. Prints orders/s and requests/s, p50/p99 of a whole order (ms) and
 * of each request, per round and the medians, and each path's ratios to the baseline (medians and same-round).
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
import { MAX_BLOCKED_PINCODES } from '../src/contract/cod.js';
import { createServices } from '../src/services.js';
import { recreateDatabase, startBenchServer } from './harness.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    products: { type: 'string', default: '1000' },
    customers: { type: 'string', default: '2000' },
  },
});
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
const CONNECTIONS = Number(args.connections);
const CUSTOMERS = Number(args.customers);
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'commerce_bench_cod';
const URL_ = Object.assign(new URL(SERVER_URL), { pathname: `/${DB_NAME}` }).toString();
const log = (msg: string) => process.stderr.write(`[bench:cod] ${msg}\n`);
const progress = (label: string) => (done: number, total: number) => progressLine(`[bench:cod] ${label}`, done, total);

const API = '/api/v1/commerce';
/** Where every benchmarked order goes: not blocked (the blocked list stays below 500000). */
const PINCODE = '560038';
/** The buyers: one phone per customer, the same in every company. */
const PHONES = Array.from({ length: CUSTOMERS }, (_, i) => `+9198${String(20_000_000 + i * 13)}`);
/** A customer's past orders (prepaid, placed before the rules): every fourth has four, at most 2 returned to origin. */
type Ending = 'delivered' | 'rto' | 'cancelled' | 'open';
const HISTORIES: Ending[][] = [
  ['delivered', 'rto', 'cancelled', 'delivered'],
  ['rto', 'rto', 'delivered', 'delivered'],
  ['delivered', 'delivered', 'open', 'cancelled'],
];
const historyOf = (i: number): Ending[] => (i % 4 === 0 ? HISTORIES[(i / 4) % HISTORIES.length] : ['delivered']);
/** 500 PIN codes and ranges, half single PINs, half ranges of 50, all from 110001 to below 500000 (not PINCODE). */
const BLOCKED = Array.from({ length: MAX_BLOCKED_PINCODES }, (_, i) => {
  const from = 110001 + i * 700;
  return i % 2 ? `${from}-${from + 50}` : String(from);
});

type Services = ReturnType<typeof createServices>;

/** A company with the catalogue, stock for the whole run, and every customer with their past orders. */
async function seedCompany(services: Services, db: Db, slug: string) {
  const company = await services.companies.create({ kind: 'cli', name: 'bench' }, { name: `COD Bench ${slug}`, slug });
  const key = (await services.keys.create(company.id, { kind: 'cli', name: 'bench' }, 'bench')).key;
  const auth = await services.keys.authenticate(key);
  if (!auth.ok) throw new Error(`${slug}: the bench key does not authenticate`);
  await generateCatalogue(db, company.id, { products: Number(args.products), seed: 4, onProgress: progress(`${slug}: catalogue`) });
  await db.query(sql`UPDATE stock_levels SET on_hand = 1000000000 WHERE company_id = ${company.id}`);
  await refreshInStockOfCompany(db, company.id); // a raw stock write: the in-stock flags follow
  const skus = (await db.query<{ sku: string }>(sql`SELECT sku FROM variants WHERE company_id = ${company.id} ORDER BY id`)).map((r) => r.sku);

  // past orders through the real flows (as test/helpers/cod.ts orderThatEnds): placed prepaid, then shipped and
  // delivered or returned to origin by the courier's word, cancelled, or left open
  const { fulfilment } = services;
  const pastOrder = async (i: number, j: number, end: Ending) => {
    const { order } = await services.orders.place(auth.tenant, {
      customer: { name: `Past Buyer ${i}`, phone: PHONES[i] },
      items: [{ product_id: skus[(i * 7 + j) % skus.length], quantity: 1 }],
      external_reference: `past-${i}-${j}`,
      delivery_address: { line1: '12 MG Road', city: 'Bengaluru', pincode: PINCODE },
      payment: 'prepaid',
    });
    const ref = order.order_number;
    if (end === 'open') return;
    if (end === 'cancelled') {
      await fulfilment.move(company.id, ref, 'cancelled');
      return;
    }
    const awb = `AWB${slug.length}${i}X${j}`;
    await fulfilment.ship(company.id, ref, { awb });
    await fulfilment.track(company.id, { awb }, end, { source: 'callback' });
  };
  const tick = progress(`${slug}: customers with past orders`);
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      for (let i = next++; i < CUSTOMERS; i = next++) {
        for (const [j, end] of historyOf(i).entries()) await pastOrder(i, j, end);
        if (++done % 250 === 0 || done === CUSTOMERS) tick(done, CUSTOMERS);
      }
    }),
  );
  return { id: company.id, key, skus };
}

async function setUp() {
  await recreateDatabase(SERVER_URL, DB_NAME);
  const db = createPgDatabase({ url: URL_, poolMax: 8, statementTimeoutMs: 600_000, connectTimeoutMs: 10_000 });
  try {
    await migrate(db);
    const services = createServices({ db, config: configSchema.parse({ SEED_DEMO: 'false' }) });
    const prepaid = await seedCompany(services, db, 'cod-bench-none');
    const rules = await seedCompany(services, db, 'cod-bench-rules');
    const confirm = await seedCompany(services, db, 'cod-bench-confirm');
    // "high enough": twice the dearest variant, so a one-item order never breaks it and the rule is still evaluated
    const [{ dearest }] = await db.query<{ dearest: string }>(sql`SELECT max(selling_price)::text AS dearest FROM variants WHERE company_id = ${rules.id}`);
    const maxOrderValue = String(Math.ceil(Number(dearest) * 2));
    const on = { blocked_pincodes: BLOCKED, max_order_value: maxOrderValue, rto_threshold: 2 };
    await services.codSettings.set(rules.id, { kind: 'cli', name: 'bench' }, on);
    const set = await services.codSettings.set(confirm.id, { kind: 'cli', name: 'bench' }, { ...on, confirm_before_booking: true });
    log(`COD rules: ${set.blocked_pincodes.length} blocked PIN codes/ranges, max_order_value ${set.max_order_value}, rto_threshold ${set.rto_threshold}`);
    log('VACUUM ANALYZE');
    await db.query(sql`VACUUM ANALYZE`);
    return { prepaid, rules, confirm };
  } finally {
    await db.close();
  }
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
  let n = 0;
  const json = { 'content-type': 'application/json' };
  /** Each request's latency (ms) by its name, for the measurement under way. */
  let requestTimes = new Map<string, number[]>();
  const post = async (name: string, path: string, key: string, body: unknown) => {
    const t = performance.now();
    const res = await fetch(`${base}${API}${path}`, { method: 'POST', headers: { 'x-api-key': key, ...json }, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
    const times = requestTimes.get(name) ?? requestTimes.set(name, []).get(name)!;
    times.push(performance.now() - t);
    return (JSON.parse(text) as { data: { order_number: string; cod_confirmation: { status: string } | null } }).data;
  };
  const placeOrder = (name: string, c: { key: string; skus: string[] }, payment: 'prepaid' | 'cod') =>
    post(name, '/orders', c.key, {
      customer: { name: 'Bench Buyer', phone: pick(PHONES) },
      items: [{ product_id: pick(c.skus), quantity: 1 }],
      external_reference: `b-${process.pid}-${n++}`,
      delivery_address: { line1: '12 MG Road', city: 'Bengaluru', pincode: PINCODE },
      payment,
    });

  const viaPrepaid = async () => {
    await placeOrder('POST /orders', f.prepaid, 'prepaid');
  };
  const viaRules = async () => {
    const order = await placeOrder('POST /orders', f.rules, 'cod');
    if (order.cod_confirmation !== null) throw new Error(`a confirmation was asked without confirm_before_booking: ${order.order_number}`);
  };
  const viaConfirmed = async () => {
    const order = await placeOrder('POST /orders', f.confirm, 'cod');
    if (order.cod_confirmation?.status !== 'pending') throw new Error(`no pending confirmation: ${JSON.stringify(order.cod_confirmation)}`);
    const answered = await post('POST /orders/{order_number}/cod-confirmation', `/orders/${order.order_number}/cod-confirmation`, f.confirm.key, {
      answer: 'confirm',
    });
    if (answered.cod_confirmation?.status !== 'confirmed') throw new Error(`not confirmed: ${JSON.stringify(answered.cod_confirmation)}`);
  };

  /** `CONNECTIONS` loops placing orders one after another for `seconds`: orders/s, each order's and each request's latency. */
  const measure = async (place: () => Promise<void>, seconds: number) => {
    const latencies: number[] = [];
    let errors = 0;
    requestTimes = new Map();
    const end = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (Date.now() < end) {
          const t = performance.now();
          try {
            await place();
            latencies.push(performance.now() - t);
          } catch (err) {
            if (errors++ === 0) log(`first error: ${(err as Error).message}`);
          }
        }
      }),
    );
    const requests = [...requestTimes].map(([name, xs]) => ({ name, p50: percentile(xs, 50), p99: percentile(xs, 99) }));
    return { rate: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, requests };
  };

  const kinds = [
    ['prepaid, no COD settings (baseline)', viaPrepaid, 1],
    ['COD, rules on', viaRules, 1],
    ['COD, rules on + confirmed by the buyer (order + cod-confirmation)', viaConfirmed, 2],
  ] as const;
  const results = new Map<string, Awaited<ReturnType<typeof measure>>[]>(kinds.map(([name]) => [name, []]));
  try {
    log('warm-up');
    for (const [, place] of kinds) await measure(place, 2);
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 ? kinds : [...kinds].reverse();
      for (const [name, place, requests] of order) {
        const r = await measure(place, SECONDS);
        results.get(name)!.push(r);
        log(
          `round ${round}/${ROUNDS}  ${name}: ${r.rate.toFixed(0)} orders/s, ${(r.rate * requests).toFixed(0)} req/s, ` +
            `p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms per order, ${r.errors} errors`,
        );
      }
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }

  console.log(`\nPOST ${API}/orders with and without cash on delivery at ${CONNECTIONS} concurrent buyers, ${ROUNDS} rounds of ${SECONDS} s (medians)\n`);
  console.log('| Path | orders/s | requests/s | p50 ms per order | p99 ms per order | errors | orders/s ÷ baseline | req/s ÷ baseline |');
  console.log('|---|---|---|---|---|---|---|---|');
  const baseline = results.get(kinds[0][0])!;
  const base0 = median(baseline.map((r) => r.rate));
  for (const [name, , requests] of kinds) {
    const rs = results.get(name)!;
    const rate = median(rs.map((r) => r.rate));
    const errors = rs.reduce((s, r) => s + r.errors, 0);
    console.log(
      `| ${name} | ${rate.toFixed(0)} | ${(rate * requests).toFixed(0)} | ${median(rs.map((r) => r.p50)).toFixed(1)} | ${median(rs.map((r) => r.p99)).toFixed(1)} | ${errors} | ${(rate / base0).toFixed(2)}x | ${((rate * requests) / base0).toFixed(2)}x |`,
    );
  }

  console.log('\nPer request (medians of the rounds)\n');
  console.log('| Path | Request | p50 ms | p99 ms |');
  console.log('|---|---|---|---|');
  for (const [name] of kinds) {
    const rs = results.get(name)!;
    for (const { name: request } of rs[0]?.requests ?? []) {
      const of = rs.map((r) => r.requests.find((q) => q.name === request)).filter((q) => q !== undefined);
      console.log(`| ${name} | ${request} | ${median(of.map((q) => q.p50)).toFixed(1)} | ${median(of.map((q) => q.p99)).toFixed(1)} |`);
    }
  }

  console.log('\nSame-round ratios to the baseline');
  for (const [name, , requests] of kinds.slice(1)) {
    const perOrder = results.get(name)!.map((r, i) => r.rate / baseline[i].rate);
    const list = (xs: number[]) => `${xs.map((x) => x.toFixed(2)).join(', ')} (median ${median(xs).toFixed(2)}x)`;
    const perRequest = requests > 1 ? `; requests/s ${list(perOrder.map((x) => x * requests))}` : '';
    console.log(`  ${name}: orders/s ${list(perOrder)}${perRequest}`);
  }
}

await main();
