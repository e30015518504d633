import { sql } from 'drizzle-orm';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { fakeRazorpay, razorpaySignature, type FakeRazorpay } from '../helpers/razorpay.js';
import { createPaymentService, type PaymentBinding, type PaymentEventHandler } from '../../src/payments/payments.service.js';
import { PAYMENT_LINK_ORDER_NOTE, type RazorpayEvent } from '../../src/payments/webhook.js';

/**
 * Razorpay's webhooks through the real HTTP door: the simulator pays, signs and delivers to the app listening on a
 * port, as Razorpay does; events are recorded once, acted on once, and refused alike when the signature or the company
 * is wrong.
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

const CONTACT = '+919812345678';
const EMAIL = 'lakshmi.rao.private@example.in';
const webhookUrl = (company: string) => `${origin}${ctx.config.BASE_PATH}/payments/razorpay/webhook/${company}`;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A company taking Razorpay payments through the simulator, its webhook pointed at the app. */
async function shop() {
  const { company } = await createCompanyWithKey(ctx.services);
  const acct = rzp.account();
  const webhookSecret = `whsec-${company.slug}-secret`;
  await ctx.services.payments.configure(
    company.id,
    { kind: 'cli', name: 'test' },
    { provider: 'razorpay', keyId: acct.keyId, keySecret: acct.keySecret, webhookSecret, baseUrl: rzp.url },
  );
  rzp.webhook(acct, webhookUrl(company.slug), webhookSecret);
  const provider = await ctx.services.payments.provider(company.id);
  return { company, acct, webhookSecret, provider };
}

/**
 * A Razorpay order bound to one of our orders (purpose payment_link; the payment links' own handler finds no link row
 * for it and leaves it alone, so the tests' handlers decide; checkouts have theirs, test/checkout/checkout-razorpay.test.ts,
 * payment links theirs, test/cod/payment-links.test.ts).
 */
async function boundOrder(s: Awaited<ReturnType<typeof shop>>, amountPaise = 49_900) {
  const subjectId = `ord_${Math.random().toString(36).slice(2, 10)}`;
  const order = await s.provider.createOrder({ amountPaise, currency: 'INR', receipt: subjectId, notes: { order_ref: subjectId } });
  await ctx.services.payments.bindOrder(s.company.id, { providerOrderId: order.id, purpose: 'payment_link', subjectId, amountPaise });
  return { subjectId, order };
}

/** A handler recording what it is handed (and the event's status as its transaction sees it), removed by `off`. */
function recorder(act: (event: RazorpayEvent) => Promise<void> | void = () => {}) {
  const calls: { companyId: string; event: RazorpayEvent; binding: PaymentBinding; statusInTx: string }[] = [];
  const handler: PaymentEventHandler = async (companyId, event, binding, tx) => {
    const [row] = await tx.query<{ status: string }>(
      sql`SELECT status FROM payment_events WHERE company_id = ${companyId} AND provider = 'razorpay' AND event_id = ${event.eventId}`,
    );
    calls.push({ companyId, event, binding, statusInTx: row.status });
    await act(event);
  };
  return { calls, off: ctx.services.payments.onEvent('payment_link', handler) };
}

const events = (companyId: string) =>
  ctx.db.query<{
    event_id: string;
    event_type: string;
    status: string;
    note: string | null;
    payment_id: string | null;
    provider_order_id: string | null;
    amount: string | null;
    payload: unknown;
  }>(
    sql`SELECT event_id, event_type, status, note, payment_id, provider_order_id, amount, payload FROM payment_events WHERE company_id = ${companyId} ORDER BY created_at, event_id`,
  );

async function post(url: string, body: string, headers: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('a signed delivery is recorded once and acted on once', () => {
  it('payment.captured and order.paid reach the handler once each with the binding; three racing copies change nothing', async () => {
    const s = await shop();
    const { subjectId, order } = await boundOrder(s);
    const h = recorder(() => sleep(30)); // a handler that takes a moment, so the copies overlap it
    try {
      const paid = await rzp.pay(order.id, { hold: true });
      const [captured, orderPaid] = paid.deliveries;
      // The first delivery of an event arrives three times at once.
      expect(await rzp.deliver(captured, 3)).toEqual([200, 200, 200]);
      expect(await rzp.deliver(orderPaid, 3)).toEqual([200, 200, 200]);
      expect(h.calls.map((c) => c.event.type)).toEqual(['payment.captured', 'order.paid']);
      expect(h.calls[0]).toEqual({
        companyId: s.company.id,
        statusInTx: 'recorded',
        binding: { providerOrderId: order.id, purpose: 'payment_link', subjectId, amount: '499.00', amountPaise: 49_900 },
        event: {
          eventId: captured.eventId,
          type: 'payment.captured',
          name: 'payment.captured',
          paymentId: paid.paymentId,
          providerOrderId: order.id,
          paymentLinkId: null,
          amountPaise: 49_900,
          currency: 'INR',
          notes: { order_ref: subjectId },
          method: 'upi',
        },
      });
      expect(await events(s.company.id)).toEqual([
        expect.objectContaining({ event_id: captured.eventId, event_type: 'payment.captured', status: 'acted', payment_id: paid.paymentId, amount: '499.00' }),
        expect.objectContaining({ event_id: orderPaid.eventId, event_type: 'order.paid', status: 'acted', provider_order_id: order.id }),
      ]);

      // A later redelivery is answered 200 as a repeat, and the handler is not called again.
      const again = await post(captured.url, captured.body, { 'x-razorpay-signature': captured.signature, 'x-razorpay-event-id': captured.eventId });
      expect(again).toEqual({ status: 200, json: { data: { event_id: captured.eventId, status: 'acted', repeated: true } } });
      expect(h.calls).toHaveLength(2);
    } finally {
      h.off();
    }
  });

  it('without X-Razorpay-Event-Id, redeliveries are still one event (payment id and event name)', async () => {
    const s = await shop();
    const { order } = await boundOrder(s);
    const h = recorder();
    try {
      const { paymentId, deliveries } = await rzp.pay(order.id, { hold: true });
      const noId = { 'x-razorpay-event-id': '' };
      expect(await rzp.deliver(deliveries[0], 2, noId)).toEqual([200, 200]);
      expect(h.calls.map((c) => c.event.eventId)).toEqual([`${paymentId}:payment.captured`]);
      expect((await events(s.company.id)).map((e) => e.event_id)).toEqual([`${paymentId}:payment.captured`]);
    } finally {
      h.off();
    }
  });

  it('a payment link paid: found by its link id (the order Razorpay made for it is not ours); its capture and order.paid are acted as told by it', async () => {
    const s = await shop();
    const link = await s.provider.createPaymentLink({
      amountPaise: 129_900,
      referenceId: 'ORD-LINK-1',
      description: 'COD to prepaid',
      customer: { contact: CONTACT },
      notes: { [PAYMENT_LINK_ORDER_NOTE]: 'ord_link_1' },
    });
    await ctx.services.payments.bindOrder(s.company.id, { providerOrderId: link.id, purpose: 'payment_link', subjectId: 'ord_link_1', amountPaise: 129_900 });
    const h = recorder();
    try {
      const { paymentId, deliveries } = await rzp.pay(link.id, { contact: CONTACT, email: EMAIL });
      expect(deliveries.map((d) => [d.event, d.status])).toEqual([
        ['payment.captured', 200],
        ['order.paid', 200],
        ['payment_link.paid', 200],
      ]);
      expect(h.calls).toHaveLength(1);
      expect((await events(s.company.id)).map((e) => [e.event_type, e.status])).toEqual([
        ['payment.captured', 'acted'],
        ['order.paid', 'acted'],
        ['payment_link.paid', 'acted'],
      ]);
      expect(h.calls[0].binding).toMatchObject({ providerOrderId: link.id, purpose: 'payment_link', subjectId: 'ord_link_1', amount: '1299.00' });
      expect(h.calls[0].event).toMatchObject({ type: 'payment_link.paid', paymentLinkId: link.id, paymentId, providerOrderId: rzp.link(link.id)!.order_id });
    } finally {
      h.off();
    }
  });
});

describe('refusals: nothing recorded, nothing revealed', () => {
  it('a wrong signature, a changed body and a missing signature are 401 and record nothing', async () => {
    const s = await shop();
    const { order } = await boundOrder(s);
    const h = recorder();
    try {
      const [captured] = (await rzp.pay(order.id, { hold: true })).deliveries;
      const url = webhookUrl(s.company.slug);
      const wrong = await post(url, captured.body, {
        'x-razorpay-signature': razorpaySignature('not-the-secret', captured.body),
        'x-razorpay-event-id': captured.eventId,
      });
      const changed = captured.body.replace('"amount":49900', '"amount":100');
      expect(changed).not.toBe(captured.body);
      const tampered = await post(url, changed, { 'x-razorpay-signature': captured.signature, 'x-razorpay-event-id': captured.eventId });
      const unsigned = await post(url, captured.body, { 'x-razorpay-event-id': captured.eventId });
      for (const r of [wrong, tampered, unsigned]) expect(r).toMatchObject({ status: 401, json: { error: { code: 'unauthorized' } } });
      expect(await events(s.company.id)).toEqual([]);
      expect(h.calls).toEqual([]);
      // the genuine delivery still goes through afterwards
      expect(await rzp.deliver(captured)).toEqual([200]);
      expect(await events(s.company.id)).toHaveLength(1);
    } finally {
      h.off();
    }
  });

  it('an unknown company, and a company that takes no payments, get the very refusal a wrong signature gets', async () => {
    const s = await shop();
    const { order } = await boundOrder(s);
    const [captured] = (await rzp.pay(order.id, { hold: true })).deliveries;
    const headers = { 'x-razorpay-signature': razorpaySignature('not-the-secret', captured.body), 'x-razorpay-event-id': captured.eventId };
    const wrongSignature = await post(webhookUrl(s.company.slug), captured.body, headers);
    const { company: noPayments } = await createCompanyWithKey(ctx.services);
    const signedWithTheirs = { ...headers, 'x-razorpay-signature': captured.signature };
    const unknown = await post(webhookUrl('no-such-company-anywhere'), captured.body, signedWithTheirs);
    const notConfigured = await post(webhookUrl(noPayments.slug), captured.body, signedWithTheirs);
    expect(wrongSignature.status).toBe(401);
    expect(unknown).toEqual(wrongSignature);
    expect(notConfigured).toEqual(wrongSignature);
    expect(await events(s.company.id)).toEqual([]);
    expect(await events(noPayments.id)).toEqual([]);
  });

  it('a signed body that is not an event is 400, and records nothing', async () => {
    const s = await shop();
    const body = '{"entity":"event"}';
    const res = await post(webhookUrl(s.company.slug), body, {
      'x-razorpay-signature': razorpaySignature(s.webhookSecret, body),
      'x-razorpay-event-id': 'evt_x',
    });
    expect(res).toMatchObject({ status: 400, json: { error: { code: 'validation_failed' } } });
    expect(await events(s.company.id)).toEqual([]);
  });
});

describe('a handler that fails', () => {
  it('leaves the event recorded and answers 500, so Razorpay retries; the redelivery acts, and the service keeps serving', async () => {
    const s = await shop();
    const { order } = await boundOrder(s);
    let failing = true;
    const h = recorder(() => {
      if (failing) throw new Error(`checkout store unavailable for ${CONTACT}`);
    });
    try {
      const [captured] = (await rzp.pay(order.id, { hold: true })).deliveries;
      expect(await rzp.deliver(captured)).toEqual([500]);
      expect(await events(s.company.id)).toEqual([expect.objectContaining({ event_id: captured.eventId, status: 'recorded' })]);
      failing = false;
      expect(await rzp.deliver(captured)).toEqual([200]);
      expect(h.calls).toHaveLength(2);
      expect(await events(s.company.id)).toEqual([expect.objectContaining({ event_id: captured.eventId, status: 'acted' })]);
      // a handler that throws something that is not an Error is survived too
      const failed = await rzp.fail(order.id, { hold: true });
      const offOdd = ctx.services.payments.onEvent('payment_link', () => {
        throw 'a string, not an Error'; // eslint-disable-line @typescript-eslint/only-throw-error
      });
      try {
        expect(await rzp.deliver(failed)).toEqual([500]);
      } finally {
        offOdd();
      }
      expect((await fetch(`${origin}/healthz`)).status).toBe(200);
      const line = ctx.logs.find((l) => l.msg === 'request failed' && JSON.stringify(l).includes(captured.eventId));
      expect(line).toBeDefined();
      expect(JSON.stringify(line)).toContain('checkout store unavailable');
    } finally {
      h.off();
    }
  });

  it('the handler can put an event before staff: needs_attention with its reason', async () => {
    const s = await shop();
    const { order } = await boundOrder(s);
    const off = ctx.services.payments.onEvent('payment_link', (_c, event) =>
      event.type === 'payment.captured' ? { needsAttention: 'checkout expired before the payment: refund' } : undefined,
    );
    try {
      const { deliveries } = await rzp.pay(order.id);
      expect(deliveries.map((d) => d.status)).toEqual([200, 200]);
      expect((await events(s.company.id)).map((e) => [e.event_type, e.status, e.note])).toEqual(
        expect.arrayContaining([
          ['payment.captured', 'needs_attention', 'checkout expired before the payment: refund'],
          ['order.paid', 'acted', null],
        ]),
      );
    } finally {
      off();
    }
  });
});

describe('events nothing here is bound to', () => {
  it('money captured for an unbound order needs attention; a failed attempt is done with; no handler is called', async () => {
    const s = await shop();
    const unbound = await s.provider.createOrder({ amountPaise: 25_000, currency: 'INR', receipt: 'made-elsewhere' });
    const h = recorder();
    try {
      await rzp.fail(unbound.id);
      await rzp.pay(unbound.id);
      const rows = await events(s.company.id);
      expect(rows.map((e) => [e.event_type, e.status])).toEqual(
        expect.arrayContaining([
          ['payment.failed', 'acted'],
          ['payment.captured', 'needs_attention'],
          ['order.paid', 'needs_attention'],
        ]),
      );
      expect(rows.find((e) => e.event_type === 'payment.captured')!.note).toMatch(/refund/);
      expect(h.calls).toEqual([]);
    } finally {
      h.off();
    }
  });

  it('with no handler registered a bound event stays recorded', async () => {
    const s = await shop();
    const { order } = await boundOrder(s);
    const [captured] = (await rzp.pay(order.id, { hold: true })).deliveries;
    // a payment service of its own: the app's has the payment links' handler for this purpose
    const bare = createPaymentService({ db: ctx.db, config: ctx.config });
    const receipt = await bare.receiveWebhook(s.company.slug, Buffer.from(captured.body), { signature: captured.signature, eventId: captured.eventId });
    expect(receipt).toMatchObject({ status: 'recorded', repeated: false });
    expect((await events(s.company.id)).map((e) => e.status)).toEqual(['recorded']);
  });

  it('a capture carrying the payment-link note of an order with no link binding still needs attention', async () => {
    const s = await shop();
    const made = await s.provider.createOrder({
      amountPaise: 25_000,
      currency: 'INR',
      receipt: 'forged',
      notes: { [PAYMENT_LINK_ORDER_NOTE]: 'ord_not_bound' },
    });
    await rzp.pay(made.id);
    expect((await events(s.company.id)).map((e) => e.status)).toEqual(['needs_attention', 'needs_attention']);
  });
});

describe('what is kept and what is logged', () => {
  it("the stored payload has no contact, e-mail, card or VPA; the log has no secret and none of the buyer's data", async () => {
    const s = await shop();
    const { order } = await boundOrder(s);
    const h = recorder();
    try {
      await rzp.pay(order.id, { method: 'card', contact: CONTACT, email: EMAIL });
      const rows = await events(s.company.id);
      expect(rows).toHaveLength(2);
      const stored = JSON.stringify(rows.map((r) => r.payload));
      expect(stored).toContain(order.id);
      for (const gone of [CONTACT, '9812345678', EMAIL, 'Lakshmi Rao', '4366', 'okhdfcbank', '331234567890', '"contact":', '"email":', '"card":', '"vpa":']) {
        expect(stored, gone).not.toContain(gone);
      }
      const log = ctx.rawLogs();
      expect(log).toContain('"msg":"payment event"');
      for (const secret of [s.acct.keySecret, s.webhookSecret, CONTACT, '9812345678', EMAIL]) expect(log, secret).not.toContain(secret);
    } finally {
      h.off();
    }
  });
});

describe('a changed webhook secret', () => {
  it('still verifies deliveries signed with the previous one for the grace period, then no longer', async () => {
    const s = await shop();
    const { order } = await boundOrder(s);
    const [oldSigned] = (await rzp.pay(order.id, { hold: true })).deliveries;
    const view = await ctx.services.payments.configure(
      s.company.id,
      { kind: 'cli', name: 'test' },
      { provider: 'razorpay', webhookSecret: 'whsec-the-new-one-0001' },
    );
    expect(view.previous_webhook_secret_until).toBeInstanceOf(Date);
    const newSigned = { ...oldSigned, eventId: 'evt_new_secret_1', signature: razorpaySignature('whsec-the-new-one-0001', oldSigned.body) };
    expect(await rzp.deliver(oldSigned)).toEqual([200]);
    expect(await rzp.deliver(newSigned)).toEqual([200]);
    await ctx.db.query(sql`UPDATE payment_configs SET webhook_secret_changed_at = now() - interval '27 hours' WHERE company_id = ${s.company.id}`);
    expect(await rzp.deliver({ ...oldSigned, eventId: 'evt_old_secret_late' })).toEqual([401]);
    expect((await ctx.services.payments.show(s.company.id))!.previous_webhook_secret_until).toBeNull();
  });
});

describe('rate limit', () => {
  it('past PAYMENT_WEBHOOK_RATE_LIMIT deliveries per address and company in a window: 429 with Retry-After', async () => {
    const limited = await buildTestApp(ctx.db, { PAYMENT_WEBHOOK_RATE_LIMIT: '2' });
    try {
      const s = await shop();
      const url = `${ctx.config.BASE_PATH}/payments/razorpay/webhook/${s.company.slug}`;
      const send = (slug = s.company.slug) =>
        limited.app.inject({
          method: 'POST',
          url: url.replace(s.company.slug, slug),
          headers: { 'content-type': 'application/json', 'x-razorpay-signature': '0'.repeat(64) },
          payload: '{}',
        });
      expect((await send()).statusCode).toBe(401);
      expect((await send()).statusCode).toBe(401);
      const third = await send();
      expect(third.statusCode).toBe(429);
      expect(third.headers['retry-after']).toBeDefined();
      expect(third.json().error.code).toBe('rate_limited');
      // another company's budget is its own
      expect((await send('some-other-company')).statusCode).toBe(401);
    } finally {
      await limited.app.close();
    }
  });
});
