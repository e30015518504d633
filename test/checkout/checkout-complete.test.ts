import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { SQL } from 'drizzle-orm';
import { createAgentProfiles } from '../../src/checkout/agent-profile.js';
import { createCheckoutService } from '../../src/checkout/checkout.service.js';
import { paymentHandlers } from '../../src/checkout/ucp-profile.js';
import type { Db } from '../../src/db/index.js';
import { createOrderWriter } from '../../src/orders/order-writer.js';
import { writeCodSettings } from '../../src/cod/cod-settings.queries.js';
import { useTestApp } from '../helpers/app.js';
import { auditCompany } from '../helpers/audit.js';
import { count, get, listeningUrl, shop, stockRow, uid } from '../helpers/orders.js';

/**
 * Completing a UCP checkout over real HTTP: the order is one of POST /orders' kind (number, lookup, reservation),
 * its amount is the checkout's total with shipping and discount, its stock is the checkout's hold handed over, and a
 * checkout makes one order at most, however many completions race.
 */

// the conformance handlers too (mock_payment_handler), as a conformance run has them
const ctx = useTestApp({ UCP_TEST_HANDLERS: 'true' });

const IN_ADDRESS = {
  id: 'home',
  first_name: 'Asha',
  last_name: 'Rao',
  street_address: '12 MG Road',
  extended_address: 'Indiranagar',
  address_locality: 'Bengaluru',
  address_region: 'Karnataka',
  postal_code: '560038',
  address_country: 'IN',
};
const BUYER = { first_name: 'Asha', last_name: 'Rao', email: 'asha@example.in', phone_number: '+91 98765 43210' };
const COD = { payment_data: { id: 'instr_cod', handler_id: 'cod', type: 'cod' } };
const mock = (token: string) => ({
  payment_data: {
    id: 'instr_1',
    handler_id: 'mock_payment_handler',
    type: 'card',
    brand: 'Visa',
    last_digits: '1234',
    credential: { type: 'token', token },
  },
  risk_signals: {},
});

async function business(stock = '5') {
  const s = await shop(ctx, [{ sku: 'ROSE', name: 'Red Rose Bouquet', variants: [{ sku: 'ROSE-1', name: '12 stems', selling_price: '35.00', stock }] }], {
    company: { slug: `ucp-${uid()}` },
  });
  await ctx.services.ucpSettings.set(s.companyId, { kind: 'cli', name: 'test' }, { enabled: true });
  await ctx.services.shippingRates.create(
    s.companyId,
    { kind: 'cli', name: 'test' },
    {
      id: 'std-ship',
      title: 'Standard Shipping',
      level: 'standard',
      zone_kind: 'everywhere',
      price: '5.00',
    },
  );
  await ctx.services.discountCodes.create(s.companyId, { kind: 'cli', name: 'test' }, { code: '10OFF', title: '10% Off', kind: 'percentage', value: '10' });
  const path = (p: string) => `/ucp/${s.company.slug}/2026-01-11${p}`;
  const headers = (key: string, body: boolean) => ({
    'ucp-agent': 'profile="https://agent.example/profile.json"',
    'idempotency-key': key,
    ...(body ? { 'content-type': 'application/json' } : {}),
  });
  const call = async (method: 'GET' | 'POST' | 'PUT', p: string, payload?: unknown, key = uid()) => {
    const res = await ctx.app.inject({
      method,
      url: path(p),
      headers: headers(key, payload !== undefined),
      ...(payload ? { payload: JSON.stringify(payload) } : {}),
    });
    return { status: res.statusCode, body: res.json() };
  };
  /** The same call from another connection at once: a listening server, so requests truly overlap. */
  const fetchCall = async (p: string, payload: unknown, key = uid()) => {
    await listeningUrl(ctx);
    const { port } = ctx.app.server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${path(p)}`, { method: 'POST', headers: headers(key, true), body: JSON.stringify(payload) });
    return { status: res.status, body: await res.json() };
  };
  const reserved = async () => (await stockRow(ctx, s.companyId, s.variantIds['ROSE-1'])).reserved;
  /** A checkout ready to complete: `quantity` roses to an Indian address, standard shipping, 10OFF. */
  const ready = async (quantity = 3, buyer: object = BUYER, address: object = IN_ADDRESS) => {
    const created = await call('POST', '/checkout-sessions', {
      line_items: [{ item: { id: 'ROSE-1' }, quantity }],
      buyer,
      discounts: { codes: ['10OFF'] },
      fulfillment: { methods: [{ type: 'shipping', destinations: [address], selected_destination_id: (address as { id: string }).id }] },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const chosen = await call('PUT', `/checkout-sessions/${id}`, {
      line_items: [{ item: { id: 'ROSE-1' }, quantity }],
      fulfillment: { methods: [{ groups: [{ selected_option_id: 'std-ship' }] }] },
    });
    expect(chosen.body.status).toBe('ready_for_complete');
    return { id, body: chosen.body as { totals: { type: string; amount: number }[]; messages?: { type: string; path: string }[] } };
  };
  return { ...s, call, fetchCall, reserved, ready };
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

const total = (totals: { type: string; amount: number }[], type: string) => totals.find((t) => t.type === type)?.amount;

describe('UCP checkout completion', () => {
  it('cash on delivery: the checkout becomes a confirmed order of its total, the hold handed over as it is', async () => {
    const b = await business('5');
    const { id, body } = await b.ready(3);
    expect([total(body.totals, 'subtotal'), total(body.totals, 'fulfillment'), total(body.totals, 'discount'), total(body.totals, 'total')]).toEqual([
      10500, 500, 1050, 9950,
    ]);
    const [hold] = await ctx.db.query<{ id: string }>(
      sql`SELECT id FROM stock_reservations WHERE company_id = ${b.companyId} AND checkout_id = ${id} AND status = 'open'`,
    );

    const done = await b.call('POST', `/checkout-sessions/${id}/complete`, COD);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    expect(done.body.order.id).toMatch(/^ord_/);
    expect(done.body.order.permalink_url).toMatch(new RegExp(`/ucp/${b.company.slug}/2026-01-11/orders/${done.body.order.id}$`));
    expect(done.body.payment.instruments).toEqual([{ id: 'instr_cod', handler_id: 'cod', type: 'cod' }]);
    expect(done.body.messages ?? []).toEqual([]);

    // the order is an order like any other: found by its reference (the checkout id) with the company's key
    const lookup = await get(ctx, b.headers, `/orders/${id}`);
    expect(lookup.status).toBe(200);
    expect(lookup.body.data).toMatchObject({
      order_id: done.body.order.id,
      order_status: 'confirmed',
      amount: '99.50',
      external_reference: id,
      customer: { name: 'Asha Rao', phone: '+919876543210' },
    });
    expect(lookup.body.data.items).toEqual([expect.objectContaining({ sku: 'ROSE-1', quantity: '3.000' })]);
    const [order] = await ctx.db.query<Record<string, string>>(sql`
      SELECT payment, amount::text, discount_amount::text, shipping_amount::text, delivery_address->>'pincode' AS pincode, delivery_address->>'state' AS state
        FROM orders WHERE company_id = ${b.companyId} AND id = ${done.body.order.id}`);
    expect(order).toEqual({ payment: 'cod', amount: '99.50', discount_amount: '10.50', shipping_amount: '5.00', pincode: '560038', state: 'Karnataka' });

    // the hold became the order's reservation: the same row, reserved never moved
    const reservations = await ctx.db.query<{ id: string; order_id: string; status: string }>(
      sql`SELECT id, order_id, status FROM stock_reservations WHERE company_id = ${b.companyId} AND variant_id = ${b.variantIds['ROSE-1']}`,
    );
    expect(reservations.filter((r) => r.status === 'open')).toEqual([{ id: hold.id, order_id: done.body.order.id, status: 'open' }]);
    expect(await b.reserved()).toBe('3.000');
    await expectSound(b.companyId);
  });

  it('cash on delivery where the company confirms COD first: the order waits for its buyer (pending, the requested event, no booking)', async () => {
    const b = await business('5');
    await ctx.services.companies.update(b.companyId, { kind: 'cli', name: 'test' }, { auto_courier_booking: true });
    await writeCodSettings(ctx.db, b.companyId, { confirm_before_booking: true });
    const { id } = await b.ready(2);
    const done = await b.call('POST', `/checkout-sessions/${id}/complete`, COD);
    expect(done.body.status).toBe('completed');
    const lookup = await get(ctx, b.headers, `/orders/${id}`);
    expect(lookup.body.data.cod_confirmation).toMatchObject({ status: 'pending', settled_by: null });
    expect(await count(ctx, 'jobs', b.companyId)).toBe(0);
    const events = await ctx.db.query<{ type: string }>(sql`SELECT type FROM events WHERE company_id = ${b.companyId} ORDER BY seq`);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.cod_confirmation_requested']);
    expect(await b.reserved()).toBe('2.000');
  });

  it('the order at its permalink: lines, promised delivery and totals as completed, kept however the rates change; other orders are not there', async () => {
    const b = await business('5');
    const { id } = await b.ready(3);
    const done = await b.call('POST', `/checkout-sessions/${id}/complete`, COD);
    await ctx.services.shippingRates.remove(b.companyId, { kind: 'cli', name: 'test' }, 'std-ship');

    const url = new URL(done.body.order.permalink_url as string);
    const order = await b.call('GET', url.pathname.replace(`/ucp/${b.company.slug}/2026-01-11`, ''));
    expect(order.status).toBe(200);
    expect(order.body).toMatchObject({
      ucp: { version: '2026-01-11', capabilities: [{ name: 'dev.ucp.shopping.order', version: '2026-01-11' }] },
      id: done.body.order.id,
      checkout_id: id,
      permalink_url: done.body.order.permalink_url,
      line_items: [{ item: { id: 'ROSE-1', price: 3500 }, quantity: { total: 3, fulfilled: 0 }, status: 'processing' }],
      fulfillment: {
        expectations: [
          {
            line_items: [{ id: done.body.line_items[0].id, quantity: 3 }],
            method_type: 'shipping',
            destination: { postal_code: '560038' },
            description: 'Standard Shipping',
          },
        ],
        events: [],
      },
      adjustments: [],
    });
    expect(order.body.totals).toEqual(done.body.totals);
    expect(order.body.fulfillment.expectations[0].destination.id).toBeUndefined();
    // the completed checkout reads as it was completed, though its rate is gone now
    expect((await b.call('GET', `/checkout-sessions/${id}`)).body.totals).toEqual(done.body.totals);

    const other = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/commerce/orders',
      headers: b.headers,
      payload: {
        customer: { name: 'Asha Rao', phone: '+91 98765 43210' },
        items: [{ product_id: 'ROSE-1', quantity: 1 }],
        external_reference: `ext-${uid()}`,
      },
    });
    expect(other.statusCode).toBe(201);
    const hidden = await b.call('GET', `/orders/${other.json().data.order_id}`);
    expect(hidden.status).toBe(404);
    expect((await b.call('GET', '/orders/ord_nope')).status).toBe(404);
    await expectSound(b.companyId);
  });

  it('a checkout completes once: the same key replays the answer, another key is refused, and GET shows the order', async () => {
    const b = await business('5');
    const { id } = await b.ready(1);
    const key = uid();
    const first = await b.call('POST', `/checkout-sessions/${id}/complete`, COD, key);
    const replay = await b.call('POST', `/checkout-sessions/${id}/complete`, COD, key);
    expect([first.status, replay.status]).toEqual([200, 200]);
    expect(replay.body).toEqual(first.body);
    const again = await b.call('POST', `/checkout-sessions/${id}/complete`, COD);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('checkout_not_modifiable');
    expect((await b.call('PUT', `/checkout-sessions/${id}`, { line_items: [{ item: { id: 'ROSE-1' }, quantity: 2 }] })).status).toBe(409);
    expect((await b.call('POST', `/checkout-sessions/${id}/cancel`)).status).toBe(409);
    const read = await b.call('GET', `/checkout-sessions/${id}`);
    expect(read.body).toMatchObject({ status: 'completed', order: first.body.order });
    expect(await count(ctx, 'orders', b.companyId)).toBe(1);
    await expectSound(b.companyId);
  });

  it('truly parallel completions of one checkout, and a cancel among them: one order at most, never a sale and a cancel', async () => {
    const b = await business('8');
    for (let round = 0; round < 4; round++) {
      const { id } = await b.ready(2);
      const answers = await Promise.all([
        ...Array.from({ length: 5 }, () => b.fetchCall(`/checkout-sessions/${id}/complete`, COD)),
        b.fetchCall(`/checkout-sessions/${id}/cancel`, {}),
      ]);
      const completed = answers.slice(0, 5).filter((a) => a.status === 200);
      const canceled = answers[5].status === 200;
      expect(completed.length + (canceled ? 1 : 0), JSON.stringify(answers.map((a) => a.status))).toBe(1);
      for (const a of answers) if (a.status !== 200) expect(a.status).toBe(409);
      const orders = await ctx.db.query<{ id: string }>(sql`SELECT id FROM orders WHERE company_id = ${b.companyId} AND external_reference = ${id}`);
      expect(orders.length).toBe(completed.length);
      if (completed.length) expect(completed[0].body.order.id).toBe(orders[0].id);
    }
    await expectSound(b.companyId);
  });

  it('an update committed while the order is being placed: the completion is refused (409 checkout_changed) and writes nothing', async () => {
    const b = await business('5');
    const { id } = await b.ready(3);
    let updated: number | undefined;
    // the platform's update lands between the completion's read of the checkout and its order statement
    const db: Db = Object.assign(Object.create(ctx.db) as Db, {
      async query<T>(query: SQL, name?: string): Promise<T[]> {
        if (name === 'place_order' && updated === undefined)
          updated = (await b.call('PUT', `/checkout-sessions/${id}`, { line_items: [{ item: { id: 'ROSE-1' }, quantity: 1 }] })).status;
        return ctx.db.query<T>(query, name);
      },
    });
    const checkout = createCheckoutService({
      db,
      shippingRates: ctx.services.shippingRates,
      discountCodes: ctx.services.discountCodes,
      agentProfiles: createAgentProfiles({ policy: { allowHttp: false, allowPrivate: false } }),
      orderWriter: createOrderWriter({ db }),
      paymentHandlers: async () => paymentHandlers({ testHandlers: false }),
      payments: ctx.services.payments,
      codRules: ctx.services.codRules,
    });
    const business_ = (await ctx.services.ucpSettings.bySlug(b.company.slug))!;
    const err = await checkout.complete(business_, id, COD).catch((e: unknown) => e);
    expect(updated).toBe(200);
    expect(err).toMatchObject({ status: 409, code: 'checkout_changed' });
    expect(await count(ctx, 'orders', b.companyId)).toBe(0);
    expect(await b.reserved()).toBe('1.000');

    // read again, complete again: the order is what the buyer last agreed to
    const done = await b.call('POST', `/checkout-sessions/${id}/complete`, COD);
    expect(done.status).toBe(200);
    expect((await get(ctx, b.headers, `/orders/${id}`)).body.data.items[0].quantity).toBe('1.000');
    await expectSound(b.companyId);
  });

  it('refuses before anything is written: not ready (400), no mobile number (400), a handler not offered (400), COD abroad (400), no street (400)', async () => {
    const b = await business('6');
    const bare = await b.call('POST', '/checkout-sessions', { line_items: [{ item: { id: 'ROSE-1' }, quantity: 1 }] });
    const notReady = await b.call('POST', `/checkout-sessions/${bare.body.id}/complete`, COD);
    expect(notReady.status).toBe(400);
    expect(notReady.body.detail).toContain('Fulfillment address and option must be selected');

    const { id: noPhone, body: noPhoneBody } = await b.ready(1, { email: 'nophone@example.in' });
    expect(noPhoneBody.messages).toEqual([expect.objectContaining({ type: 'warning', path: '$.buyer.phone_number' })]);
    const phoneless = await b.call('POST', `/checkout-sessions/${noPhone}/complete`, COD);
    expect(phoneless.status).toBe(400);
    expect(phoneless.body.messages[0]).toMatchObject({ code: 'missing', path: '$.buyer.phone_number' });

    const { id } = await b.ready(1);
    const unknown = await b.call('POST', `/checkout-sessions/${id}/complete`, { payment_data: { handler_id: 'bitcoin' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.messages[0]).toMatchObject({ code: 'invalid_payment', path: '$.payment_data.handler_id' });
    const noBody = await b.call('POST', `/checkout-sessions/${id}/complete`, {});
    expect(noBody.status).toBe(400);
    expect(noBody.body.messages[0].path).toBe('$.payment_data');

    const { id: abroad } = await b.ready(1, BUYER, {
      id: 'us',
      street_address: '1 Main St',
      address_locality: 'Springfield',
      postal_code: '62704',
      address_country: 'US',
    });
    const cod = await b.call('POST', `/checkout-sessions/${abroad}/complete`, COD);
    expect(cod.status).toBe(400);
    expect(cod.body.detail).toContain('India');

    const { id: noStreet } = await b.ready(1, BUYER, { id: 'pin', postal_code: '560038', address_country: 'IN' });
    const street = await b.call('POST', `/checkout-sessions/${noStreet}/complete`, COD);
    expect(street.status).toBe(400);
    expect(street.body.messages[0]).toMatchObject({ code: 'invalid_address', path: '$.fulfillment' });

    expect(await count(ctx, 'orders', b.companyId)).toBe(0);
    expect(await b.reserved()).toBe('5.000'); // the five checkouts still hold their stock
    await expectSound(b.companyId);
  });

  it("cash on delivery breaking the company's COD rules is refused (400 invalid_payment) with the hold kept; prepaid is not touched", async () => {
    const b = await business('5');
    await ctx.services.codSettings.set(b.companyId, { kind: 'cli', name: 'test' }, { blocked_pincodes: ['560038'], max_order_value: '1' });
    const { id } = await b.ready(2);
    const refused = await b.call('POST', `/checkout-sessions/${id}/complete`, COD);
    expect(refused.status).toBe(400);
    expect(refused.body.messages[0]).toMatchObject({ code: 'invalid_payment', path: '$.payment_data.handler_id' });
    expect(refused.body.messages[0].content).toContain('PIN code 560038');
    expect(refused.body.messages[0].content).toContain('up to 1.00 INR');
    expect(await count(ctx, 'orders', b.companyId)).toBe(0);
    expect(await b.reserved()).toBe('2.000');
    expect((await b.call('GET', `/checkout-sessions/${id}`)).body.status).toBe('ready_for_complete');
    // the same checkout paid now is placed; once the rules allow it, another completes with COD
    expect((await b.call('POST', `/checkout-sessions/${id}/complete`, mock('success_token'))).body.status).toBe('completed');
    await ctx.services.codSettings.set(b.companyId, { kind: 'cli', name: 'test' }, { blocked_pincodes: [], max_order_value: null });
    const { id: later } = await b.ready(1);
    expect((await b.call('POST', `/checkout-sessions/${later}/complete`, COD)).body.status).toBe('completed');
    await expectSound(b.companyId);
  });

  it('a declined payment (402) leaves the checkout ready with its hold; an approved one completes it prepaid', async () => {
    const b = await business('5');
    const { id } = await b.ready(2);
    const declined = await b.call('POST', `/checkout-sessions/${id}/complete`, mock('fail_token'));
    expect(declined.status).toBe(402);
    expect(declined.body.code).toBe('payment_declined');
    expect((await b.call('GET', `/checkout-sessions/${id}`)).body.status).toBe('ready_for_complete');
    expect(await b.reserved()).toBe('2.000');
    expect(await count(ctx, 'orders', b.companyId)).toBe(0);

    const paid = await b.call('POST', `/checkout-sessions/${id}/complete`, mock('success_token'));
    expect(paid.status).toBe(200);
    expect(paid.body.payment.instruments).toEqual([{ id: 'instr_1', handler_id: 'mock_payment_handler', type: 'card', brand: 'Visa', last_digits: '1234' }]);
    // the credential is neither echoed nor kept
    const [kept] = await ctx.db.query<{ payment: string; view: string }>(
      sql`SELECT payment::text, completed_view::text AS view FROM checkout_sessions WHERE company_id = ${b.companyId} AND id = ${id}`,
    );
    expect(`${kept.payment} ${kept.view} ${JSON.stringify(paid.body.payment.instruments)}`).not.toContain('success_token');
    const [order] = await ctx.db.query<{ payment: string; payment_reference: string }>(
      sql`SELECT payment, payment_reference FROM orders WHERE company_id = ${b.companyId} AND id = ${paid.body.order.id}`,
    );
    expect(order).toEqual({ payment: 'prepaid', payment_reference: `mock_${id}` });
    await expectSound(b.companyId);
  });

  it('a buyer abroad completes without a phone (or a name): a prepaid order, its own customer without a number, no courier booked', async () => {
    const b = await business('5');
    await ctx.db.query(sql`UPDATE companies SET auto_courier_booking = true WHERE id = ${b.companyId}`);
    const US = { id: 'us', address_country: 'US' };
    const { id: first, body } = await b.ready(1, {}, US);
    expect(body.messages ?? []).toEqual([]); // no warning: a number is needed only for delivery in India
    const a = await b.call('POST', `/checkout-sessions/${first}/complete`, mock('success_token'));
    expect(a.status).toBe(200);
    const { id: second } = await b.ready(1, { email: 'jane.smith@example.com' }, { ...US, street_address: '1 Main St', postal_code: '62704' });
    const c = await b.call('POST', `/checkout-sessions/${second}/complete`, mock('success_token'));
    expect(c.status).toBe(200);

    const orders = await ctx.db.query<Record<string, unknown>>(sql`
      SELECT o.payment, o.delivery_address->>'country' AS country, c.phone_e164, c.email, c.name
        FROM orders o JOIN customers c ON c.company_id = o.company_id AND c.id = o.customer_id
       WHERE o.company_id = ${b.companyId} ORDER BY o.created_at`);
    expect(orders).toEqual([
      { payment: 'prepaid', country: 'US', phone_e164: null, email: null, name: 'Customer' },
      { payment: 'prepaid', country: 'US', phone_e164: null, email: 'jane.smith@example.com', name: 'jane.smith@example.com' },
    ]);
    // two phone-less buyers are two customers; no courier is booked for a parcel abroad
    expect(await count(ctx, 'customers', b.companyId)).toBe(2);
    expect(await count(ctx, 'jobs', b.companyId)).toBe(0);
    // the order reads with the company's key, its customer without a number
    const lookup = await get(ctx, b.headers, `/orders/${first}`);
    expect(lookup.status).toBe(200);
    expect(lookup.body.data.customer).toMatchObject({ name: 'Customer', phone: null });
    expect(await b.reserved()).toBe('2.000');
    await expectSound(b.companyId);
  });

  it('an expired checkout is refused with 409 and writes nothing', async () => {
    const b = await business('2');
    const { id } = await b.ready(2);
    await ctx.db.query(sql`UPDATE checkout_sessions SET expires_at = now() - interval '1 second' WHERE company_id = ${b.companyId} AND id = ${id}`);
    const expired = await b.call('POST', `/checkout-sessions/${id}/complete`, COD);
    expect(expired.status).toBe(409);
    expect(expired.body.code).toBe('checkout_expired');
    expect(await count(ctx, 'orders', b.companyId)).toBe(0);
    await expectSound(b.companyId);
  });
});
