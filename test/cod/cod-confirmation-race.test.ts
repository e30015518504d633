import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { writeCodSettings } from '../../src/cod/cod-settings.queries.js';
import { Decimal } from '../../src/lib/money.js';
import { useTestApp } from '../helpers/app.js';
import { fetchJson, listeningUrl, orderBody, shop, stockRow } from '../helpers/orders.js';
import { prng } from '../helpers/prng.js';

/**
 * COD confirmation under concurrency, over real HTTP on a listening app (requests truly overlap on PostgreSQL; on the
 * embedded database they run one at a time): the buyer's two answers and staff's cancel at once settle each order
 * once, and a soak of parallel orders and answers leaves stock, orders, jobs and events exact.
 */
const ctx = useTestApp();

const SKUS = ['TEE-S', 'TEE-M', 'TEE-L'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function codShop(stock: string) {
  const s = await shop(ctx, [{ sku: 'TEE', name: 'Tee', variants: SKUS.map((sku) => ({ sku, selling_price: '499.00', stock })) }], {
    company: { auto_courier_booking: true },
  });
  await writeCodSettings(ctx.db, s.companyId, { confirm_before_booking: true });
  return s;
}

type Shop = Awaited<ReturnType<typeof codShop>>;

async function placeCod(url: string, s: Shop, items: { product_id: string; quantity: number }[], i: number) {
  const res = await fetchJson(`${url}/orders`, {
    method: 'POST',
    headers: s.headers,
    body: orderBody({ payment: 'cod', items, customer: { name: `Buyer ${i}`, phone: `+91 90000 ${String(10000 + i).slice(-5)}` } }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { order_id: string; order_number: string };
}

const answer = (url: string, s: Shop, ref: string, what: 'confirm' | 'decline') =>
  fetchJson(`${url}/orders/${ref}/cod-confirmation`, { method: 'POST', headers: s.headers, body: { answer: what } });

async function counts(companyId: string) {
  const events = await ctx.db.query<{ type: string; n: number }>(
    sql`SELECT type, count(*)::int AS n FROM events WHERE company_id = ${companyId} GROUP BY type ORDER BY type`,
  );
  const orders = await ctx.db.query<{ status: string; cod: string; n: number }>(
    sql`SELECT status, cod_confirmation AS cod, count(*)::int AS n FROM orders WHERE company_id = ${companyId} GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  const [jobs] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM jobs WHERE company_id = ${companyId}`);
  return { events: Object.fromEntries(events.map((e) => [e.type, e.n])), orders, jobs: jobs.n };
}

/** Reserved per SKU as the orders still standing (not cancelled) add it up. */
async function reservedByOrders(companyId: string) {
  const rows = await ctx.db.query<{ sku: string; q: string }>(sql`
    SELECT l.sku, sum(l.quantity)::text AS q FROM order_lines l JOIN orders o ON o.company_id = l.company_id AND o.id = l.order_id
     WHERE l.company_id = ${companyId} AND o.status <> 'cancelled' GROUP BY l.sku`);
  return Object.fromEntries(SKUS.map((sku) => [sku, new Decimal(rows.find((r) => r.sku === sku)?.q ?? 0).toFixed(3)]));
}

async function reservedInStock(s: Shop) {
  const out: Record<string, string> = {};
  for (const sku of SKUS) {
    const row = await stockRow(ctx, s.companyId, s.variantIds[sku]);
    expect(row.reserved, sku).toBe(new Decimal(row.open).toFixed(3));
    out[sku] = row.reserved;
  }
  return out;
}

describe('COD confirmation under concurrency', () => {
  it('confirm, decline and a staff cancel of one order at once: one of the two answers wins (the other 409), one settlement event, stock exact', async () => {
    const url = await listeningUrl(ctx);
    const s = await codShop('100');
    const orders = [];
    for (let i = 0; i < 12; i++) orders.push(await placeCod(url, s, [{ product_id: SKUS[i % 3], quantity: 2 }], i));

    const outcomes = await Promise.all(
      orders.map(async (o, i) => {
        // staff's cancel, in this process, would start before the two requests reach the server (each takes a few hundred
        // ms with 24 in flight): it is held back 0-600 ms, so each of the three is first for some orders (see the log line)
        const [confirm, decline, staff] = await Promise.all([
          answer(url, s, o.order_number, 'confirm'),
          answer(url, s, o.order_number, 'decline'),
          sleep([0, 150, 300, 600][i % 4])
            .then(() => ctx.services.fulfilment.move(s.companyId, o.order_number, 'cancelled'))
            .then(
              () => 'cancelled',
              (err: { kind?: string }) => err.kind ?? 'error',
            ),
        ]);
        return { o, confirm: confirm.status, decline: decline.status, staff };
      }),
    );

    for (const { o, confirm, decline, staff } of outcomes) {
      expect([confirm, decline].sort(), o.order_number).toEqual([200, 409]);
      const [row] = await ctx.db.query<{ status: string; cod: string; by: string }>(
        sql`SELECT status, cod_confirmation AS cod, cod_confirmation_settled_by AS by FROM orders WHERE company_id = ${s.companyId} AND id = ${o.order_id}`,
      );
      const events = await ctx.db.query<{ type: string }>(
        sql`SELECT type FROM events WHERE company_id = ${s.companyId} AND subject_id = ${o.order_id} ORDER BY seq`,
      );
      const types = events.map((e) => e.type);
      expect(
        types.filter((t) => t === 'order.cod_confirmation_settled'),
        o.order_number,
      ).toHaveLength(1);
      expect(
        types.filter((t) => t === 'order.status_changed'),
        o.order_number,
      ).toHaveLength(row.status === 'cancelled' ? 1 : 0);
      if (confirm === 200) {
        // confirmed by the buyer; staff's cancel may still have come after it (a confirmed order can be cancelled)
        expect(row, o.order_number).toMatchObject({ cod: 'confirmed', by: 'buyer' });
        expect(row.status).toBe(staff === 'cancelled' ? 'cancelled' : 'confirmed');
      } else {
        // declined, by the buyer or by staff's cancel first (then the buyer's decline is the same answer: 200)
        expect(row, o.order_number).toMatchObject({ status: 'cancelled', cod: 'declined' });
        expect(row.by).toBe(staff === 'cancelled' ? 'staff' : 'buyer');
        expect(staff === 'cancelled' || staff === 'validation_failed').toBe(true);
      }
    }
    const seen = outcomes.map((x) => `${x.confirm === 200 ? 'confirm' : 'decline'}/${x.staff}`);
    console.info(`[cod race] winners/staff: ${JSON.stringify(Object.fromEntries([...new Set(seen)].map((k) => [k, seen.filter((v) => v === k).length])))}`);
    expect(await reservedInStock(s)).toEqual(await reservedByOrders(s.companyId));
    const c = await counts(s.companyId);
    expect(c.jobs).toBe(outcomes.filter((x) => x.confirm === 200).length);
    expect(c.events['order.cod_confirmation_settled']).toBe(12);
  });

  it('a soak: 60 COD orders on 3 SKUs placed in parallel, then 20% declined while the rest are confirmed, all at once: stock back, nothing lost, counts exact', async () => {
    const url = await listeningUrl(ctx);
    const s = await codShop('1000');
    const rand = prng(33);
    const wanted = Array.from({ length: 60 }, () =>
      [...new Set([rand.pick(SKUS), rand.pick(SKUS)])].map((sku) => ({ product_id: sku, quantity: rand.int(1, 5) })),
    );
    const placed = await Promise.all(wanted.map((items, i) => placeCod(url, s, items, i)));
    const declined = new Set(placed.filter((_, i) => i % 5 === 0).map((o) => o.order_id));
    expect(declined.size).toBe(12);

    const answers = await Promise.all(placed.map((o) => answer(url, s, o.order_number, declined.has(o.order_id) ? 'decline' : 'confirm')));
    expect(answers.map((a) => a.status)).toEqual(placed.map(() => 200));

    const expected: Record<string, Decimal> = Object.fromEntries(SKUS.map((sku) => [sku, new Decimal(0)]));
    placed.forEach((o, i) => {
      if (!declined.has(o.order_id)) for (const it of wanted[i]) expected[it.product_id] = expected[it.product_id].plus(it.quantity);
    });
    expect(await reservedInStock(s)).toEqual(Object.fromEntries(SKUS.map((sku) => [sku, expected[sku].toFixed(3)])));
    for (const sku of SKUS) expect((await stockRow(ctx, s.companyId, s.variantIds[sku])).on_hand).toBe('1000.000');

    const c = await counts(s.companyId);
    expect(c.orders).toEqual([
      { status: 'cancelled', cod: 'declined', n: 12 },
      { status: 'confirmed', cod: 'confirmed', n: 48 },
    ]);
    expect(c.jobs).toBe(48);
    expect(c.events).toEqual({
      'order.cod_confirmation_requested': 60,
      'order.cod_confirmation_settled': 60,
      'order.created': 60,
      'order.status_changed': 12,
    });
    const [lines] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM order_lines WHERE company_id = ${s.companyId}`);
    expect(lines.n).toBe(wanted.reduce((n, items) => n + items.length, 0));
  });
});
