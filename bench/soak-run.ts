import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../src/db/index.js';
import type { Actor } from '../src/db/audit-log.js';
import { newId } from '../src/lib/ids.js';
import { refreshListing } from '../src/catalogue/catalogue.queries.js';
import { auditCompany, minAvailable } from '../test/helpers/audit.js';

/**
 * The soak workload, shared by `npm run soak` (bench/soak.ts, minutes) and the short vitest version:
 * many parallel HTTP clients place orders over a few hot and many cold variants, mixed with browse,
 * detail and lookup traffic, against one or more listening instances; availability is sampled during
 * the run; then an audit proves nothing was lost, oversold or duplicated.
 */
export interface SoakOptions {
  db: Db;
  /** `http://host:port/api/v1/commerce` of each instance; clients spread over them. */
  baseUrls: string[];
  orders: number;
  clients: number;
  hotVariants?: number;
  coldVariants?: number;
  /** Units of each hot variant: small, so hot variants sell out and 409s happen. */
  hotStock?: number;
  log?: (line: string) => void;
  /** ms between progress lines */
  progressEvery?: number;
  /**
   * The instances shed load (503 with Retry-After): a 503 is an expected answer, not a problem, and an order answered
   * 503 must have left nothing behind, like a 409.
   */
  shedding?: boolean;
}

export interface SoakSeed {
  companyId: string;
  key: string;
  hot: string[];
  cold: string[];
}

/** A company with a key, a ship-from location, and hot + cold variants (10 per product). */
export async function seedSoakCompany(
  db: Db,
  services: {
    companies: { create(a: Actor, i: { name: string; slug: string }): Promise<{ id: string }> };
    keys: { create(c: string, a: Actor, n?: string): Promise<{ key: string }> };
  },
  opts: { hot: number; cold: number; hotStock: number },
): Promise<SoakSeed> {
  const suffix = randomBytes(4).toString('hex');
  const company = await services.companies.create({ kind: 'cli', name: 'bench' }, { name: `Soak ${suffix}`, slug: `soak-${suffix}` });
  const { key } = await services.keys.create(company.id, { kind: 'cli', name: 'bench' }, 'soak');
  const loc = newId('loc');
  await db.query(
    sql`INSERT INTO stock_locations (company_id, id, code, name, kind, active, ships_orders) VALUES (${company.id}, ${loc}, 'WH', 'Warehouse', 'warehouse', true, true)`,
  );
  const all = [
    ...Array.from({ length: opts.hot }, (_, i) => ({ sku: `HOT-${i}`, stock: opts.hotStock })),
    ...Array.from({ length: opts.cold }, (_, i) => ({ sku: `COLD-${i}`, stock: 100_000 })),
  ];
  for (let p = 0; p * 10 < all.length; p++) {
    const productId = newId('prod');
    const name = `Soak product ${String(p).padStart(4, '0')}`;
    const variants = all.slice(p * 10, p * 10 + 10);
    await db.query(sql`INSERT INTO products (company_id, id, sku, name, sort_name, unit, tax_rate, active, search_text)
      VALUES (${company.id}, ${productId}, ${`SP-${p}`}, ${name}, ${name.toLowerCase()}, 'PCS', '18', true, ${`${name} ${variants.map((v) => v.sku).join(' ')}`.toLowerCase()})`);
    for (const [i, v] of variants.entries()) {
      const id = newId('var');
      await db.query(sql`INSERT INTO variants (company_id, id, product_id, sku, name, attributes, position, selling_price, mrp, active)
        VALUES (${company.id}, ${id}, ${productId}, ${v.sku}, ${v.sku}, '{}'::jsonb, ${i}, '199.00', '249.00', true)`);
      await db.query(sql`INSERT INTO stock_levels (company_id, variant_id, location_id, on_hand) VALUES (${company.id}, ${id}, ${loc}, ${v.stock})`);
    }
    await refreshListing(db, company.id, [productId]);
  }
  return {
    companyId: company.id,
    key,
    hot: all.filter((v) => v.sku.startsWith('HOT')).map((v) => v.sku),
    cold: all.filter((v) => v.sku.startsWith('COLD')).map((v) => v.sku),
  };
}

/** What the soak reads of an answer: an order's id, a retry's duplicate flag, the products a read showed. */
interface ShownProduct {
  order_id?: string;
  variants?: { sku: string; available: string }[];
}
interface SoakBody {
  data?: ShownProduct | ShownProduct[];
  duplicate?: boolean;
}
const orderIdOf = (body: SoakBody | undefined) => (Array.isArray(body?.data) ? undefined : body?.data?.order_id);

interface Outcome {
  ref: string;
  phone: string;
  status: number;
  orderId?: string;
  retryStatus?: number;
  retryOrderId?: string;
}

export interface SoakReport {
  ordersAttempted: number;
  created: number;
  refusedOutOfStock: number;
  otherStatuses: Record<string, number>;
  requests: number;
  reads: number;
  retries: number;
  retriesSameOrder: number;
  samples: number;
  minAvailableSeen: number;
  seconds: number;
  /** Latency of every request in ms (p50/p99), split into answers that did work and 503 refusals. */
  latency: { served: Percentiles; refused: Percentiles };
  problems: string[];
  audit: Awaited<ReturnType<typeof auditCompany>>;
}

const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];

export interface Percentiles {
  count: number;
  p50: number;
  p99: number;
  max: number;
}
function percentiles(ms: number[]): Percentiles {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => (s.length ? Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))] * 10) / 10 : 0);
  return { count: s.length, p50: at(0.5), p99: at(0.99), max: at(1) };
}

export async function runSoak(seed: SoakSeed, opts: SoakOptions): Promise<SoakReport> {
  const { db, baseUrls } = opts;
  const log = opts.log ?? (() => {});
  const headers = { 'x-api-key': seed.key, 'content-type': 'application/json' };
  const outcomes: Outcome[] = [];
  const otherStatuses: Record<string, number> = {};
  const problems: string[] = [];
  let requests = 0;
  let reads = 0;
  let next = 0;
  let retries = 0;
  let retriesSameOrder = 0;
  const t0 = Date.now();

  const served: number[] = [];
  const refusedMs: number[] = [];
  // A well-behaved client: a 503 is retried after its Retry-After (up to 30 times), as the API's description asks.
  const call = async (base: string, path: string, init: { method?: string; body?: unknown } = {}) => {
    for (let attempt = 1; ; attempt++) {
      requests++;
      const started = performance.now();
      const res = await fetch(`${base}${path}`, {
        method: init.method ?? 'GET',
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const text = await res.text();
      (res.status === 503 ? refusedMs : served).push(performance.now() - started);
      if (res.status === 503 && opts.shedding && attempt < 30) {
        await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
        continue;
      }
      return { status: res.status, body: text ? (JSON.parse(text) as SoakBody) : undefined };
    }
  };
  const count = (status: number) => (otherStatuses[status] = (otherStatuses[status] ?? 0) + 1);

  async function placeOne(base: string, i: number) {
    const ref = `soak-${i}-${randomBytes(4).toString('hex')}`;
    const phone = `9${String(100_000_000 + i).slice(-9)}`;
    const lines = new Map<string, number>();
    if (Math.random() < 0.35) lines.set(pick(seed.hot), 1 + Math.floor(Math.random() * 2));
    const n = 1 + Math.floor(Math.random() * 3);
    for (let k = 0; k < n; k++) lines.set(pick(seed.cold), 1 + Math.floor(Math.random() * 3));
    const body = {
      customer: { name: `Soak buyer ${i}`, phone },
      items: [...lines].map(([product_id, quantity]) => ({ product_id, quantity })),
      external_reference: ref,
      delivery_address: { line1: '1 Soak Road', city: 'Bengaluru', pincode: '560038' },
      payment: i % 2 ? 'cod' : 'prepaid',
    };
    const r = await call(base, '/orders', { method: 'POST', body });
    const outcome: Outcome = { ref, phone, status: r.status, orderId: orderIdOf(r.body) };
    if (r.status !== 201 && r.status !== 409) count(r.status);
    // one in ten clients retries (as after a lost response), on another instance when there are two
    if (r.status === 201 && Math.random() < 0.1) {
      retries++;
      const again = await call(pick(baseUrls), '/orders', { method: 'POST', body });
      outcome.retryStatus = again.status;
      outcome.retryOrderId = orderIdOf(again.body);
      if (again.status === 200 && again.body?.duplicate === true && outcome.retryOrderId === outcome.orderId) retriesSameOrder++;
      else problems.push(`retry of ${ref} answered ${again.status} ${outcome.retryOrderId} (first ${outcome.orderId})`);
    }
    outcomes.push(outcome);
  }

  async function readOne(base: string) {
    reads++;
    const roll = Math.random();
    let r;
    if (roll < 0.4) r = await call(base, `/catalog/products?limit=20&offset=${Math.floor(Math.random() * 20)}${Math.random() < 0.3 ? '&in_stock=true' : ''}`);
    else if (roll < 0.6) r = await call(base, `/catalog/products?search=${encodeURIComponent(pick([...seed.hot, ...seed.cold]))}`);
    else if (roll < 0.8) r = await call(base, `/catalog/products/${encodeURIComponent(pick([...seed.hot, ...seed.cold]))}`);
    else {
      const done = outcomes.filter((o) => o.status === 201);
      const o = done.length ? pick(done) : undefined;
      r = o
        ? await call(base, Math.random() < 0.5 ? `/orders/${encodeURIComponent(o.ref)}?phone=${o.phone}` : `/customers?phone=${o.phone}`)
        : await call(base, '/catalog/categories');
    }
    if (r.status !== 200) {
      count(r.status);
      if (!(opts.shedding && r.status === 503)) problems.push(`read answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
    }
    // any hot variant shown must never be below zero
    for (const p of r.body?.data ? (Array.isArray(r.body.data) ? r.body.data : [r.body.data]) : []) {
      for (const v of p?.variants ?? []) if (Number(v.available) < 0) problems.push(`${v.sku} shown with available ${v.available}`);
    }
  }

  let sampling = true;
  let samples = 0;
  let minSeen = Number.POSITIVE_INFINITY;
  const sampler = (async () => {
    while (sampling) {
      const m = await minAvailable(db, seed.companyId);
      samples++;
      minSeen = Math.min(minSeen, m);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const progress = setInterval(() => {
    const s = (Date.now() - t0) / 1000;
    const created = outcomes.filter((o) => o.status === 201).length;
    log(
      `  ${s.toFixed(0)} s: orders ${outcomes.length}/${opts.orders} (201: ${created}, 409: ${outcomes.filter((o) => o.status === 409).length}), requests ${requests} (${(requests / s).toFixed(0)}/s), min available ${minSeen}`,
    );
  }, opts.progressEvery ?? 2000);

  await Promise.all(
    Array.from({ length: opts.clients }, async (_, c) => {
      const base = baseUrls[c % baseUrls.length];
      while (next < opts.orders) {
        const i = next++;
        await placeOne(base, i);
        // about one read per order: browse, search, detail, order and customer lookups
        if (Math.random() < 0.5) await readOne(base);
        if (Math.random() < 0.5) await readOne(base);
      }
    }),
  );
  clearInterval(progress);
  sampling = false;
  await sampler;

  // audit: per variant, per reference
  const audit = await auditCompany(db, seed.companyId);
  const rows = await db.query<{ id: string; external_reference: string; lines: number }>(sql`
    SELECT o.id, o.external_reference, (SELECT count(*)::int FROM order_lines l WHERE l.company_id = ${seed.companyId} AND l.order_id = o.id) AS lines
    FROM orders o WHERE o.company_id = ${seed.companyId}`);
  const byRef = new Map(rows.map((r) => [r.external_reference, r]));
  const created = outcomes.filter((o) => o.status === 201);
  for (const o of created) {
    const row = byRef.get(o.ref);
    if (!row || row.id !== o.orderId || row.lines === 0)
      problems.push(`201 for ${o.ref} but order ${o.orderId} is ${row ? `${row.id} with ${row.lines} lines` : 'missing'}`);
  }
  const refused = outcomes.filter((o) => o.status === 409);
  for (const o of refused) if (byRef.has(o.ref)) problems.push(`409 for ${o.ref} but an order exists`);
  const shed = outcomes.filter((o) => o.status === 503);
  if (shed.length && !opts.shedding) problems.push(`${shed.length} orders answered 503 without load shedding`);
  for (const o of shed) if (byRef.has(o.ref)) problems.push(`503 for ${o.ref} but an order exists`);
  if (rows.length !== created.length) problems.push(`${rows.length} orders in the database, ${created.length} answered 201`);
  // a refused order created no customer: customers are exactly the phones of created orders
  const [cust] = await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM customers WHERE company_id = ${seed.companyId}`);
  if (cust.n !== new Set(created.map((o) => o.phone)).size) problems.push(`${cust.n} customers for ${created.length} created orders with distinct phones`);
  if (minSeen < 0) problems.push(`available sampled below zero: ${minSeen}`);
  for (const [name, list] of Object.entries({ stock: audit.stock, partial: audit.partial, orphans: audit.orphans, duplicates: audit.duplicates })) {
    if (list.length) problems.push(`audit ${name}: ${JSON.stringify(list.slice(0, 3))}`);
  }

  return {
    ordersAttempted: outcomes.length,
    created: created.length,
    refusedOutOfStock: refused.length,
    otherStatuses,
    requests,
    reads,
    retries,
    retriesSameOrder,
    samples,
    minAvailableSeen: minSeen,
    seconds: (Date.now() - t0) / 1000,
    latency: { served: percentiles(served), refused: percentiles(refusedMs) },
    problems,
    audit,
  };
}
