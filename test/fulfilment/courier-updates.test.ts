import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import { runAdmin } from '../../src/cli/admin.js';
import { SHIPMENT_MOVES, SHIPMENT_STATUSES, shipmentMove } from '../../src/couriers/index.js';
import { createCourierWorker } from '../../src/fulfilment/worker.js';
import { parseSignatureHeader, signCallback } from '../../src/couriers/callback-signature.js';
import { Decimal } from '../../src/lib/money.js';
import { useTestApp } from '../helpers/app.js';
import { fakeCourier, get, orderBody, post, shop, uid } from '../helpers/fulfilment.js';

// Couriers retry their updates and send them out of order: every update here is repeated, raced or late.
const ctx = useTestApp();
let courier: Awaited<ReturnType<typeof fakeCourier>>;
beforeAll(async () => {
  courier = await fakeCourier();
  if (ctx.testDb.url) process.env.DATABASE_URL = ctx.testDb.url;
});
afterAll(() => courier.close());

function callback(slug: string, payload: string, headers: Record<string, string>) {
  return ctx.app.inject({ method: 'POST', url: `/couriers/${slug}/callback`, headers: { 'content-type': 'application/json', ...headers }, payload });
}
const signed = (s: { slug: string; secret: string }, body: unknown) => {
  const payload = JSON.stringify(body);
  return callback(s.slug, payload, { 'x-courier-signature': signCallback(s.secret, payload) });
};

/** A company with one product priced 2,245.00 and a manual courier; a COD order shipped by staff with an AWB. */
async function shippedCodOrder() {
  const s = await shop(ctx, [{ sku: 'LAMP', name: 'Lamp', variants: [{ sku: 'LAMP-1', selling_price: '2245.00', stock: '20' }] }]);
  const cfg = await ctx.services.fulfilment.configureCourier(s.companyId, { kind: 'cli', name: 'test' }, { adapter: 'manual' });
  const ref = (await post(ctx, s.headers, orderBody({ payment: 'cod', items: [{ product_id: 'LAMP-1', quantity: 1 }] }))).body.data.order_number;
  const awb = `AWB-${uid()}`;
  await ctx.services.fulfilment.ship(s.companyId, ref, { awb, courier: 'Delhivery' });
  const look = async () => (await get(ctx, s.headers, `/orders/${ref}`)).body.data;
  const payments = () =>
    ctx.db.query<{ amount: string; method: string; reference: string | null }>(
      sql`SELECT amount, method, reference FROM payments WHERE company_id = ${s.companyId} ORDER BY created_at`,
    );
  const events = () =>
    ctx.db.query<{ status: string; source: string; note: string | null }>(
      sql`SELECT status, source, note FROM shipment_events WHERE company_id = ${s.companyId} ORDER BY created_at, id`,
    );
  return { ...s, slug: s.company.slug, secret: cfg.callback_secret!, ref, awb, look, payments, events };
}

describe('cash collected at a delivery is one fact per shipment', () => {
  it('three repeats of "delivered, ₹1,000 collected" on a ₹2,245 order record ₹1,000 once: the invoice stays partial', async () => {
    const s = await shippedCodOrder();
    for (let i = 0; i < 3; i++) {
      const res = await signed(s, { awb: s.awb, status: 'delivered', cod_collected: '1000.00' });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.result).toBe(i === 0 ? 'applied' : 'repeated');
    }
    const o = await s.look();
    expect(o.order_status).toBe('delivered');
    expect(o.invoice).toMatchObject({ payment_status: 'partial', total: '2245.00', amount_due: '1245.00' });
    expect(await s.payments()).toEqual([{ amount: '1000.00', method: 'cod', reference: s.awb }]);
    // the history has one delivered event, not one per repeat
    expect((await s.events()).filter((e) => e.status === 'delivered')).toHaveLength(1);
  });

  it('truly parallel repeats record the cash once', async () => {
    const s = await shippedCodOrder();
    const payload = JSON.stringify({ awb: s.awb, status: 'delivered', cod_collected: '1000.00' });
    const header = signCallback(s.secret, payload);
    const answers = await Promise.all(Array.from({ length: 12 }, () => callback(s.slug, payload, { 'x-courier-signature': header })));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(12).fill(200));
    expect(answers.filter((a) => a.json().data.result === 'applied')).toHaveLength(1);
    expect(await s.payments()).toEqual([{ amount: '1000.00', method: 'cod', reference: s.awb }]);
    expect((await s.look()).invoice).toMatchObject({ payment_status: 'partial', amount_due: '1245.00' });
    const [inv] = await ctx.db.query<{ amount_paid: string }>(sql`SELECT amount_paid FROM invoices WHERE company_id = ${s.companyId}`);
    expect(inv.amount_paid).toBe('1000.00');
  });

  it('"cash collected" in full, repeated in parallel, pays the invoice once; a corrected amount is set, never added', async () => {
    const s = await shippedCodOrder();
    await Promise.all(Array.from({ length: 6 }, () => signed(s, { awb: s.awb, status: 'delivered', cod_collected: true })));
    expect(await s.payments()).toEqual([{ amount: '2245.00', method: 'cod', reference: s.awb }]);
    expect((await s.look()).invoice).toMatchObject({ payment_status: 'paid', amount_due: '0.00' });

    const t = await shippedCodOrder();
    await signed(t, { awb: t.awb, status: 'delivered', cod_collected: '1000.00' });
    const corrected = await signed(t, { awb: t.awb, status: 'delivered', cod_collected: '1200.00' });
    expect(corrected.json().data.result).toBe('applied');
    expect(await t.payments()).toEqual([{ amount: '1200.00', method: 'cod', reference: t.awb }]);
    expect((await t.look()).invoice).toMatchObject({ payment_status: 'partial', amount_due: '1045.00' });
    // more than is due is capped at what is due (staff's payment counts)
    await ctx.services.fulfilment.recordPayment(t.companyId, t.ref, '45');
    await signed(t, { awb: t.awb, status: 'delivered', cod_collected: '5000.00' });
    expect((await t.payments()).map((p) => [p.method, p.amount])).toEqual([
      ['cod', '2200.00'],
      ['manual', '45.00'],
    ]);
    expect((await t.look()).invoice).toMatchObject({ payment_status: 'paid', amount_due: '0.00' });
  });

  it('staff repeating "order track … delivered --cod-amount" change nothing the second time', async () => {
    const s = await shippedCodOrder();
    for (let i = 0; i < 2; i++) {
      await ctx.services.fulfilment.track(s.companyId, { awb: s.awb }, 'delivered', { source: 'cli', codCollected: new Decimal('1000') });
    }
    expect(await s.payments()).toEqual([{ amount: '1000.00', method: 'cod', reference: s.awb }]);
  });
});

describe('tracking never moves backwards', () => {
  it('the moves are defined once for every status', () => {
    expect(Object.keys(SHIPMENT_MOVES).sort()).toEqual([...SHIPMENT_STATUSES].sort());
    expect(shipmentMove('out_for_delivery', 'in_transit')).toBe('stale');
    expect(shipmentMove('delivered', 'in_transit')).toBe('stale');
    expect(shipmentMove('out_for_delivery', 'rto')).toBe('move');
    expect(shipmentMove('in_transit', 'in_transit')).toBe('same');
    for (const final of ['delivered', 'rto', 'cancelled'] as const) expect(SHIPMENT_MOVES[final]).toEqual([]);
  });

  it('a late in_transit after out_for_delivery is history only; rto still moves on', async () => {
    const s = await shippedCodOrder();
    expect((await signed(s, { awb: s.awb, status: 'out_for_delivery' })).json().data.result).toBe('applied');
    const late = await signed(s, { awb: s.awb, current_status: 'IN TRANSIT' });
    expect(late.statusCode).toBe(200);
    expect(late.json().data).toMatchObject({ result: 'not_applied', held: false, shipment: { status: 'out_for_delivery' } });
    expect((await s.look()).shipment.status).toBe('out_for_delivery');
    expect((await s.events()).at(-1)).toMatchObject({
      status: 'in_transit',
      source: 'callback',
      note: expect.stringMatching(/^not applied: shipment is already out_for_delivery/),
    });

    expect((await signed(s, { awb: s.awb, current_status: 'RTO INITIATED' })).json().data).toMatchObject({ result: 'applied', shipment: { status: 'rto' } });
    expect((await signed(s, { awb: s.awb, status: 'delivered', cod_collected: true })).json().data.result).toBe('not_applied');
    const o = await s.look();
    expect(o.shipment.status).toBe('rto');
    expect(o.order_status).toBe('shipped');
    expect(await s.payments()).toEqual([]);
  });

  it('a late update after delivered does not clear delivered_at or change the status', async () => {
    const s = await shippedCodOrder();
    await signed(s, { awb: s.awb, status: 'delivered' });
    const before = (await s.look()).shipment;
    for (const late of ['picked_up', 'in_transit', 'out_for_delivery', 'booked', 'failed']) {
      expect((await signed(s, { awb: s.awb, status: late })).json().data.result).toBe('not_applied');
    }
    expect((await s.look()).shipment).toEqual(before);
  });

  it('staff are refused a backwards move and nothing is recorded', async () => {
    const s = await shippedCodOrder();
    await ctx.services.fulfilment.track(s.companyId, { awb: s.awb }, 'out_for_delivery', { source: 'cli' });
    const count = (await s.events()).length;
    const err = await ctx.services.fulfilment.track(s.companyId, { awb: s.awb }, 'in_transit', { source: 'cli' }).catch((e) => e);
    expect(err.kind).toBe('validation_failed');
    expect(err.message).toMatch(/already out_for_delivery; it cannot become in_transit \(allowed: delivered, rto, failed\)/);
    expect((await s.events()).length).toBe(count);
    expect((await s.look()).shipment.status).toBe('out_for_delivery');
  });
});

describe('a delivery for a cancelled order is held for staff', () => {
  it('202 held: no invoice, no payment, shipment unchanged; shown by "orders attention" once however often repeated', async () => {
    const s = await shop(ctx, [{ sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', selling_price: '499.00', stock: '10' }] }], {
      company: { auto_courier_booking: true },
    });
    const cfg = await ctx.services.fulfilment.configureCourier(
      s.companyId,
      { kind: 'cli', name: 'test' },
      {
        adapter: 'shiprocket',
        baseUrl: courier.url,
        email: 'ops@shop.test',
        password: 'pw-secret',
      },
    );
    const c = { slug: s.company.slug, secret: cfg.callback_secret! };
    const ref = (await post(ctx, s.headers, orderBody({ payment: 'cod' }))).body.data.order_number;
    await createCourierWorker({
      db: ctx.db,
      config: { FULFILMENT_POLL_MS: 20, FULFILMENT_MAX_ATTEMPTS: 3, FULFILMENT_RETRY_BASE_MS: 1, FULFILMENT_LEASE_MS: 60_000, COURIER_TIMEOUT_MS: 5000 },
      log: ctx.workerLog('courier-worker'),
    }).runOnce();
    const awb = (await get(ctx, s.headers, `/orders/${ref}`)).body.data.shipment.awb;
    expect(awb).toBeTruthy();
    await ctx.services.fulfilment.move(s.companyId, ref, 'cancelled'); // the parcel stays booked at the courier

    for (let i = 0; i < 3; i++) {
      const res = await signed(c, { awb, status: 'delivered', cod_collected: '499.00' });
      expect(res.statusCode).toBe(202);
      expect(res.json().data).toMatchObject({ result: 'held', held: true, order_status: 'cancelled', shipment: { status: 'booked' } });
      expect(res.json().data.message).toMatch(new RegExp(`order ${ref} is cancelled: no invoice issued and no payment recorded`));
    }
    const o = (await get(ctx, s.headers, `/orders/${ref}`)).body.data;
    expect(o).toMatchObject({ order_status: 'cancelled', invoice: null, shipment: { status: 'booked', delivered_at: null } });
    expect(await ctx.db.query(sql`SELECT 1 FROM payments WHERE company_id = ${s.companyId}`)).toEqual([]);
    expect(await ctx.db.query(sql`SELECT 1 FROM invoices WHERE company_id = ${s.companyId}`)).toEqual([]);

    const attention = await ctx.services.fulfilment.listAttention(s.companyId);
    expect(attention).toEqual([
      expect.objectContaining({
        kind: 'courier_update_held',
        order_number: ref,
        order_status: 'cancelled',
        reason: expect.stringMatching(/delivered, cash collected 499.00/),
      }),
    ]);
    // the admin CLI lists it too, and staff close it with what they did
    const lines: string[] = [];
    expect(await runAdmin(['orders', 'attention', '--company', s.company.slug, '--json'], (t) => lines.push(t), { db: ctx.testDb.db })).toBe(0);
    expect(JSON.parse(lines.join('\n'))).toEqual([expect.objectContaining({ id: attention[0].id, order_number: ref })]);
    expect(
      await runAdmin(['hold', 'resolve', attention[0].id, '--company', s.company.slug, '--note', 'refunded by UPI', '--json'], () => {}, { db: ctx.testDb.db }),
    ).toBe(0);
    expect(await ctx.services.fulfilment.listAttention(s.companyId)).toEqual([]);

    // staff typing the same update are refused
    const err = await ctx.services.fulfilment.track(s.companyId, { awb }, 'delivered', { source: 'cli', codCollected: true }).catch((e) => e);
    expect(err.kind).toBe('validation_failed');
    expect(await ctx.db.query(sql`SELECT 1 FROM invoices WHERE company_id = ${s.companyId}`)).toEqual([]);
  });
});

describe('callback signatures carry a timestamp and are parsed strictly', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const hex = (header: string) => header.split('v1=')[1];

  it('the header is t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">, reproducible with plain crypto', async () => {
    const { createHmac } = await import('node:crypto');
    const body = '{"awb":"A1","status":"in_transit"}';
    expect(signCallback('s3cret', body, 1767225600)).toBe(`t=1767225600,v1=${createHmac('sha256', 's3cret').update(`1767225600.${body}`).digest('hex')}`);
    expect(parseSignatureHeader(signCallback('s3cret', body, 1767225600))).toMatchObject({ t: 1767225600 });
  });

  it('a captured callback replayed after the tolerance (300 s) is refused; within it, accepted; clocks ahead likewise', async () => {
    const s = await shippedCodOrder();
    const payload = JSON.stringify({ awb: s.awb, status: 'in_transit' });
    const at = async (t: number) => callback(s.slug, payload, { 'x-courier-signature': signCallback(s.secret, payload, t) });
    // The clock is frozen while the edges are sent (timers and the database still run): the server sees exactly the
    // skew the test meant, however slow the machine, so ±300 is the edge and ±301 is past it.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      for (const t of [now() - 301, now() + 301, now() - 86_400, 0]) {
        const res = await at(t);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: { code: 'unauthorized', message: expect.stringMatching(/tolerance 300 s/) } });
      }
      expect((await s.look()).shipment.status).toBe('booked');
      expect((await at(now() - 300)).statusCode).toBe(200);
      expect((await at(now() + 300)).statusCode).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it('junk around or inside the value is refused; several v1 values (secret rotation) are allowed', async () => {
    const s = await shippedCodOrder();
    const payload = JSON.stringify({ awb: s.awb, status: 'in_transit' });
    const good = signCallback(s.secret, payload);
    const t = good.split(',')[0];
    const wrong = 'a'.repeat(64);
    const refused = [
      `${good}zz`,
      `${good}0`,
      `${good},`,
      `${good},x=1`,
      `${good};`,
      `${t}, v1=${hex(good)}`,
      `${t},v1=${hex(good)},${t}`,
      `v1=${hex(good)}`,
      t,
      `sha256=${hex(good)}`,
      hex(good),
      `${t},v1=${hex(good).slice(0, 62)}`,
      `${t},v1=${wrong},v1=${wrong},v1=${wrong},v1=${wrong},v1=${hex(good)}`,
      `t=${t.slice(2)}.5,v1=${hex(good)}`,
    ];
    for (const header of refused) {
      const res = await callback(s.slug, payload, { 'x-courier-signature': header });
      expect({ header, status: res.statusCode, code: res.json().error?.code }).toEqual({ header, status: 401, code: 'unauthorized' });
    }
    expect((await s.look()).shipment.status).toBe('booked');
    expect((await callback(s.slug, payload, { 'x-courier-signature': `${t},v1=${wrong},v1=${hex(good)}` })).statusCode).toBe(200);
    expect((await callback(s.slug, payload, { 'x-courier-signature': `${t},v1=${hex(good).toUpperCase()}` })).statusCode).toBe(200);
  });
});
