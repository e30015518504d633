import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestApp } from '../helpers/app.js';
import { acrossCompanies } from '../helpers/across-companies.js';
import { createCourierWorker } from '../../src/fulfilment/worker.js';
import { signCallback } from '../../src/couriers/callback-signature.js';
import { fakeCourier, get, orderBody, post, stockView, teeShop } from '../helpers/fulfilment.js';

const ctx = useTestApp();
let courier: Awaited<ReturnType<typeof fakeCourier>>;
beforeAll(async () => {
  courier = await fakeCourier();
});
afterAll(async () => {
  await courier.close();
});
beforeEach(() => acrossCompanies(ctx.db, sql`UPDATE jobs SET status = 'done', last_error = 'closed by test setup' WHERE status = 'pending'`));

function callback(slug: string, body: unknown, headers: Record<string, string> = {}) {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return ctx.app.inject({ method: 'POST', url: `/couriers/${slug}/callback`, headers: { 'content-type': 'application/json', ...headers }, payload });
}
const signed = (slug: string, secret: string, body: unknown) => {
  const payload = JSON.stringify(body);
  return callback(slug, payload, { 'x-courier-signature': signCallback(secret, payload) });
};

async function configured(auto = true, adapter: 'shiprocket' | 'manual' = 'shiprocket') {
  const s = await teeShop(ctx, '10', { auto_courier_booking: auto });
  const cfg = await ctx.services.fulfilment.configureCourier(
    s.companyId,
    { kind: 'cli', name: 'test' },
    adapter === 'shiprocket' ? { adapter, baseUrl: courier.url, email: 'ops@shop.test', password: 'pw-secret' } : { adapter },
  );
  return { ...s, slug: s.company.slug, secret: cfg.callback_secret! };
}

describe('a COD order seen through GET /orders/{reference} at each step', () => {
  it('confirmed, booked, picked up (shipped, invoiced unpaid), out for delivery, delivered with cash collected (paid)', async () => {
    const s = await configured();
    const ref = (await post(ctx, s.headers, orderBody({ payment: 'cod', items: [{ product_id: 'TEE-M', quantity: 2 }] }))).body.data.order_number;
    const look = async () => (await get(ctx, s.headers, `/orders/${ref}`)).body.data;

    let o = await look();
    expect(o).toMatchObject({ order_status: 'confirmed', shipment: null, invoice: null, amount: '998.00' });

    await createCourierWorker({
      db: ctx.db,
      config: { FULFILMENT_POLL_MS: 20, FULFILMENT_MAX_ATTEMPTS: 3, FULFILMENT_RETRY_BASE_MS: 1, FULFILMENT_LEASE_MS: 60_000, COURIER_TIMEOUT_MS: 5000 },
      log: ctx.workerLog('courier-worker'),
    }).runOnce();
    o = await look();
    const awb = o.shipment.awb;
    expect(o.order_status).toBe('confirmed');
    expect(o.shipment).toEqual({
      awb,
      courier: 'Delhivery Surface',
      status: 'booked',
      status_label: 'Courier booked',
      tracking_url: `https://shiprocket.co/tracking/${awb}`,
      delivered_at: null,
    });
    expect(o.invoice).toBeNull();
    expect(await stockView(ctx, s)).toMatchObject({ on_hand: '10.000', reserved: '2.000', available: '8.000' });

    expect((await signed(s.slug, s.secret, { awb, current_status: 'PICKED UP' })).statusCode).toBe(200);
    o = await look();
    expect(o).toMatchObject({ order_status: 'shipped', status_label: 'Shipped' });
    expect(o.shipment).toMatchObject({ status: 'picked_up', status_label: 'Picked up by the courier' });
    expect(o.invoice).toEqual({
      invoice_number: expect.stringMatching(/^INV\/\d{2}-\d{2}\/000001$/),
      payment_status: 'unpaid',
      total: '998.00',
      amount_due: '998.00',
      url: expect.stringMatching(/\/invoices\/co_\w+\/inv_\w+\.pdf\?expires=\d+&sig=/),
      credit_note: null,
    });
    expect(await stockView(ctx, s)).toEqual({ on_hand: '8.000', reserved: '0.000', open: '0', available: '8.000' });

    await signed(s.slug, s.secret, { awb, status: 'out_for_delivery' });
    expect((await look()).shipment).toMatchObject({ status: 'out_for_delivery', status_label: 'Out for delivery', delivered_at: null });

    const res = await signed(s.slug, s.secret, { awb, status: 'delivered', cod_collected: true });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ order_number: ref, order_status: 'delivered' });
    o = await look();
    expect(o.order_status).toBe('delivered');
    expect(o.shipment.status).toBe('delivered');
    expect(o.shipment.delivered_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(o.invoice).toMatchObject({ payment_status: 'paid', total: '998.00', amount_due: '0.00' });
    expect(await stockView(ctx, s)).toEqual({ on_hand: '8.000', reserved: '0.000', open: '0', available: '8.000' });

    // delivered is final for the shipment: a late update is history only, answered 2xx so the courier stops retrying
    const late = await signed(s.slug, s.secret, { awb, status: 'in_transit' });
    expect(late.statusCode).toBe(200);
    expect(late.json().data).toMatchObject({ result: 'not_applied', held: false, shipment: { status: 'delivered' } });
  });

  it('delivered without cash collected leaves a COD invoice unpaid; staff record a payment', async () => {
    const s = await configured(false, 'manual');
    const ref = (await post(ctx, s.headers, orderBody({ payment: 'cod' }))).body.data.order_number;
    await ctx.services.fulfilment.ship(s.companyId, ref, { awb: 'MAN-1', courier: 'Local' });
    await ctx.services.fulfilment.track(s.companyId, { reference: ref }, 'delivered', { source: 'cli' });
    let o = (await get(ctx, s.headers, `/orders/${ref}`)).body.data;
    expect(o.order_status).toBe('delivered');
    expect(o.invoice).toMatchObject({ payment_status: 'unpaid', amount_due: '499.00' });
    await ctx.services.fulfilment.recordPayment(s.companyId, ref, '499');
    o = (await get(ctx, s.headers, `/orders/${ref}`)).body.data;
    expect(o.invoice).toMatchObject({ payment_status: 'paid', amount_due: '0.00' });
  });
});

describe('a prepaid order seen through GET /orders/{reference} at each step', () => {
  it('confirmed, packed, shipped by staff with an AWB (invoice paid on issue), delivered by CLI tracking', async () => {
    const s = await configured(false, 'manual');
    const ref = (await post(ctx, s.headers, orderBody({ payment: 'prepaid', payment_reference: 'UPI-778' }))).body.data.order_number;
    const look = async () => (await get(ctx, s.headers, `/orders/${ref}`)).body.data;
    expect(await look()).toMatchObject({ order_status: 'confirmed', shipment: null, invoice: null });
    await ctx.services.fulfilment.move(s.companyId, ref, 'packed');
    expect(await look()).toMatchObject({ order_status: 'packed', status_label: 'Packed and ready to ship', shipment: null, invoice: null });

    await ctx.services.fulfilment.ship(s.companyId, ref, { awb: 'DTDC-55501', courier: 'DTDC' });
    let o = await look();
    expect(o.order_status).toBe('shipped');
    expect(o.shipment).toEqual({
      awb: 'DTDC-55501',
      courier: 'DTDC',
      status: 'booked',
      status_label: 'Courier booked',
      tracking_url: null,
      delivered_at: null,
    });
    expect(o.invoice).toEqual({
      invoice_number: expect.stringMatching(/^INV\//),
      payment_status: 'paid',
      total: '499.00',
      amount_due: '0.00',
      url: expect.any(String),
      credit_note: null,
    });

    await ctx.services.fulfilment.track(s.companyId, { reference: ref }, 'in_transit', { source: 'cli' });
    expect((await look()).shipment.status_label).toBe('On the way');
    await ctx.services.fulfilment.track(s.companyId, { reference: ref }, 'delivered', { source: 'cli' });
    o = await look();
    expect(o).toMatchObject({ order_status: 'delivered', status_label: 'Delivered' });
    expect(o.shipment.delivered_at).not.toBeNull();
    expect(o.invoice.payment_status).toBe('paid');
    const [p] = await ctx.db.query<{ method: string; reference: string; amount: string }>(
      sql`SELECT method, reference, amount FROM payments WHERE company_id = ${s.companyId}`,
    );
    expect(p).toEqual({ method: 'prepaid', reference: 'UPI-778', amount: '499.00' });
  });
});

describe('courier callback signatures', () => {
  async function withShipment() {
    const s = await configured(false, 'manual');
    const ref = (await post(ctx, s.headers, orderBody())).body.data.order_number;
    await ctx.services.fulfilment.ship(s.companyId, ref, { awb: `AWB-${s.slug}`, courier: 'X' });
    return { ...s, ref, awb: `AWB-${s.slug}` };
  }
  const expectRefused = (res: { statusCode: number; json: () => unknown }) => {
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
  };

  it('a valid t=…,v1=… signature is accepted', async () => {
    const s = await withShipment();
    const payload = JSON.stringify({ awb: s.awb, status: 'in_transit' });
    const res = await callback(s.slug, payload, { 'x-courier-signature': signCallback(s.secret, payload) });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.shipment.status).toBe('in_transit');
  });

  it('missing, wrong, tampered, another company’s secret, unknown company: 401 and nothing changes', async () => {
    const s = await withShipment();
    const other = await configured(false, 'manual');
    const body = { awb: s.awb, status: 'delivered', cod_collected: true };
    const payload = JSON.stringify(body);
    expectRefused(await callback(s.slug, payload));
    expectRefused(await callback(s.slug, payload, { 'x-courier-signature': 'sha256=' + '0'.repeat(64) }));
    expectRefused(await callback(s.slug, payload, { 'x-courier-signature': 'not-hex' }));
    const tampered = payload.replace('delivered', 'rto');
    expectRefused(await callback(s.slug, tampered, { 'x-courier-signature': signCallback(s.secret, payload) }));
    expectRefused(await callback(s.slug, payload, { 'x-courier-signature': signCallback(other.secret, payload) }));
    expectRefused(await callback('no-such-company', payload, { 'x-courier-signature': signCallback(s.secret, payload) }));
    // another company's correctly signed update cannot reach this company's shipment
    const cross = await signed(other.slug, other.secret, body);
    expect(cross.statusCode).toBe(404);
    const o = (await get(ctx, s.headers, `/orders/${s.ref}`)).body.data;
    expect(o.order_status).toBe('shipped');
    expect(o.shipment.status).toBe('booked');
  });

  it('signed but malformed bodies are 400 with the error shape; unknown AWB is 404', async () => {
    const s = await withShipment();
    const notJson = 'awb=1';
    const bad = await callback(s.slug, notJson, { 'x-courier-signature': signCallback(s.secret, notJson) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('validation_failed');
    const unknownStatus = await signed(s.slug, s.secret, { awb: s.awb, status: 'teleported' });
    expect(unknownStatus.statusCode).toBe(400);
    expect(unknownStatus.json().error.details[0].path).toBe('status');
    const noAwb = await signed(s.slug, s.secret, { status: 'delivered' });
    expect(noAwb.statusCode).toBe(400);
    const unknown = await signed(s.slug, s.secret, { awb: 'NOPE', status: 'delivered' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');
  });

  it('rotating the secret refuses the old one', async () => {
    const s = await withShipment();
    const rotated = await ctx.services.fulfilment.configureCourier(s.companyId, { kind: 'cli', name: 'test' }, { adapter: 'manual', rotateSecret: true });
    expect(rotated.callback_secret).toBeTruthy();
    expect(rotated.callback_secret).not.toBe(s.secret);
    expectRefused(await signed(s.slug, s.secret, { awb: s.awb, status: 'in_transit' }));
    expect((await signed(s.slug, rotated.callback_secret!, { awb: s.awb, status: 'in_transit' })).statusCode).toBe(200);
    const again = await ctx.services.fulfilment.configureCourier(s.companyId, { kind: 'cli', name: 'test' }, { adapter: 'manual' });
    expect(again.callback_secret).toBeUndefined(); // shown only when made
  });

  it('the secret and credentials never appear in logs', async () => {
    const s = await withShipment();
    await signed(s.slug, s.secret, { awb: s.awb, status: 'in_transit' });
    expect(ctx.rawLogs()).not.toContain(s.secret);
    expect(ctx.rawLogs()).not.toContain('pw-secret');
  });
});
