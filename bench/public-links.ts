/**
 * npm run bench:links [-- --duration 10 --loops 4 --connections 4 --rate 40]
 *
 * What one signed invoice link costs the other companies: a neighbour company browses its catalogue over
 * REST (`rate` requests per second over `connections`) while `loops` parallel loops fetch one invoice link of another
 * company as fast as they are answered. Three servers, one after the other, in the same run and on the same data:
 *   before       every fetch draws the PDF again (as before the PDFs were stored), no limit on the link
 *   stored       the stored bytes are served, no limit on the link
 *   stored+limit the stored bytes, and the link's default limit per client address (INVOICE_LINK_RATE_LIMIT)
 * Each measures the neighbour alone, then the neighbour under the loops, and prints the neighbour's req/s, p50 and p99,
 * the link's answers per second (PDFs and 429s) and how many PDFs the server drew.
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { createPgDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { generateCatalogue } from '../src/catalogue/catalogue.generate.js';
import { configSchema } from '../src/config.js';
import { createServices } from '../src/services.js';
import { recreateDatabase, startBenchServer } from './harness.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    loops: { type: 'string', default: '4' },
    connections: { type: 'string', default: '4' },
    rate: { type: 'string', default: '40' },
  },
});
const DURATION = Number(args.duration);
const LOOPS = Number(args.loops);
const CONNECTIONS = Number(args.connections);
/** The neighbour's own load, requests per second over its connections: below saturation, so its latency is the service's, not its own queue. */
const RATE = Number(args.rate);
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'commerce_bench_links';
const BENCH_URL = Object.assign(new URL(SERVER_URL), { pathname: `/${DB_NAME}` }).toString();
const BASE_PATH = configSchema.parse({ SEED_DEMO: 'false' }).BASE_PATH;
const log = (msg: string) => process.stderr.write(`[bench:links] ${msg}\n`);

interface Fixture {
  neighbourKey: string;
  invoicePath: string;
}

/** A seller with a tax profile and a shipped, invoiced order of six lines; a neighbour with 2,000 products. */
async function setUp(): Promise<Fixture> {
  await recreateDatabase(SERVER_URL, DB_NAME);
  const db = createPgDatabase({ url: BENCH_URL, poolMax: 5, statementTimeoutMs: 600_000, connectTimeoutMs: 10_000 });
  try {
    await migrate(db);
    const services = createServices({ db, config: configSchema.parse({ SEED_DEMO: 'false' }) });
    const seller = await services.companies.create({ kind: 'cli', name: 'bench' }, { name: 'Sharma Handlooms', slug: 'sharma-handlooms' });
    const neighbour = await services.companies.create({ kind: 'cli', name: 'bench' }, { name: 'Neighbour', slug: 'neighbour' });
    await services.taxProfiles.set(
      seller.id,
      { kind: 'cli', name: 'bench' },
      {
        legal_name: 'Sharma Handlooms Private Limited',
        gstin: '29AAGCB7383J1Z4',
        address_line1: '12, 4th Cross, Indiranagar',
        city: 'Bengaluru',
        state: 'Karnataka',
        pincode: '560038',
      },
    );
    await generateCatalogue(db, seller.id, { products: 20, seed: 3 });
    await generateCatalogue(db, neighbour.id, { products: 2_000, seed: 4 });
    const skus = (await db.query<{ sku: string }>(sql`SELECT sku FROM variants WHERE company_id = ${seller.id} ORDER BY id LIMIT 6`)).map((r) => r.sku);
    await db.query(sql`UPDATE stock_levels SET on_hand = 1000 WHERE company_id = ${seller.id}`);
    const tenant = { companyId: seller.id, keyId: 'bench', keyPrefix: 'bench', permissions: ['commerce'] };
    const { order } = await services.orders.place(tenant, {
      customer: { name: 'Aishwarya Raghavan', phone: '+91 98450 12345' },
      items: skus.map((sku) => ({ product_id: sku, quantity: 1 })),
      external_reference: 'bench-invoice',
      delivery_address: { line1: 'Flat 3B, Lotus Apartments', city: 'Chennai', pincode: '600001' },
      payment: 'cod',
    });
    await services.fulfilment.move(seller.id, order.order_number, 'shipped');
    const lookup = await services.orders.lookup(tenant, order.order_number, undefined, 'http://bench');
    await db.query(sql`VACUUM ANALYZE`);
    if (!lookup.invoice?.url) throw new Error('the bench order has no invoice link');
    const url = new URL(lookup.invoice.url);
    return {
      neighbourKey: (await services.keys.create(neighbour.id, { kind: 'cli', name: 'bench' }, 'bench')).key,
      invoicePath: `${url.pathname}${url.search}`,
    };
  } finally {
    await db.close();
  }
}

const startServer = (env: Record<string, string>) =>
  startBenchServer('bench/public-links-server.ts', { DATABASE_URL: BENCH_URL, LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '100000000', ...env });

interface Run {
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  limited: number;
}

function cannon(
  url: string,
  connections: number,
  duration: number,
  opts: { headers?: Record<string, string>; paths?: () => string; rate?: number } = {},
): Promise<Run> {
  const { headers = {}, paths, rate } = opts;
  return new Promise((resolve, reject) => {
    void autocannon(
      {
        url,
        connections,
        duration,
        headers,
        ...(rate ? { overallRate: rate } : {}),
        requests: paths ? [{ setupRequest: (req) => ({ ...req, path: paths() }) }] : undefined,
      },
      (err, r) => {
        if (err) return reject(err instanceof Error ? err : new Error(String(err)));
        const limited = r.statusCodeStats?.['429']?.count ?? 0;
        resolve({
          rps: r.requests.average,
          p50: r.latency.p50,
          p99: r.latency.p99,
          ok: r['2xx'] / duration,
          limited: limited / duration,
        });
      },
    );
  });
}

async function main() {
  log(`setting up ${DB_NAME}`);
  const f = await setUp();
  let page = 0;
  const browse = () => `${BASE_PATH}/catalog/products?limit=20&offset=${(page++ % 50) * 20}`;
  const servers: [name: string, env: Record<string, string>][] = [
    ['before: drawn on every fetch', { BENCH_DRAW_EACH_TIME: '1', INVOICE_LINK_RATE_LIMIT: '100000000' }],
    ['after: stored bytes', { INVOICE_LINK_RATE_LIMIT: '100000000' }],
    ['after: stored bytes + default link limit', {}],
  ];
  const rows: string[] = [];
  for (const [name, env] of servers) {
    const { child, base } = await startServer(env);
    try {
      const neighbour = (duration = DURATION) => cannon(base, CONNECTIONS, duration, { headers: { 'x-api-key': f.neighbourKey }, paths: browse, rate: RATE });
      log(`${name}: warm-up`);
      await Promise.all([neighbour(2), cannon(`${base}${f.invoicePath}`, 1, 2)]);
      log(`${name}: neighbour alone`);
      const alone = await neighbour();
      const drawnBefore = ((await (await fetch(`${base}/bench/document-stats`)).json()) as { drawn: number }).drawn;
      log(`${name}: neighbour with ${LOOPS} loops on one invoice link`);
      const [busy, link] = await Promise.all([neighbour(), cannon(`${base}${f.invoicePath}`, LOOPS, DURATION)]);
      const drawn = ((await (await fetch(`${base}/bench/document-stats`)).json()) as { drawn: number }).drawn - drawnBefore;
      rows.push(
        `| ${name} | alone | ${alone.rps.toFixed(0)} | ${alone.p50.toFixed(1)} | ${alone.p99.toFixed(1)} | | | |`,
        `| ${name} | ${LOOPS} loops on one invoice link | ${busy.rps.toFixed(0)} | ${busy.p50.toFixed(1)} | ${busy.p99.toFixed(1)} | ${link.ok.toFixed(0)} | ${link.limited.toFixed(0)} | ${drawn} |`,
      );
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }
  const table = [
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}. Neighbour: GET /catalog/products?limit=20 (a 2,000-product company, ${RATE} req/s offered over ${CONNECTIONS} connections); link: a 6-line GST invoice of another company; ${DURATION} s each.`,
    '',
    '| Server | Neighbour traffic | neighbour req/s | p50 ms | p99 ms | link PDFs/s | link 429/s | PDFs drawn |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  process.stdout.write(`${table}\n`);
}

await main();
