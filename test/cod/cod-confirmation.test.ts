import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { writeCodSettings, type CodSettingsChange } from '../../src/cod/cod-settings.queries.js';
import { createCodConfirmationWorker } from '../../src/cod/cod-confirmation-worker.js';
import { draftOrderBody } from '../../src/contract/orders.js';
import { useTestApp } from '../helpers/app.js';
import { BASE, get, jobsOf, orderBody, post, stockView, teeShop } from '../helpers/fulfilment.js';

const ctx = useTestApp();

/** A shop booking couriers automatically, TEE-M with 10 in stock, that confirms COD orders before booking (settings as given). */
async function codShop(settings: CodSettingsChange = {}, company: { auto_courier_booking?: boolean } = { auto_courier_booking: true }) {
  const s = await teeShop(ctx, '10', company);
  await writeCodSettings(ctx.db, s.companyId, { confirm_before_booking: true, confirm_within_minutes: 30, ...settings });
  return s;
}

type Shop = Awaited<ReturnType<typeof codShop>>;

async function codOrder(s: Shop, qty = 2, extra: Record<string, unknown> = {}) {
  const res = await post(ctx, s.headers, orderBody({ payment: 'cod', items: [{ product_id: 'TEE-M', quantity: qty }], ...extra }));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { order_id: string; order_number: string; created_at: string; cod_confirmation: Record<string, unknown> | null };
}

async function answer(s: Shop, ref: string, body: Record<string, unknown>) {
  const res = await ctx.app.inject({ method: 'POST', url: `${BASE}/orders/${encodeURIComponent(ref)}/cod-confirmation`, headers: s.headers, payload: body });
  return { status: res.statusCode, body: res.json() };
}

/** The company's events, oldest first: type, order and the COD confirmation and status they carried. */
async function eventsOf(companyId: string) {
  return ctx.db.query<{ type: string; subject_id: string; order_status: string; cod: Record<string, unknown> | null }>(sql`
    SELECT type, subject_id, data->>'order_status' AS order_status, data->'cod_confirmation' AS cod
      FROM events WHERE company_id = ${companyId} ORDER BY seq`);
}

async function orderRow(companyId: string, orderId: string) {
  const [row] = await ctx.db.query<{ status: string; cod_confirmation: string | null; cod_confirmation_settled_by: string | null }>(
    sql`SELECT status, cod_confirmation, cod_confirmation_settled_by FROM orders WHERE company_id = ${companyId} AND id = ${orderId}`,
  );
  return row;
}

describe('a new COD order of a company that confirms COD before booking', () => {
  it('is confirmed with its stock reserved, its confirmation pending until due, no courier job, and the flow is told (order.created, then order.cod_confirmation_requested)', async () => {
    const s = await codShop();
    const order = await codOrder(s, 2);
    expect(order.cod_confirmation).toEqual({ status: 'pending', due_at: expect.any(String), settled_at: null, settled_by: null });
    expect(Date.parse(order.cod_confirmation!.due_at as string) - Date.parse(order.created_at)).toBe(30 * 60_000);
    expect((await stockView(ctx, s)).reserved).toBe('2.000');
    expect(await jobsOf(ctx, s.companyId)).toEqual([]);

    const events = await eventsOf(s.companyId);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.cod_confirmation_requested']);
    for (const e of events) expect(e.cod).toEqual(order.cod_confirmation);

    const lookup = await get(ctx, s.headers, `/orders/${order.order_number}`);
    expect(lookup.body.data.cod_confirmation).toEqual(order.cod_confirmation);
    const customer = await get(ctx, s.headers, '/customers?phone=9876543210');
    expect(customer.body.data.recent_orders[0].cod_confirmation).toEqual(order.cod_confirmation);
  });

  it('asks nothing of a prepaid order (its booking is queued as before), nor of a COD order where the setting is off', async () => {
    const s = await codShop();
    const prepaid = (await post(ctx, s.headers, orderBody({ payment: 'prepaid' }))).body.data;
    expect(prepaid.cod_confirmation).toBeNull();
    expect(await jobsOf(ctx, s.companyId)).toHaveLength(1);

    const off = await codShop({ confirm_before_booking: false });
    const cod = await codOrder(off);
    expect(cod.cod_confirmation).toBeNull();
    expect(await jobsOf(ctx, off.companyId)).toHaveLength(1);
    expect((await eventsOf(off.companyId)).map((e) => e.type)).toEqual(['order.created']);
  });

  it('a staff draft confirmed as COD waits the same way (pending, no job, the requested event after order.created)', async () => {
    const s = await codShop();
    const draft = await ctx.services.fulfilment.createDraft(
      s.companyId,
      draftOrderBody.parse({
        customer: { name: 'Asha Rao', phone: '9876543210' },
        items: [{ product_id: 'TEE-M', quantity: 1 }],
        payment: 'cod',
        delivery_address: { line1: '12 MG Road', city: 'Bengaluru', pincode: '560038' },
      }),
    );
    const confirmed = await ctx.services.fulfilment.confirm(s.companyId, draft.order_number);
    expect(confirmed).toMatchObject({ order_status: 'confirmed', cod_confirmation: 'pending' });
    expect(await jobsOf(ctx, s.companyId)).toEqual([]);
    expect((await eventsOf(s.companyId)).map((e) => [e.type, e.cod?.status])).toEqual([
      ['order.created', 'pending'],
      ['order.cod_confirmation_requested', 'pending'],
    ]);
  });
});

describe('POST /orders/{reference}/cod-confirmation', () => {
  it('confirm: settled by the buyer, the courier booking queued, order.cod_confirmation_settled sent; the same answer again writes and sends nothing; decline then is 409', async () => {
    const s = await codShop();
    const order = await codOrder(s);
    const first = await answer(s, order.order_number, { answer: 'confirm' });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({
      order_number: order.order_number,
      order_status: 'confirmed',
      cod_confirmation: { status: 'confirmed', due_at: order.cod_confirmation!.due_at, settled_at: expect.any(String), settled_by: 'buyer' },
    });
    expect(await jobsOf(ctx, s.companyId)).toHaveLength(1);
    const events = await eventsOf(s.companyId);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.cod_confirmation_requested', 'order.cod_confirmation_settled']);
    expect(events[2].cod).toEqual(first.body.data.cod_confirmation);

    const again = await answer(s, order.order_id, { answer: 'confirm' });
    expect(again).toEqual(first);
    expect(await jobsOf(ctx, s.companyId)).toHaveLength(1);
    expect(await eventsOf(s.companyId)).toHaveLength(3);

    const other = await answer(s, order.order_number, { answer: 'decline' });
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: 'conflict', details: [{ path: 'answer', message: 'already confirmed' }] });
    expect(await orderRow(s.companyId, order.order_id)).toEqual({ status: 'confirmed', cod_confirmation: 'confirmed', cod_confirmation_settled_by: 'buyer' });
    expect((await stockView(ctx, s)).reserved).toBe('2.000');
  });

  it('decline: the order is cancelled and exactly its stock released; order.status_changed then order.cod_confirmation_settled; idempotent; confirm then is 409', async () => {
    const s = await codShop();
    const kept = await codOrder(s, 3);
    const order = await codOrder(s, 2);
    expect(await stockView(ctx, s)).toEqual({ on_hand: '10.000', reserved: '5.000', open: '5.000', available: '5.000' });

    const first = await answer(s, order.order_number, { answer: 'decline' });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ order_status: 'cancelled', cod_confirmation: { status: 'declined', settled_by: 'buyer' } });
    expect(await stockView(ctx, s)).toEqual({ on_hand: '10.000', reserved: '3.000', open: '3.000', available: '7.000' });
    expect(await jobsOf(ctx, s.companyId)).toEqual([]);
    const mine = (await eventsOf(s.companyId)).filter((e) => e.subject_id === order.order_id);
    expect(mine.map((e) => [e.type, e.order_status, e.cod?.status])).toEqual([
      ['order.created', 'confirmed', 'pending'],
      ['order.cod_confirmation_requested', 'confirmed', 'pending'],
      ['order.status_changed', 'cancelled', 'declined'],
      ['order.cod_confirmation_settled', 'cancelled', 'declined'],
    ]);

    expect(await answer(s, order.order_number, { answer: 'decline' })).toEqual(first);
    expect(await eventsOf(s.companyId)).toHaveLength(6);
    const other = await answer(s, order.order_number, { answer: 'confirm' });
    expect(other.status).toBe(409);
    expect(other.body.error.details).toEqual([{ path: 'answer', message: 'already declined' }]);
    expect((await stockView(ctx, s)).reserved).toBe('3.000');
    expect((await orderRow(s.companyId, kept.order_id)).cod_confirmation).toBe('pending');
  });

  it('the phone gate of GET /orders/{reference}: the buyer in any format answers; another number, an unusable one and an unknown order are the same 404, and nothing changes', async () => {
    const s = await codShop();
    const order = await codOrder(s);
    const unknown = await answer(s, 'ORD-999999', { answer: 'decline' });
    expect(unknown.status).toBe(404);
    for (const phone of ['+91 90000 00001', 'not a phone']) {
      const res = await answer(s, order.order_number, { answer: 'decline', phone });
      expect(res).toEqual(unknown);
    }
    expect((await orderRow(s.companyId, order.order_id)).cod_confirmation).toBe('pending');
    const other = await teeShop(ctx);
    expect((await answer(other, order.order_number, { answer: 'decline' })).status).toBe(404);
    expect((await orderRow(s.companyId, order.order_id)).cod_confirmation).toBe('pending');

    const res = await answer(s, order.order_number, { answer: 'confirm', phone: '098765 43210' });
    expect(res.status).toBe(200);
    expect(res.body.data.cod_confirmation.status).toBe('confirmed');
  });

  it('refuses bad input with the field named, and a prepaid order with 422; nothing is written', async () => {
    const s = await codShop();
    const order = await codOrder(s);
    for (const [body, message] of [
      [{}, 'required; send "confirm" or "decline"'],
      [{ answer: 'yes' }, 'must be "confirm" or "decline"'],
      [{ answer: 'confirm', phone: 98765 }, 'must be a string'],
    ] as const) {
      const res = await answer(s, order.order_number, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', details: [{ path: Object.keys(body).at(-1) ?? 'answer', message }] });
    }
    const long = await answer(s, 'x'.repeat(101), { answer: 'confirm' });
    expect(long.status).toBe(400);
    expect(long.body.error.details[0].path).toBe('reference');

    const prepaid = (await post(ctx, s.headers, orderBody({ payment: 'prepaid' }))).body.data;
    const res = await answer(s, prepaid.order_number, { answer: 'confirm' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'unprocessable', details: [{ path: 'answer' }] });
    expect((await orderRow(s.companyId, order.order_id)).cod_confirmation).toBe('pending');
    expect(await eventsOf(s.companyId)).toHaveLength(3);
  });

  it('without automatic booking a confirmation queues nothing; an address added later then queues nothing either until staff book', async () => {
    const s = await codShop({}, { auto_courier_booking: false });
    const order = await codOrder(s);
    expect((await answer(s, order.order_number, { answer: 'confirm' })).status).toBe(200);
    expect(await jobsOf(ctx, s.companyId)).toEqual([]);
  });
});

describe('staff and a pending confirmation', () => {
  it('packing, shipping and booking wait for it; a new address queues no booking; a cancel settles it declined by staff', async () => {
    const s = await codShop();
    const order = await codOrder(s, 2, { delivery_address: undefined, customer: { name: 'New Buyer', phone: '9000011111' } });
    for (const to of ['packed', 'shipped'] as const) {
      await expect(ctx.services.fulfilment.move(s.companyId, order.order_number, to)).rejects.toMatchObject({
        kind: 'validation_failed',
        message: expect.stringContaining("awaits the buyer's COD confirmation"),
      });
    }
    await expect(ctx.services.fulfilment.requestBooking(s.companyId, order.order_number)).rejects.toMatchObject({
      details: [{ path: 'cod_confirmation' }],
    });
    const addressed = await ctx.services.fulfilment.setAddress(s.companyId, order.order_number, { line1: '1 Park St', city: 'Kolkata', pincode: '700016' });
    expect(addressed.booking_enqueued).toBe(false);
    expect(await jobsOf(ctx, s.companyId)).toEqual([]);

    expect((await ctx.services.fulfilment.move(s.companyId, order.order_number, 'cancelled')).cod_confirmation).toBe('declined');
    expect(await orderRow(s.companyId, order.order_id)).toEqual({ status: 'cancelled', cod_confirmation: 'declined', cod_confirmation_settled_by: 'staff' });
    expect((await stockView(ctx, s)).reserved).toBe('0.000');
    expect((await eventsOf(s.companyId)).slice(-2).map((e) => [e.type, e.cod?.status])).toEqual([
      ['order.status_changed', 'declined'],
      ['order.cod_confirmation_settled', 'declined'],
    ]);
    // the buyer declining afterwards gets the same outcome; confirming is refused
    expect((await answer(s, order.order_number, { answer: 'decline' })).status).toBe(200);
    expect((await answer(s, order.order_number, { answer: 'confirm' })).status).toBe(409);
  });

  it('a payment online settles it confirmed (settleIn, for payment links); anything but pending is left as it is', async () => {
    const s = await codShop();
    const order = await codOrder(s);
    const settle = () => ctx.db.tx((tx) => ctx.services.codConfirmations.settleIn(tx, s.companyId, order.order_id, 'confirmed', 'payment'));
    expect(await settle()).toEqual({ result: 'settled', state: 'confirmed' });
    expect(await settle()).toEqual({ result: 'unchanged', state: 'confirmed' });
    expect(await orderRow(s.companyId, order.order_id)).toMatchObject({ cod_confirmation: 'confirmed', cod_confirmation_settled_by: 'payment' });
    expect(await jobsOf(ctx, s.companyId)).toHaveLength(1);
    const prepaid = (await post(ctx, s.headers, orderBody({ payment: 'prepaid' }))).body.data;
    expect(await ctx.db.tx((tx) => ctx.services.codConfirmations.settleIn(tx, s.companyId, prepaid.order_id, 'declined', 'payment'))).toEqual({
      result: 'unchanged',
      state: null,
    });
  });
});

describe('the time limit', () => {
  const overdue = (companyId: string, orderId: string) =>
    ctx.db.query(sql`UPDATE orders SET cod_confirmation_due_at = now() - interval '1 minute' WHERE company_id = ${companyId} AND id = ${orderId}`);
  const worker = () =>
    createCodConfirmationWorker({ db: ctx.db, config: ctx.config, confirmations: ctx.services.codConfirmations, log: ctx.workerLog('cod-confirmation') });

  it("on_timeout 'cancel': an overdue confirmation is declined by the time limit and the order cancelled, stock back; one not yet due is untouched", async () => {
    const s = await codShop({ on_timeout: 'cancel' });
    const late = await codOrder(s, 2);
    const early = await codOrder(s, 1);
    await overdue(s.companyId, late.order_id);
    await worker().runOnce();
    expect(await orderRow(s.companyId, late.order_id)).toEqual({ status: 'cancelled', cod_confirmation: 'declined', cod_confirmation_settled_by: 'timeout' });
    expect(await orderRow(s.companyId, early.order_id)).toMatchObject({ status: 'confirmed', cod_confirmation: 'pending' });
    expect((await stockView(ctx, s)).reserved).toBe('1.000');
    expect((await eventsOf(s.companyId)).filter((e) => e.subject_id === late.order_id).map((e) => e.type)).toEqual([
      'order.created',
      'order.cod_confirmation_requested',
      'order.status_changed',
      'order.cod_confirmation_settled',
    ]);
    await worker().runOnce(); // nothing more to do
    expect(await eventsOf(s.companyId)).toHaveLength(6);
    expect(await ctx.services.fulfilment.listAttention(s.companyId)).toEqual([]);
  });

  it("on_timeout 'staff': left pending and listed in orders attention; staff confirm it from the CLI service (a booking follows) and it leaves the list", async () => {
    const s = await codShop({ on_timeout: 'staff' });
    const order = await codOrder(s, 2);
    await overdue(s.companyId, order.order_id);
    await worker().runOnce();
    expect(await orderRow(s.companyId, order.order_id)).toMatchObject({ status: 'confirmed', cod_confirmation: 'pending' });
    expect(await ctx.services.fulfilment.listAttention(s.companyId)).toEqual([
      expect.objectContaining({ kind: 'cod_confirmation_overdue', id: order.order_id, order_number: order.order_number, order_status: 'confirmed' }),
    ]);
    const view = await ctx.services.codConfirmations.staffAnswer(s.companyId, order.order_number, 'confirm');
    expect(view).toMatchObject({ order_status: 'confirmed', cod_confirmation: 'confirmed' });
    expect(await orderRow(s.companyId, order.order_id)).toMatchObject({ cod_confirmation_settled_by: 'staff' });
    expect(await jobsOf(ctx, s.companyId)).toHaveLength(1);
    expect(await ctx.services.fulfilment.listAttention(s.companyId)).toEqual([]);
    await expect(ctx.services.codConfirmations.staffAnswer(s.companyId, order.order_number, 'decline')).rejects.toMatchObject({ kind: 'conflict' });
  });

  it('a fault settling one order fails that order alone (logged, counted, tried again at the next poll); the others are settled', async () => {
    const s = await codShop({ on_timeout: 'cancel' });
    const [bad, good] = [await codOrder(s, 1), await codOrder(s, 2)];
    await overdue(s.companyId, bad.order_id);
    await overdue(s.companyId, good.order_id);
    const errors: string[] = [];
    const faulty = createCodConfirmationWorker({
      db: ctx.db,
      config: ctx.config,
      confirmations: {
        settleIn: (tx, companyId, orderId, outcome, by) =>
          orderId === bad.order_id ? Promise.reject(new Error('provider down')) : ctx.services.codConfirmations.settleIn(tx, companyId, orderId, outcome, by),
      },
      log: ctx.workerLog('cod-confirmation'),
      onError: (stage) => errors.push(stage),
    });
    await faulty.runOnce();
    expect(errors).toEqual(['order']);
    expect((await orderRow(s.companyId, bad.order_id)).cod_confirmation).toBe('pending');
    expect((await orderRow(s.companyId, good.order_id)).cod_confirmation).toBe('declined');
    expect(ctx.logs).toContainEqual(expect.objectContaining({ component: 'cod-confirmation', order: bad.order_number, level: 50 }));
    await worker().runOnce();
    expect((await orderRow(s.companyId, bad.order_id)).cod_confirmation).toBe('declined');
  });

  it('an order held by someone else is skipped, and settled at a later poll', async () => {
    const s = await codShop({ on_timeout: 'cancel' });
    const order = await codOrder(s, 1);
    await overdue(s.companyId, order.order_id);
    if (ctx.db.kind === 'pglite') return; // one connection: nothing can hold the row while the worker polls
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const lockTaken = new Promise<void>((r) => (locked = r));
    const holder = ctx.db.tx(async (tx) => {
      await tx.query(sql`SELECT id FROM orders WHERE company_id = ${s.companyId} AND id = ${order.order_id} FOR UPDATE`);
      locked();
      await held;
    });
    await lockTaken;
    await worker().runOnce();
    release();
    await holder;
    expect((await orderRow(s.companyId, order.order_id)).cod_confirmation).toBe('pending');
    await worker().runOnce();
    expect((await orderRow(s.companyId, order.order_id)).cod_confirmation).toBe('declined');
  });
});
