import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckoutExpiryWorker } from '../../src/checkout/expiry-worker.js';
import { useTestApp } from '../helpers/app.js';
import { auditCompany } from '../helpers/audit.js';
import { count, shop, stockRow, uid } from '../helpers/orders.js';
import { fakeRazorpay, type FakeRazorpay } from '../helpers/razorpay.js';

/**
 * Razorpay's hosted checkout as a UCP payment handler, end to end over real HTTP: complete answers requires_escalation
 * with a pay page of ours; the simulator's signed webhook completes the checkout into a confirmed prepaid order through
 * the one order path; a failed payment leaves it open; money for a checkout no longer payable needs attention and
 * never sells stock twice.
 */
const ctx = useTestApp({ PAYMENT_API_ALLOW_LOCAL: 'true' });
let rzp: FakeRazorpay;
let origin: string;
beforeAll(async () => {
  rzp = await fakeRazorpay();
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
afterAll(() => rzp?.close());

const ADDRESS = {
  id: 'home',
  first_name: 'Asha',
  last_name: 'Rao',
  street_address: '12 MG Road',
  address_locality: 'Bengaluru',
  address_region: 'Karnataka',
  postal_code: '560038',
  address_country: 'IN',
};
const BUYER = { first_name: 'Asha', last_name: 'Rao', email: 'asha@example.in', phone_number: '+91 98765 43210' };
const RAZORPAY = { payment_data: { id: 'instr_rzp', handler_id: 'razorpay', type: 'hosted_checkout' } };
const COD = { payment_data: { id: 'instr_cod', handler_id: 'cod', type: 'cod' } };

/** A UCP business with Razorpay configured against the simulator, its webhook pointed at the app. */
async function business(stock = '5', withRazorpay = true) {
  const s = await shop(ctx, [{ sku: 'ROSE', name: 'Red Rose Bouquet', variants: [{ sku: 'ROSE-1', name: '12 stems', selling_price: '35.00', stock }] }], {
    company: { slug: `rzp-${uid()}` },
  });
  await ctx.services.ucpSettings.set(s.companyId, { kind: 'cli', name: 'test' }, { enabled: true });
  await ctx.services.shippingRates.create(
    s.companyId,
    { kind: 'cli', name: 'test' },
    { id: 'std', title: 'Standard', level: 'standard', zone_kind: 'everywhere', price: '5.00' },
  );
  const acct = rzp.account();
  if (withRazorpay) {
    const webhookSecret = `whsec-${s.company.slug}-secret`;
    await ctx.services.payments.configure(
      s.companyId,
      { kind: 'cli', name: 'test' },
      { provider: 'razorpay', keyId: acct.keyId, keySecret: acct.keySecret, webhookSecret, baseUrl: rzp.url },
    );
    rzp.webhook(acct, `${origin}${ctx.config.BASE_PATH}/payments/razorpay/webhook/${s.company.slug}`, webhookSecret);
  }
  const path = (p: string) => `/ucp/${s.company.slug}/2026-01-11${p}`;
  const call = async (method: 'GET' | 'POST' | 'PUT', p: string, payload?: unknown, key = uid()) => {
    const res = await ctx.app.inject({
      method,
      url: path(p),
      headers: {
        'ucp-agent': 'profile="https://agent.example/profile.json"',
        'idempotency-key': key,
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });
    return { status: res.statusCode, body: res.json() };
  };
  const ready = async (quantity = 3) => {
    const created = await call('POST', '/checkout-sessions', {
      line_items: [{ item: { id: 'ROSE-1' }, quantity }],
      buyer: BUYER,
      fulfillment: { methods: [{ type: 'shipping', destinations: [ADDRESS], selected_destination_id: 'home' }] },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const chosen = await call('PUT', `/checkout-sessions/${id}`, {
      line_items: [{ item: { id: 'ROSE-1' }, quantity }],
      fulfillment: { methods: [{ groups: [{ selected_option_id: 'std' }] }] },
    });
    expect(chosen.body.status).toBe('ready_for_complete');
    return id;
  };
  /** Complete with Razorpay: requires_escalation; answers the checkout and the Razorpay order it asked for. */
  const escalate = async (id: string) => {
    const done = await call('POST', `/checkout-sessions/${id}/complete`, RAZORPAY);
    expect(done.status).toBe(200);
    const [binding] = await ctx.db.query<{ provider_order_id: string; amount: string }>(
      sql`SELECT provider_order_id, amount FROM payment_bindings WHERE company_id = ${s.companyId} AND purpose = 'checkout' AND subject_id = ${id}
          ORDER BY created_at DESC LIMIT 1`,
    );
    return { body: done.body, rzpOrderId: binding.provider_order_id };
  };
  const reserved = async () => (await stockRow(ctx, s.companyId, s.variantIds['ROSE-1'])).reserved;
  const events = () =>
    ctx.db.query<{ event_type: string; status: string; note: string | null }>(
      sql`SELECT event_type, status, note FROM payment_events WHERE company_id = ${s.companyId} ORDER BY created_at, event_id`,
    );
  const orders = () =>
    ctx.db.query<{ id: string; status: string; payment: string; payment_reference: string | null; external_reference: string; amount: string }>(
      sql`SELECT id, status, payment, payment_reference, external_reference, amount FROM orders WHERE company_id = ${s.companyId}`,
    );
  return { ...s, acct, call, ready, escalate, reserved, events, orders };
}

async function expectSound(companyId: string) {
  const a = await auditCompany(ctx.db, companyId);
  expect({ stock: a.stock, partial: a.partial, orphans: a.orphans, strayHolds: a.strayHolds, duplicates: a.duplicates }).toEqual({
    stock: [],
    partial: [],
    orphans: [],
    strayHolds: [],
    duplicates: [],
  });
}

describe('Razorpay hosted checkout (com.razorpay.magic_checkout)', () => {
  it('is advertised only by a company with Razorpay configured, in its profile and its checkouts', async () => {
    const b = await business('5');
    const profile = await ctx.app.inject({ method: 'GET', url: `/ucp/${b.company.slug}/2026-01-11/.well-known/ucp` });
    const handler = profile.json().payment.handlers.find((h: { id: string }) => h.id === 'razorpay');
    expect(handler).toMatchObject({
      name: 'com.razorpay.magic_checkout',
      version: '2026-01-27',
      config: { environment: 'sandbox', key_id: b.acct.keyId, merchant_name: b.company.name },
    });
    expect(JSON.stringify(profile.json())).not.toContain(b.acct.keySecret);
    const id = await b.ready(1);
    const got = await b.call('GET', `/checkout-sessions/${id}`);
    expect(got.body.payment.handlers.map((h: { id: string }) => h.id)).toEqual(['cod', 'razorpay']);

    const plain = await business('5', false);
    const other = await ctx.app.inject({ method: 'GET', url: `/ucp/${plain.company.slug}/2026-01-11/.well-known/ucp` });
    expect(other.json().payment.handlers.map((h: { id: string }) => h.id)).toEqual(['cod']);
    const pid = await plain.ready(1);
    const refused = await plain.call('POST', `/checkout-sessions/${pid}/complete`, RAZORPAY);
    expect(refused).toMatchObject({ status: 400, body: { messages: [{ code: 'invalid_payment', path: '$.payment_data.handler_id' }] } });
  });

  it('complete answers requires_escalation with a pay page; twice makes one Razorpay order; the capture completes it prepaid', async () => {
    const b = await business('5');
    const id = await b.ready(3);
    const calls = rzp.state.calls.length;
    const { body, rzpOrderId } = await b.escalate(id);
    expect(body.status).toBe('requires_escalation');
    // an absolute URL under the service's public origin (here the inject's default one): fetched on the listening port
    const payPath = new URL(body.continue_url as string).pathname;
    expect(payPath).toBe(`/ucp/${b.company.slug}/pay/${id}`);
    expect(body.messages).toEqual([expect.objectContaining({ type: 'error', code: 'requires_escalation', severity: 'requires_buyer_review' })]);
    expect(body.order).toBeUndefined();
    const total = body.totals.find((t: { type: string }) => t.type === 'total').amount as number;
    expect(total).toBe(11_000);
    // the Razorpay order: the total in paise, the checkout as receipt and in notes
    expect(rzp.order(rzpOrderId)).toMatchObject({ amount: 11_000, currency: 'INR', receipt: id, notes: { ucp_checkout_id: id } });
    expect(await b.reserved()).toBe('3.000');

    // the same complete again (another key): the same Razorpay order; GET shows the escalation too
    const again = await b.call('POST', `/checkout-sessions/${id}/complete`, RAZORPAY);
    expect(again.body).toMatchObject({ status: 'requires_escalation', continue_url: body.continue_url });
    expect(rzp.state.calls.slice(calls).filter((c) => c.path === '/v1/orders')).toHaveLength(1);
    expect((await b.call('GET', `/checkout-sessions/${id}`)).body.status).toBe('requires_escalation');

    // the pay page: HTML with its own CSP, opening Razorpay Checkout for this order (no secret, nothing of the buyer)
    const page = await fetch(`${origin}${payPath}`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(/script-src 'nonce-[^']+' https:\/\/checkout\.razorpay\.com/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(html).toContain('https://checkout.razorpay.com/v1/checkout.js');
    expect(html).toContain(rzpOrderId);
    expect(html).toContain(b.acct.keyId);
    for (const secret of [b.acct.keySecret, BUYER.email, '98765']) expect(html).not.toContain(secret);

    // the buyer pays: payment.captured completes the checkout; order.paid (the same payment) changes nothing
    const { paymentId, deliveries } = await rzp.pay(rzpOrderId);
    expect(deliveries.map((d) => d.status)).toEqual([200, 200]);
    expect((await b.events()).map((e) => [e.event_type, e.status])).toEqual([
      ['payment.captured', 'acted'],
      ['order.paid', 'acted'],
    ]);
    const [order] = await b.orders();
    expect(order).toMatchObject({ status: 'confirmed', payment: 'prepaid', payment_reference: paymentId, external_reference: id, amount: '110.00' });
    const got = await b.call('GET', `/checkout-sessions/${id}`);
    expect(got.body).toMatchObject({ status: 'completed', order: { id: order.id } });
    expect(got.body.continue_url).toBeUndefined();
    expect(got.body.payment.instruments).toEqual([{ id: 'instr_rzp', handler_id: 'razorpay', type: 'hosted_checkout' }]);
    expect((await b.call('GET', `/orders/${order.id}`)).status).toBe(200);
    // the held stock went to the order as it was
    expect(await b.reserved()).toBe('3.000');
    const done = await fetch(`${origin}${payPath}`);
    expect(await done.text()).toContain('paid and confirmed');
    await expectSound(b.companyId);
  });

  it('a failed payment leaves the checkout open and payable; a duplicate delivery of the capture makes one order', async () => {
    const b = await business('5');
    const id = await b.ready(2);
    const { rzpOrderId } = await b.escalate(id);
    expect((await rzp.fail(rzpOrderId)).status).toBe(200);
    expect((await b.call('GET', `/checkout-sessions/${id}`)).body.status).toBe('requires_escalation');
    expect(await b.orders()).toEqual([]);
    expect(await b.reserved()).toBe('2.000');

    const { deliveries } = await rzp.pay(rzpOrderId, { hold: true });
    // the capture arrives three times at once, then order.paid twice
    expect(await rzp.deliver(deliveries[0], 3)).toEqual([200, 200, 200]);
    expect(await rzp.deliver(deliveries[1], 2)).toEqual([200, 200]);
    expect(await b.orders()).toHaveLength(1);
    expect((await b.events()).map((e) => [e.event_type, e.status])).toEqual([
      ['payment.failed', 'acted'],
      ['payment.captured', 'acted'],
      ['order.paid', 'acted'],
    ]);
    await expectSound(b.companyId);
  });

  it('a capture after the checkout was canceled, or expired and released, needs attention and sells nothing', async () => {
    const b = await business('3');
    const canceled = await b.ready(3);
    const first = await b.escalate(canceled);
    expect((await b.call('POST', `/checkout-sessions/${canceled}/cancel`, {})).body.status).toBe('canceled');
    // the stock is sold to someone else meanwhile
    const other = await b.ready(3);
    expect((await b.call('POST', `/checkout-sessions/${other}/complete`, COD)).body.status).toBe('completed');
    await rzp.pay(first.rzpOrderId);
    expect((await b.events()).map((e) => [e.event_type, e.status])).toEqual([
      ['payment.captured', 'needs_attention'],
      ['order.paid', 'needs_attention'],
    ]);
    expect((await b.events())[0].note).toMatch(/checkout is canceled.*refund/);
    // staff see it once in the orders needing attention, to refund
    const attention = (await ctx.services.fulfilment.listAttention(b.companyId)).filter((a) => a.kind === 'payment_needs_attention');
    expect(attention).toEqual([expect.objectContaining({ kind: 'payment_needs_attention', reason: expect.stringMatching(/refund/) })]);
    expect(await b.orders()).toHaveLength(1);
    expect((await stockRow(ctx, b.companyId, b.variantIds['ROSE-1'])).reserved).toBe('3.000');

    // expired: the worker released its hold before the buyer paid
    const b2 = await business('5');
    const expiring = await b2.ready(2);
    const late = await b2.escalate(expiring);
    await ctx.db.query(sql`UPDATE checkout_sessions SET expires_at = now() - interval '1 second' WHERE company_id = ${b2.companyId} AND id = ${expiring}`);
    const worker = createCheckoutExpiryWorker({ db: ctx.db, config: { CHECKOUT_EXPIRY_POLL_MS: 60_000 }, log: ctx.workerLog('checkout-expiry') });
    await worker.runOnce();
    expect(await b2.reserved()).toBe('0.000');
    await rzp.pay(late.rzpOrderId);
    expect((await b2.events()).map((e) => e.status)).toEqual(['needs_attention', 'needs_attention']);
    expect(await b2.orders()).toEqual([]);
    expect(await b2.reserved()).toBe('0.000');
    await expectSound(b.companyId);
    await expectSound(b2.companyId);
  });

  it('a capture of another amount, or for a checkout changed since, needs attention; completing again asks anew', async () => {
    const b = await business('5');
    const id = await b.ready(1);
    const { rzpOrderId } = await b.escalate(id);
    // the platform changes the cart: the Razorpay order asked for no longer pays for it
    await b.call('PUT', `/checkout-sessions/${id}`, { line_items: [{ item: { id: 'ROSE-1' }, quantity: 2 }] });
    expect((await b.call('GET', `/checkout-sessions/${id}`)).body.status).toBe('ready_for_complete');
    const next = await b.escalate(id);
    expect(next.rzpOrderId).not.toBe(rzpOrderId);
    const bindings = await ctx.db.query(sql`SELECT 1 FROM payment_bindings WHERE company_id = ${b.companyId} AND subject_id = ${id}`);
    expect(bindings).toHaveLength(2);
    await rzp.pay(rzpOrderId);
    expect((await b.events()).map((e) => e.status)).toEqual(['needs_attention', 'needs_attention']);
    expect(await b.orders()).toEqual([]);

    // an amount that differs from the checkout's total (the simulator's order changed under us)
    rzp.order(next.rzpOrderId)!.amount = 100;
    await rzp.pay(next.rzpOrderId);
    const notes = (await b.events()).slice(2);
    expect(notes.map((e) => e.status)).toEqual(['needs_attention', 'needs_attention']);
    expect(notes[0].note).toMatch(/100 paise INR captured for a total of 7500 paise/);
    expect(await b.orders()).toEqual([]);
    expect((await b.call('GET', `/checkout-sessions/${id}`)).body.status).toBe('requires_escalation');
  });

  it('a delivery with a bad signature is refused (401) and changes nothing', async () => {
    const b = await business('5');
    const id = await b.ready(1);
    const { rzpOrderId } = await b.escalate(id);
    const { deliveries } = await rzp.pay(rzpOrderId, { hold: true });
    const forged = { ...deliveries[0], signature: 'a'.repeat(64) };
    expect(await rzp.deliver(forged)).toEqual([401]);
    const tampered = { ...deliveries[0], body: deliveries[0].body.replace('"amount":4000', '"amount":4001') };
    expect(await rzp.deliver(tampered)).toEqual([401]);
    expect(await b.events()).toEqual([]);
    expect(await count(ctx, 'orders', b.companyId)).toBe(0);
    expect((await b.call('GET', `/checkout-sessions/${id}`)).body.status).toBe('requires_escalation');
  });
});
