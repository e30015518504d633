import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { auditCompany } from '../helpers/audit.js';
import { BASE, get, orderBody, post, stockRow, teeShop, uid } from '../helpers/fulfilment.js';
import { fakeRazorpay, type FakeRazorpay } from '../helpers/razorpay.js';

/**
 * COD to prepaid on the same order, end to end over real HTTP: the payment link made through the company's Razorpay
 * account (the simulator), and the simulator's signed webhooks turning the same order prepaid, once, or putting the
 * money before staff when the order can no longer take it.
 */
const ctx = useTestApp({ PAYMENT_API_ALLOW_LOCAL: 'true', PAYMENT_API_TIMEOUT_MS: '300' });
let rzp: FakeRazorpay;
let origin: string;
beforeAll(async () => {
  rzp = await fakeRazorpay();
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
afterAll(() => rzp?.close());

const PHONE = '+91 98765 43210';

/** A shop taking Razorpay payments through the simulator (its webhook pointed at the app), with a COD order placed. */
async function codOrder(opts: { razorpay?: boolean; auto?: boolean; payment?: 'cod' | 'prepaid' } = {}) {
  const s = await teeShop(ctx, '10', { auto_courier_booking: opts.auto ?? false });
  const acct = rzp.account();
  if (opts.razorpay ?? true) {
    const webhookSecret = `whsec-${s.company.slug}-secret`;
    await ctx.services.payments.configure(
      s.companyId,
      { kind: 'cli', name: 'test' },
      { provider: 'razorpay', keyId: acct.keyId, keySecret: acct.keySecret, webhookSecret, baseUrl: rzp.url },
    );
    rzp.webhook(acct, `${origin}${ctx.config.BASE_PATH}/payments/razorpay/webhook/${s.company.slug}`, webhookSecret);
  }
  const placed = await post(ctx, s.headers, orderBody({ payment: opts.payment ?? 'cod', items: [{ product_id: 'TEE-M', quantity: 2 }] }));
  expect(placed.status).toBe(201);
  return { ...s, acct, order: placed.body.data as { order_id: string; order_number: string; amount: string } };
}

async function createLink(s: { headers: Record<string, string> }, reference: string, body?: unknown) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: `${BASE}/orders/${reference}/payment-link`,
    headers: s.headers,
    ...(body === undefined ? {} : { payload: body as object }),
  });
  return { status: res.statusCode, body: res.json() };
}

const linkRows = (companyId: string) =>
  ctx.db.query<{ id: string; status: string; amount: string; payment_id: string | null; short_url: string }>(
    sql`SELECT id, status, amount, payment_id, short_url FROM order_payment_links WHERE company_id = ${companyId} ORDER BY created_at`,
  );
const bindings = (companyId: string) =>
  ctx.db.query<{ provider_order_id: string; subject_id: string; amount: string }>(
    sql`SELECT provider_order_id, subject_id, amount FROM payment_bindings WHERE company_id = ${companyId}`,
  );
const orderRow = async (companyId: string, id: string) =>
  (
    await ctx.db.query<{ order_number: string; status: string; payment: string; payment_reference: string | null; amount: string }>(
      sql`SELECT order_number, status, payment, payment_reference, amount FROM orders WHERE company_id = ${companyId} AND id = ${id}`,
    )
  )[0];
const eventTypes = async (companyId: string, orderId: string) =>
  (await ctx.db.query<{ type: string }>(sql`SELECT type FROM events WHERE company_id = ${companyId} AND subject_id = ${orderId} ORDER BY seq`)).map(
    (e) => e.type,
  );
const paymentEvents = (companyId: string) =>
  ctx.db.query<{ event_type: string; status: string; note: string | null; payment_id: string | null }>(
    sql`SELECT event_type, status, note, payment_id FROM payment_events WHERE company_id = ${companyId} ORDER BY created_at, event_id`,
  );

describe('POST /orders/{reference}/payment-link', () => {
  it('makes one link for the amount due, stored and bound; asked again it answers the same live link', async () => {
    const s = await codOrder();
    const made = await createLink(s, s.order.order_number, { phone: PHONE });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      data: {
        link_id: expect.stringMatching(/^plink_/),
        order_id: s.order.order_id,
        order_number: s.order.order_number,
        short_url: expect.stringMatching(/^https:\/\/rzp\.io\/i\//),
        amount: '998.00',
        currency: 'INR',
        status: 'created',
        expires_at: expect.any(String),
        created_at: expect.any(String),
      },
    });
    const hours = (Date.parse(made.body.data.expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    // what Razorpay was asked: paise, no SMS or e-mail from Razorpay (the flow sends the link), our order in the notes
    const call = rzp.state.calls.filter((c) => c.path === '/v1/payment_links').at(-1)!.body as Record<string, unknown>;
    expect(call).toMatchObject({ amount: 99_800, currency: 'INR', notify: { sms: false, email: false }, notes: { payment_link_order: s.order.order_id } });
    expect(await linkRows(s.companyId)).toEqual([expect.objectContaining({ id: made.body.data.link_id, status: 'created', amount: '998.00' })]);
    expect(await bindings(s.companyId)).toEqual([{ provider_order_id: made.body.data.link_id, subject_id: s.order.order_id, amount: '998.00' }]);

    const again = await createLink(s, s.order.order_id);
    expect(again).toEqual({ status: 200, body: { data: made.body.data, existing: true } });
    expect(await linkRows(s.companyId)).toHaveLength(1);
  });

  it('racing requests for one order make one link at Razorpay', async () => {
    const s = await codOrder();
    const url = `${origin}${BASE}/orders/${s.order.order_number}/payment-link`;
    const before = rzp.state.calls.length;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        fetch(url, { method: 'POST', headers: { ...s.headers, 'content-type': 'application/json' }, body: '{}' }).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { data: { link_id: string } },
        })),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.body.data.link_id)).size).toBe(1);
    expect(rzp.state.calls.slice(before).filter((c) => c.path === '/v1/payment_links')).toHaveLength(1);
  });

  it('expire_in_minutes is held to 15..10080; a wrong type, another phone and an unknown order are refused', async () => {
    const s = await codOrder();
    const ref = s.order.order_number;
    for (const bad of [14, 10_081, 60.5, '60']) {
      const r = await createLink(s, ref, { expire_in_minutes: bad });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ path: 'expire_in_minutes' })] });
    }
    expect((await createLink(s, ref, { phone: '+91 91234 56789' })).body.error.code).toBe('not_found');
    expect((await createLink(s, 'ORD-NOPE')).status).toBe(404);
    expect(await linkRows(s.companyId)).toEqual([]);
    const edge = await createLink(s, ref, { expire_in_minutes: 10_080 });
    expect(edge.status).toBe(201);
    expect(Date.parse(edge.body.data.expires_at) - Date.now()).toBeGreaterThan(10_079 * 60_000);
    // a second company's key never reaches this order (its own ORD-100001 is another order)
    const other = await codOrder();
    expect((await createLink(other, s.order.order_id)).status).toBe(404);
    expect((await createLink(other, ref)).body.data.order_id).toBe(other.order.order_id);
  });

  it('15 minutes is the shortest expiry', async () => {
    const s = await codOrder();
    const r = await createLink(s, s.order.order_number, { expire_in_minutes: 15 });
    expect(r.status).toBe(201);
  });

  it('refuses prepaid, cancelled, shipped orders and a company without a payment provider: 422 naming why, nothing written', async () => {
    const prepaid = await codOrder({ payment: 'prepaid' });
    const p = await createLink(prepaid, prepaid.order.order_number);
    expect(p).toMatchObject({ status: 422, body: { error: { code: 'unprocessable', details: [{ path: 'reference', message: 'is prepaid already' }] } } });

    const cancelled = await codOrder();
    await ctx.services.fulfilment.move(cancelled.companyId, cancelled.order.order_number, 'cancelled');
    expect((await createLink(cancelled, cancelled.order.order_number)).body.error.details).toEqual([{ path: 'reference', message: 'is cancelled' }]);

    const shipped = await codOrder();
    await ctx.services.fulfilment.ship(shipped.companyId, shipped.order.order_number, { awb: `AWB${uid()}`, courier: 'manual' });
    expect((await createLink(shipped, shipped.order.order_number)).body.error.details).toEqual([{ path: 'reference', message: 'is shipped' }]);

    const none = await codOrder({ razorpay: false });
    expect(await createLink(none, none.order.order_number)).toMatchObject({ status: 422, body: { error: { code: 'unprocessable' } } });
    for (const s of [prepaid, cancelled, shipped, none]) expect(await linkRows(s.companyId)).toEqual([]);
  });

  it('a provider answering 500, or too slowly, is 503 with Retry-After; nothing is written and the service keeps serving', async () => {
    const s = await codOrder();
    rzp.state.failNext = 1;
    const failed = await createLink(s, s.order.order_number);
    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('unavailable');
    rzp.state.delayMs = 600;
    let slow;
    try {
      slow = await ctx.app.inject({ method: 'POST', url: `${BASE}/orders/${s.order.order_number}/payment-link`, headers: s.headers });
    } finally {
      rzp.state.delayMs = 0;
    }
    expect(slow.statusCode).toBe(503);
    expect(slow.headers['retry-after']).toBe('5');
    expect(await linkRows(s.companyId)).toEqual([]);
    expect(await bindings(s.companyId)).toEqual([]);
    expect(JSON.stringify(failed.body) + slow.body).not.toMatch(new RegExp(s.acct.keySecret.replace(/[^\w]/g, '.')));
    // the retry works
    expect((await createLink(s, s.order.order_number)).status).toBe(201);
  });

  it('a link URL and the buyer phone never reach the log', async () => {
    const s = await codOrder();
    const made = await createLink(s, s.order.order_number, { phone: PHONE });
    expect(ctx.rawLogs()).not.toContain(made.body.data.short_url);
    expect(ctx.rawLogs()).not.toContain('9876543210');
  });
});

describe('the link paid: the same order becomes prepaid, once', () => {
  it('payment_link.paid with its payment.captured and order.paid: prepaid, reservation and number untouched, one event', async () => {
    const s = await codOrder();
    const link = (await createLink(s, s.order.order_number)).body.data;
    const stockBefore = await stockRow(ctx, s.companyId, s.variantIds['TEE-M']);
    const { paymentId, deliveries } = await rzp.pay(link.link_id);
    expect(deliveries.map((d) => [d.event, d.status])).toEqual([
      ['payment.captured', 200],
      ['order.paid', 200],
      ['payment_link.paid', 200],
    ]);
    expect(await orderRow(s.companyId, s.order.order_id)).toEqual({
      order_number: s.order.order_number,
      status: 'confirmed',
      payment: 'prepaid',
      payment_reference: paymentId,
      amount: '998.00',
    });
    expect(await stockRow(ctx, s.companyId, s.variantIds['TEE-M'])).toEqual(stockBefore);
    expect(await linkRows(s.companyId)).toEqual([expect.objectContaining({ status: 'paid', payment_id: paymentId })]);
    expect(await eventTypes(s.companyId, s.order.order_id)).toEqual(['order.created', 'order.payment_link_paid']);
    expect((await paymentEvents(s.companyId)).map((e) => e.status)).toEqual(['acted', 'acted', 'acted']);
    const lookup = await get(ctx, s.headers, `/orders/${s.order.order_number}`);
    expect(lookup.body.data).toMatchObject({ order_status: 'confirmed', amount: '998.00' });

    // the invoice issued at shipping is paid, with the payment id
    const shipped = await ctx.services.fulfilment.ship(s.companyId, s.order.order_number, { awb: `AWB${uid()}`, courier: 'manual' });
    expect(shipped).toBeTruthy();
    const invoice = (await get(ctx, s.headers, `/orders/${s.order.order_number}`)).body.data.invoice;
    expect(invoice).toMatchObject({ payment_status: 'paid', amount_due: '0.00', total: '998.00' });
    expect(await auditCompany(ctx.db, s.companyId)).toMatchObject({ stock: [], partial: [], orphans: [] });
  });

  it('an invoice issued before the payment is paid by it (payment.recorded, then order.payment_link_paid)', async () => {
    const s = await codOrder();
    await ctx.services.fulfilment.issueInvoice(s.companyId, s.order.order_number);
    const link = (await createLink(s, s.order.order_number)).body.data;
    const { paymentId } = await rzp.pay(link.link_id);
    const [payment] = await ctx.db.query<{ amount: string; method: string; reference: string }>(
      sql`SELECT amount, method, reference FROM payments WHERE company_id = ${s.companyId}`,
    );
    expect(payment).toEqual({ amount: '998.00', method: 'prepaid', reference: paymentId });
    expect((await get(ctx, s.headers, `/orders/${s.order.order_number}`)).body.data.invoice).toMatchObject({ payment_status: 'paid', amount_due: '0.00' });
    expect(await eventTypes(s.companyId, s.order.order_id)).toEqual(['order.created', 'invoice.issued', 'payment.recorded', 'order.payment_link_paid']);
  });

  it('PAID TWICE: the same webhook again, and three copies in parallel, change nothing more', async () => {
    const s = await codOrder();
    const link = (await createLink(s, s.order.order_number)).body.data;
    const { paymentId, deliveries } = await rzp.pay(link.link_id, { hold: true });
    const paid = deliveries[2];
    expect(await rzp.deliver(paid, 3)).toEqual([200, 200, 200]);
    expect(await rzp.deliver(paid)).toEqual([200]);
    for (const d of deliveries.slice(0, 2)) expect(await rzp.deliver(d, 2)).toEqual([200, 200]);
    expect(await orderRow(s.companyId, s.order.order_id)).toMatchObject({ payment: 'prepaid', payment_reference: paymentId });
    expect(await eventTypes(s.companyId, s.order.order_id)).toEqual(['order.created', 'order.payment_link_paid']);
    expect((await paymentEvents(s.companyId)).map((e) => e.status)).toEqual(['acted', 'acted', 'acted']);
    expect(await ctx.services.fulfilment.listAttention(s.companyId)).toEqual([]);
  });

  it('PAID TWICE by two links: the second payment is a refund on the attention list, the order keeps the first', async () => {
    const s = await codOrder();
    const first = (await createLink(s, s.order.order_number)).body.data;
    // a link made elsewhere for the same order (a second flow): bound, as ours are
    const provider = await ctx.services.payments.provider(s.companyId);
    const second = await provider.createPaymentLink({
      amountPaise: 99_800,
      referenceId: `second-${uid()}`,
      description: 'again',
      customer: {},
      notes: { payment_link_order: s.order.order_id },
    });
    await ctx.db.query(sql`
      INSERT INTO order_payment_links (company_id, id, order_id, provider, short_url, amount)
      VALUES (${s.companyId}, ${second.id}, ${s.order.order_id}, 'razorpay', ${second.shortUrl}, 998.00)`);
    await ctx.services.payments.bindOrder(s.companyId, {
      providerOrderId: second.id,
      purpose: 'payment_link',
      subjectId: s.order.order_id,
      amountPaise: 99_800,
    });

    const one = await rzp.pay(first.link_id);
    const two = await rzp.pay(second.id);
    expect(await orderRow(s.companyId, s.order.order_id)).toMatchObject({ payment: 'prepaid', payment_reference: one.paymentId });
    const attention = await ctx.services.fulfilment.listAttention(s.companyId);
    expect(attention).toEqual([expect.objectContaining({ kind: 'payment_needs_attention', id: two.paymentId })]);
    expect(attention[0].reason).toMatch(/paid already.*refund it/);
    expect(await eventTypes(s.companyId, s.order.order_id)).toEqual(['order.created', 'order.payment_link_paid']);
  });

  it('PAID AFTER CANCEL: the money is on the attention list as a refund; the order stays cancelled, its stock released', async () => {
    const s = await codOrder();
    const link = (await createLink(s, s.order.order_number)).body.data;
    await ctx.services.fulfilment.move(s.companyId, s.order.order_number, 'cancelled');
    const { paymentId } = await rzp.pay(link.link_id);
    expect(await orderRow(s.companyId, s.order.order_id)).toMatchObject({ status: 'cancelled', payment: 'cod', payment_reference: null });
    expect((await stockRow(ctx, s.companyId, s.variantIds['TEE-M'])).reserved).toBe('0.000');
    const attention = await ctx.services.fulfilment.listAttention(s.companyId);
    expect(attention).toEqual([expect.objectContaining({ kind: 'payment_needs_attention', id: paymentId })]);
    expect(attention[0].reason).toContain(`order ${s.order.order_number}: the order is cancelled; refund it`);
    expect(await linkRows(s.companyId)).toEqual([expect.objectContaining({ status: 'paid', payment_id: paymentId })]);
    expect(await eventTypes(s.companyId, s.order.order_id)).toEqual(['order.created', 'order.status_changed']);
  });

  it('cancel and payment racing on one order: cancelled first, the money is a refund; paid first, the cancelled order keeps its payment', async () => {
    for (let i = 0; i < 4; i++) {
      const s = await codOrder();
      const link = (await createLink(s, s.order.order_number)).body.data;
      const { paymentId, deliveries } = await rzp.pay(link.link_id, { hold: true });
      await rzp.deliver(deliveries[0]);
      const [, delivered] = await Promise.all([ctx.services.fulfilment.move(s.companyId, s.order.order_number, 'cancelled'), rzp.deliver(deliveries[2])]);
      expect(delivered).toEqual([200]);
      const row = await orderRow(s.companyId, s.order.order_id);
      const attention = await ctx.services.fulfilment.listAttention(s.companyId);
      expect(row.status).toBe('cancelled');
      expect((await stockRow(ctx, s.companyId, s.variantIds['TEE-M'])).reserved).toBe('0.000');
      if (row.payment === 'cod') expect(attention.map((a) => a.id)).toEqual([paymentId]);
      else expect(row.payment_reference).toBe(paymentId);
      expect(await auditCompany(ctx.db, s.companyId)).toMatchObject({ stock: [], partial: [], orphans: [] });
    }
  });

  it('an expired or cancelled link closes its row and changes nothing else; a new link can then be made', async () => {
    const s = await codOrder();
    const first = (await createLink(s, s.order.order_number)).body.data;
    expect((await rzp.closeLink(first.link_id, 'expired')).status).toBe(200);
    expect(await linkRows(s.companyId)).toEqual([expect.objectContaining({ id: first.link_id, status: 'expired' })]);
    const second = await createLink(s, s.order.order_number);
    expect(second.status).toBe(201);
    expect((await rzp.closeLink(second.body.data.link_id, 'cancelled')).status).toBe(200);
    expect((await linkRows(s.companyId)).map((l) => l.status)).toEqual(['expired', 'cancelled']);
    expect(await orderRow(s.companyId, s.order.order_id)).toMatchObject({ status: 'confirmed', payment: 'cod', payment_reference: null });
    expect(await eventTypes(s.companyId, s.order.order_id)).toEqual(['order.created']);
    expect(await ctx.services.fulfilment.listAttention(s.companyId)).toEqual([]);
  });

  it("another company's signature never touches this company's order", async () => {
    const mine = await codOrder();
    const theirs = await codOrder();
    const link = (await createLink(mine, mine.order.order_number)).body.data;
    const { deliveries } = await rzp.pay(link.link_id, { hold: true });
    // the paid event, sent to the other company's webhook URL (signed with this company's secret): refused
    const d = deliveries[2];
    const foreign = { ...d, url: `${origin}${ctx.config.BASE_PATH}/payments/razorpay/webhook/${theirs.company.slug}` };
    expect(await rzp.deliver(foreign)).toEqual([401]);
    expect(await orderRow(mine.companyId, mine.order.order_id)).toMatchObject({ payment: 'cod' });
    expect(await paymentEvents(theirs.companyId)).toEqual([]);
    // the other company's link id, named in an event signed by the other company, finds nothing of this company
    const theirLink = (await createLink(theirs, theirs.order.order_number)).body.data;
    await rzp.pay(theirLink.link_id);
    expect(await orderRow(mine.companyId, mine.order.order_id)).toMatchObject({ payment: 'cod' });
    expect(await orderRow(theirs.companyId, theirs.order.order_id)).toMatchObject({ payment: 'prepaid' });
  });

  it('a pending COD confirmation is confirmed by the payment, and the held courier booking is queued', async () => {
    const s = await codOrder({ auto: true });
    // as engineer B's confirmation leaves a new COD order: pending, no booking queued
    await ctx.db.query(sql`UPDATE orders SET cod_confirmation = 'pending' WHERE company_id = ${s.companyId} AND id = ${s.order.order_id}`);
    await ctx.db.query(sql`DELETE FROM jobs WHERE company_id = ${s.companyId} AND order_id = ${s.order.order_id}`);
    const link = (await createLink(s, s.order.order_number)).body.data;
    await rzp.pay(link.link_id);
    const [row] = await ctx.db.query<{ cod_confirmation: string; settled: boolean; by: string }>(
      sql`SELECT cod_confirmation, cod_confirmation_settled_at IS NOT NULL AS settled, cod_confirmation_settled_by AS by
            FROM orders WHERE company_id = ${s.companyId} AND id = ${s.order.order_id}`,
    );
    expect(row).toEqual({ cod_confirmation: 'confirmed', settled: true, by: 'payment' });
    const jobs = await ctx.db.query<{ status: string }>(sql`SELECT status FROM jobs WHERE company_id = ${s.companyId} AND order_id = ${s.order.order_id}`);
    expect(jobs).toEqual([{ status: 'pending' }]);
    // the flow hears of the settlement (codConfirmations.settleIn), then of the payment
    const events = await ctx.db.query<{ type: string }>(
      sql`SELECT type FROM events WHERE company_id = ${s.companyId} AND subject_id = ${s.order.order_id} AND type LIKE 'order.%' ORDER BY seq`,
    );
    expect(events.map((e) => e.type).slice(-2)).toEqual(['order.cod_confirmation_settled', 'order.payment_link_paid']);
  });
});
