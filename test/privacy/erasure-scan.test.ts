import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrderEventsWorker } from '../../src/checkout/order-events-worker.js';
import { draftOrderBody } from '../../src/contract/orders.js';
import { EVENT_TYPES } from '../../src/contract/webhooks.js';
import { acrossCompanies } from '../helpers/across-companies.js';
import { useTestApp, type TestApp } from '../helpers/app.js';
import { BASE, get, post, shop, uid } from '../helpers/orders.js';
import { fakeRazorpay, type FakeRazorpay } from '../helpers/razorpay.js';
import { webhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * Erasure proven by looking: a customer with orders in every status, an invoice and a credit note with their PDFs drawn,
 * webhook events and deliveries, two UCP checkouts completed over the public UCP door (one cash on delivery, one paid
 * through the Razorpay simulator's signed webhook), one canceled, and one left open by the buyer giving only a phone as
 * typed and another street, the saved buyer addresses and the idempotent answers those calls left, the UCP order events
 * owed to the platform, and a COD order paid through a payment link, is erased over REST; then every text, varchar,
 * json, jsonb and array column of every table the database has (found in information_schema, so a future table is
 * scanned too) and every log line the service wrote are searched for the customer's name, phone (E.164, with the
 * country code, national, spaced), e-mail and address lines. Another company's customer of the same name and phone is
 * untouched, and so is another buyer of the same company with the same first name and locality (their saved address,
 * checkout and idempotent answers).
 */
const ctx = useTestApp({
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
  WEBHOOK_WORKER_ENABLED: 'false',
  PAYMENT_API_ALLOW_LOCAL: 'true',
});

// Razorpay (the simulator, its webhooks sent to the listening app) and a UCP platform (its profile naming its webhook)
let rzp: FakeRazorpay;
let platform: Awaited<ReturnType<typeof webhookReceiver>>;
let profileServer: Server;
let profileUrl: string;
let origin: string;
beforeAll(async () => {
  rzp = await fakeRazorpay();
  platform = await webhookReceiver();
  profileServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ucp: { version: '2026-01-11', capabilities: [{ name: 'dev.ucp.shopping.order', version: '2026-01-11', config: { webhook_url: platform.url } }] },
      }),
    );
  });
  await new Promise<void>((r) => profileServer.listen(0, '127.0.0.1', r));
  profileUrl = `http://127.0.0.1:${(profileServer.address() as AddressInfo).port}/profile.json`;
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await rzp?.close();
  await platform?.close();
  await new Promise((r) => profileServer?.close(r));
});

interface Person {
  name: string;
  first: string;
  last: string;
  phone: string;
  e164: string;
  national: string;
  email: string;
  line1: string;
  line2: string;
  /** a street the person gave only in an open checkout, on no order */
  line3: string;
}

/** A person no fixture shares: random letters in every value, a random mobile number. */
function person(): Person {
  const tag = uid().replace(/\d/g, 'q');
  const digits = String(Math.floor(1e9 * (1 + Math.random()))).slice(1, 10);
  const national = `9${digits}`;
  return {
    name: `Zephyrine ${tag} Quillfeather`,
    first: 'Zephyrine',
    last: `${tag} Quillfeather`,
    phone: `+91 ${national.slice(0, 5)} ${national.slice(5)}`,
    e164: `+91${national}`,
    national,
    email: `zeph.${tag}@dpdp-scan.test`,
    line1: `77 Marigold ${tag} Lane`,
    line2: `Vellum ${tag} Cross`,
    line3: `9 Hollyhock ${tag} Mews`,
  };
}

/** What the scan looks for: the name, the phone as stored and as typed (E.164, with the country code, national, spaced), the e-mail and address lines. */
const needles = (p: Person) =>
  [p.name, p.e164, `91${p.national}`, p.national, p.phone.slice(4), p.email, p.line1, p.line2, p.line3].map((n) => n.toLowerCase());

async function privacyHeaders(t: TestApp, companyId: string) {
  const { key } = await t.services.keys.create(companyId, { kind: 'cli', name: 'test' }, 'privacy admin', ['privacy']);
  return { 'x-api-key': key };
}

/**
 * A company selling tees: over REST, and over UCP (enabled, one shipping rate) with Razorpay configured against the
 * simulator, whose signed webhooks reach the listening app.
 */
async function shopWith(t: TestApp, price = '499.00') {
  const s = await shop(t, [{ sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', selling_price: price, stock: '100' }] }], {
    company: { slug: `dpdp-${uid()}` },
  });
  await t.services.ucpSettings.set(s.companyId, { kind: 'cli', name: 'test' }, { enabled: true });
  await t.services.shippingRates.create(
    s.companyId,
    { kind: 'cli', name: 'test' },
    { id: 'std', title: 'Standard', level: 'standard', zone_kind: 'everywhere', price: '50.00' },
  );
  const acct = rzp.account();
  const webhookSecret = `whsec-${s.company.slug}-secret`;
  await t.services.payments.configure(
    s.companyId,
    { kind: 'cli', name: 'test' },
    { provider: 'razorpay', keyId: acct.keyId, keySecret: acct.keySecret, webhookSecret, baseUrl: rzp.url },
  );
  rzp.webhook(acct, `${origin}${t.config.BASE_PATH}/payments/razorpay/webhook/${s.company.slug}`, webhookSecret);
  return s;
}

function orderFor(p: Person, extra: Record<string, unknown> = {}) {
  return {
    customer: { name: p.name, phone: p.phone, email: p.email },
    items: [{ product_id: 'TEE-M', quantity: 1 }],
    external_reference: `wa-91${p.national}-${uid()}`,
    notes: `Ring ${p.name} on ${p.phone} before delivery`,
    delivery_address: { name: p.name, line1: p.line1, line2: p.line2, city: 'Bengaluru', pincode: '560038', phone: p.phone },
    ...extra,
  };
}

type Shop = Awaited<ReturnType<typeof shopWith>>;
interface OrderRef {
  ref: string;
  id: string;
}

/** Moves a confirmed order through the real services to `status`. */
async function moveTo(t: TestApp, s: Shop, ref: string, status: string): Promise<void> {
  const { fulfilment } = t.services;
  if (status === 'confirmed') return;
  if (status === 'packed' || status === 'cancelled') return void (await fulfilment.move(s.companyId, ref, status));
  const awb = `AWB${uid()}`;
  await fulfilment.ship(s.companyId, ref, { awb });
  if (status === 'shipped') return;
  await fulfilment.track(s.companyId, { awb }, 'delivered', { source: 'callback' });
  if (status === 'returned') await fulfilment.move(s.companyId, ref, 'returned');
}

/** An order of `p` moved through the real services to `status`; its order number and id. */
async function orderIn(t: TestApp, s: Shop, p: Person, status: string): Promise<OrderRef> {
  if (status === 'draft') {
    const draft = await t.services.fulfilment.createDraft(s.companyId, draftOrderBody.parse(orderFor(p)));
    return { ref: draft.order_number, id: draft.order_id };
  }
  const placed = await post(t, s.headers, orderFor(p));
  if (placed.status !== 201) throw new Error(`order not placed: ${JSON.stringify(placed.body)}`);
  const ref: string = placed.body.data.order_number;
  await moveTo(t, s, ref, status);
  return { ref, id: placed.body.data.order_id };
}

/** The UCP door of the company, as a platform calls it: its agent profile named, an Idempotency-Key on every call. */
function ucpDoor(t: TestApp, s: Shop) {
  return async (method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown) => {
    const res = await t.app.inject({
      method,
      url: `/ucp/${s.company.slug}/2026-01-11${path}`,
      headers: {
        'ucp-agent': `profile="${profileUrl}"`,
        'idempotency-key': uid(),
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });
    return { status: res.statusCode, body: res.json() };
  };
}

/**
 * A UCP checkout of `p` (buyer and shipping destination as a platform sends them) brought to ready_for_complete; with
 * `phoneOnly` the buyer gives a name and phone (as typed, with spaces) and no e-mail, and ships to another street of
 * theirs (line3) in Indiranagar.
 */
async function ucpReady(t: TestApp, s: Shop, p: Person, phoneOnly = false): Promise<string> {
  const call = ucpDoor(t, s);
  const destination = {
    id: 'home',
    first_name: p.first,
    last_name: p.last,
    street_address: phoneOnly ? p.line3 : p.line1,
    extended_address: phoneOnly ? 'Indiranagar' : p.line2,
    address_locality: 'Bengaluru',
    address_region: 'Karnataka',
    postal_code: '560038',
    address_country: 'IN',
  };
  const created = await call('POST', '/checkout-sessions', {
    line_items: [{ item: { id: 'TEE-M' }, quantity: 1 }],
    buyer: { first_name: p.first, last_name: p.last, ...(phoneOnly ? {} : { email: p.email }), phone_number: p.phone },
    fulfillment: { methods: [{ type: 'shipping', destinations: [destination], selected_destination_id: 'home' }] },
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const chosen = await call('PUT', `/checkout-sessions/${id}`, {
    line_items: [{ item: { id: 'TEE-M' }, quantity: 1 }],
    fulfillment: { methods: [{ groups: [{ selected_option_id: 'std' }] }] },
  });
  expect(chosen.body.status).toBe('ready_for_complete');
  return id;
}

/** The order a completed checkout made: its number and id, read with the company's key. */
async function ucpOrder(t: TestApp, s: Shop, checkoutId: string): Promise<OrderRef> {
  const found = await get(t, s.headers, `/orders/${checkoutId}`);
  expect(found.status).toBe(200);
  return { ref: found.body.data.order_number, id: found.body.data.order_id };
}

/** A UCP checkout completed cash on delivery: a confirmed order of the customer. */
async function ucpCod(t: TestApp, s: Shop, p: Person, phoneOnly = false): Promise<OrderRef & { checkoutId: string }> {
  const id = await ucpReady(t, s, p, phoneOnly);
  const done = await ucpDoor(t, s)('POST', `/checkout-sessions/${id}/complete`, { payment_data: { id: 'instr_cod', handler_id: 'cod', type: 'cod' } });
  expect(done.body.status).toBe('completed');
  return { ...(await ucpOrder(t, s, id)), checkoutId: id };
}

/**
 * A UCP checkout completed with Razorpay: escalated to the pay page, then paid at the simulator, whose signed
 * payment.captured and order.paid (with the buyer's e-mail and phone, as Razorpay sends them) complete it prepaid.
 */
async function ucpRazorpay(t: TestApp, s: Shop, p: Person): Promise<OrderRef & { checkoutId: string }> {
  const id = await ucpReady(t, s, p);
  const call = ucpDoor(t, s);
  const escalated = await call('POST', `/checkout-sessions/${id}/complete`, {
    payment_data: { id: 'instr_rzp', handler_id: 'razorpay', type: 'hosted_checkout' },
  });
  expect(escalated.body.status).toBe('requires_escalation');
  const [binding] = await t.db.query<{ provider_order_id: string }>(
    sql`SELECT provider_order_id FROM payment_bindings WHERE company_id = ${s.companyId} AND purpose = 'checkout' AND subject_id = ${id}`,
  );
  const paid = await rzp.pay(binding.provider_order_id, { email: p.email, contact: p.e164 });
  expect(paid.deliveries.map((d) => d.status)).toEqual([200, 200]);
  expect((await call('GET', `/checkout-sessions/${id}`)).body.status).toBe('completed');
  return { ...(await ucpOrder(t, s, id)), checkoutId: id };
}

/** A COD order paid through a payment link made over REST and paid at the simulator (its three signed webhooks). */
async function paidByLink(t: TestApp, s: Shop, p: Person): Promise<OrderRef> {
  const placed = await post(t, s.headers, orderFor(p, { payment: 'cod' }));
  expect(placed.status).toBe(201);
  const o: OrderRef = { ref: placed.body.data.order_number, id: placed.body.data.order_id };
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/orders/${o.ref}/payment-link`,
    headers: { ...s.headers, 'content-type': 'application/json' },
    payload: JSON.stringify({ phone: p.phone }),
  });
  expect(res.statusCode).toBe(201);
  const paid = await rzp.pay(res.json().data.link_id as string, { email: p.email, contact: p.e164 });
  expect(paid.deliveries.map((d) => d.status)).toEqual([200, 200, 200]);
  const [after] = await t.db.query<{ payment: string }>(sql`SELECT payment FROM orders WHERE company_id = ${s.companyId} AND id = ${o.id}`);
  expect(after.payment).toBe('prepaid');
  return o;
}

/** What outsiders write back: a delivery's error echoing a body, and a courier's note naming the buyer. */
async function outsidersEcho(t: TestApp, companyId: string, p: Person, orderIds: string[]) {
  const theirs = sql.param(orderIds);
  await t.db.query(
    sql`UPDATE webhook_deliveries SET last_error = ${`HTTP 400: {"name":"${p.name}"}`} WHERE company_id = ${companyId} AND subject_id = ANY(${theirs}::text[])`,
  );
  await t.db.query(sql`
    UPDATE shipment_events SET note = ${`handed to ${p.name}, ${p.line1}`}
     WHERE company_id = ${companyId} AND shipment_id IN (SELECT id FROM shipments WHERE company_id = ${companyId} AND order_id = ANY(${theirs}::text[]))`);
}

/** Every text-like column of every table in the database (the migrator's bookkeeping aside). */
async function textColumns(t: TestApp) {
  return t.db.query<{ table_name: string; column_name: string; has_company: boolean }>(sql`
    SELECT c.table_name, c.column_name,
           EXISTS (SELECT 1 FROM information_schema.columns k WHERE k.table_schema = c.table_schema AND k.table_name = c.table_name AND k.column_name = 'company_id') AS has_company
      FROM information_schema.columns c
      JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name AND tb.table_type = 'BASE TABLE'
     WHERE c.table_schema = current_schema() AND c.table_name NOT IN ('__drizzle_migrations')
       AND (c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb') OR (c.data_type = 'ARRAY' AND c.udt_name IN ('_text', '_varchar')))
     ORDER BY 1, 2`);
}

/** Where any needle still sits: "table.column: needle" for each hit, other companies' rows (given) left out. */
async function scan(t: TestApp, words: string[], exceptCompanies: string[], skip: (table: string, column: string) => boolean = () => false) {
  const hits: string[] = [];
  const columns = await textColumns(t);
  expect(columns.length).toBeGreaterThan(100);
  for (const c of columns) {
    if (skip(c.table_name, c.column_name)) continue;
    const others = c.has_company ? sql`AND company_id <> ALL(${sql.param(exceptCompanies)}::text[])` : sql``;
    // one aggregate per column, a flag per needle (Citus runs it on every shard; it takes no correlated subquery)
    const flags = words.map(
      (w, i) => sql`coalesce(bool_or(strpos(lower(${sql.identifier(c.column_name)}::text), ${w}) > 0), false) AS ${sql.identifier(`w${i}`)}`,
    );
    const [row] = await acrossCompanies<Record<string, boolean>>(
      t.db,
      sql`
      SELECT ${sql.join(flags, sql`, `)} FROM ${sql.identifier(c.table_name)} WHERE true ${others}`,
    );
    words.forEach((w, i) => {
      if (row[`w${i}`]) hits.push(`${c.table_name}.${c.column_name}: ${w}`);
    });
  }
  return hits;
}

const erase = async (t: TestApp, headers: Record<string, string>, body: unknown) => {
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/privacy/erasures`,
    headers: { ...headers, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.json() };
};

describe('erasure over REST, proven by scanning the whole database and the logs', () => {
  it('leaves no trace of the customer anywhere but what the law keeps, and touches no other company', async () => {
    const p = person();
    const s = await shopWith(ctx);
    const other = await shopWith(ctx);
    await ctx.services.webhooks.create(
      s.companyId,
      { kind: 'cli', name: 'test' },
      { url: 'http://127.0.0.1:9/hook', events: [...EVENT_TYPES], description: null },
    );

    const orders: Record<string, OrderRef> = {};
    for (const status of ['draft', 'confirmed', 'packed', 'shipped', 'delivered', 'cancelled', 'returned']) orders[status] = await orderIn(ctx, s, p, status);
    // the same person is a customer of another company too
    const theirs = await orderIn(ctx, other, p, 'delivered');

    await ctx.services.fulfilment.invoicePdf(s.companyId, orders.delivered.ref);
    await ctx.services.fulfilment.invoicePdf(s.companyId, orders.returned.ref, 'credit_note');
    await ctx.services.customers.setMessagingOptOut(s.companyId, p.phone, true);

    // over the UCP door: a checkout completed cash on delivery, one paid through Razorpay, one left open; the platform
    // is told of the orders (ucp_order_deliveries, sent by the worker)
    const ucpCodOrder = await ucpCod(ctx, s, p);
    const ucpPaidOrder = await ucpRazorpay(ctx, s, p);
    const openCheckout = await ucpReady(ctx, s, p, true);
    const abandoned = await ucpReady(ctx, s, p);
    expect((await ucpDoor(ctx, s)('POST', `/checkout-sessions/${abandoned}/cancel`, {})).body.status).toBe('canceled');
    // another buyer of the company, of the same first name, whose saved address is in Indiranagar too: left as it is
    const q = person();
    const hers = await ucpCod(ctx, s, q, true);
    const herRows = () =>
      Promise.all([
        ctx.db.query(sql`SELECT buyer_key, address FROM buyer_addresses WHERE company_id = ${s.companyId} AND buyer_key = ${`phone:${q.e164}`}`),
        ctx.db.query(sql`SELECT status, buyer, fulfillment FROM checkout_sessions WHERE company_id = ${s.companyId} AND id = ${hers.checkoutId}`),
        ctx.db.query(sql`SELECT scope, response FROM idempotency_records WHERE company_id = ${s.companyId} AND strpos(response, ${hers.checkoutId}) > 0
                          ORDER BY scope, key`),
      ]);
    const herBefore = await herRows();
    expect(herBefore.map((rows) => rows.length)).toEqual([1, 1, 3]);
    orders.ucp_cod = ucpCodOrder;
    orders.ucp_prepaid = ucpPaidOrder;
    const worker = createOrderEventsWorker({
      db: ctx.db,
      config: ctx.config,
      checkout: ctx.services.checkout,
      origin: () => origin,
      log: ctx.workerLog('ucp-order-events'),
    });
    await worker.drainNow();
    // a COD order the buyer paid through a payment link, then delivered
    orders.paid_by_link = await paidByLink(ctx, s, p);
    await moveTo(ctx, s, orders.paid_by_link.ref, 'delivered');
    await outsidersEcho(
      ctx,
      s.companyId,
      p,
      Object.values(orders).map((o) => o.id),
    );

    const found = await get(ctx, s.headers, `/customers?phone=${encodeURIComponent(p.phone)}`);
    expect(found.status).toBe(200);
    const customerId: string = found.body.data.customer_id;
    // the flows made what the scan looks at: rows of this customer's orders and checkouts
    const made = async (q: ReturnType<typeof sql>) => (await ctx.db.query<{ n: number }>(q))[0].n;
    expect(await made(sql`SELECT count(*)::int AS n FROM orders WHERE company_id = ${s.companyId} AND customer_id = ${customerId}`)).toBe(10);
    expect(await made(sql`SELECT count(*)::int AS n FROM checkout_sessions WHERE company_id = ${s.companyId} AND id <> ${hers.checkoutId}`)).toBe(4);
    expect(
      await made(
        sql`SELECT count(*)::int AS n FROM ucp_order_deliveries WHERE company_id = ${s.companyId} AND order_id IN (${ucpCodOrder.id}, ${ucpPaidOrder.id})`,
      ),
    ).toBe(2);
    expect(await made(sql`SELECT count(*)::int AS n FROM payment_events WHERE company_id = ${s.companyId}`)).toBe(5);
    expect(platform.state.received.length).toBe(3);
    // Razorpay's webhooks carried the buyer's e-mail and phone; what payment_events keeps of them is an allowlist without them
    const sent = rzp.state.deliveries.filter((d) => d.body.includes(p.email) && d.body.includes(p.e164));
    expect(sent).toHaveLength(5);

    // before: the scan finds the person (the test can fail)
    const before = await scan(ctx, needles(p), [other.companyId]);
    expect(before.length).toBeGreaterThan(10);
    for (const table of ['customers', 'orders', 'events', 'checkout_sessions', 'buyer_addresses', 'idempotency_records', 'invoices'])
      expect(
        before.some((h) => h.startsWith(`${table}.`)),
        table,
      ).toBe(true);
    expect(before.filter((h) => h.startsWith('payment_events.'))).toEqual([]);

    const headers = await privacyHeaders(ctx, s.companyId);
    const refused = await erase(ctx, headers, { phone: p.phone });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect(refused.body.error.details.map((d: { message: string }) => d.message).sort()).toEqual(
      [
        `${orders.draft.ref} is draft`,
        `${orders.confirmed.ref} is confirmed`,
        `${orders.packed.ref} is packed`,
        `${orders.shipped.ref} is shipped`,
        `${orders.ucp_cod.ref} is confirmed`,
        `${orders.ucp_prepaid.ref} is confirmed`,
      ].sort(),
    );

    const done = await erase(ctx, headers, { phone: p.phone, cancel_open_orders: true });
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ customer_id: customerId, already_erased: false });
    expect(done.body.data.cancelled_orders.sort()).toEqual(
      [orders.draft.ref, orders.confirmed.ref, orders.packed.ref, orders.ucp_cod.ref, orders.ucp_prepaid.ref].sort(),
    );
    expect(done.body.data.erased).toMatchObject({
      customers: 1,
      orders: 10,
      checkout_sessions: 4,
      buyer_addresses: 2,
      payment_events: 0,
      document_files: 2,
    });
    expect(done.body.data.erased.idempotency_records).toBeGreaterThanOrEqual(7);
    expect(done.body.data.retained.length).toBe(3);
    // the open checkout is canceled and its hold released
    const [open] = await ctx.db.query<{ status: string }>(sql`SELECT status FROM checkout_sessions WHERE company_id = ${s.companyId} AND id = ${openCheckout}`);
    expect(open.status).toBe('canceled');
    expect(await herRows()).toEqual(herBefore);

    // after: nowhere in the database, nowhere in the logs
    expect(await scan(ctx, needles(p), [other.companyId])).toEqual([]);
    const logs = ctx.rawLogs().toLowerCase();
    expect(needles(p).filter((n) => logs.includes(n))).toEqual([]);

    // what the law keeps: the invoice's number, amounts and place of supply; the buyer reads the placeholder
    const [invoice] = await ctx.db.query<{
      document: { buyer: { name: string; phone: string | null; address: string[] }; place_of_supply: unknown; totals: { total: string } };
    }>(sql`SELECT document FROM invoices WHERE company_id = ${s.companyId} AND order_id = ${orders.delivered.id}`);
    expect(invoice.document.buyer).toEqual({ name: 'Erased customer', phone: null, address: [] });
    expect(invoice.document.place_of_supply).toEqual({ state: 'Karnataka', state_code: '29' });
    expect(invoice.document.totals.total).toBe('499.00');
    // the PDF is drawn again from the kept invoice
    const pdf = await ctx.services.fulfilment.invoicePdf(s.companyId, orders.delivered.ref);
    expect(pdf.pdf.length).toBeGreaterThan(1000);
    // the shipped order goes on to its delivery with the courier
    const [shipped] = await ctx.db.query<{ status: string; delivery_address: Record<string, unknown> }>(
      sql`SELECT status, delivery_address FROM orders WHERE company_id = ${s.companyId} AND id = ${orders.shipped.id}`,
    );
    expect(shipped).toEqual({
      status: 'shipped',
      delivery_address: { name: null, line1: 'Erased customer', line2: null, city: 'Bengaluru', state: 'Karnataka', pincode: '560038', phone: null },
    });

    // the other company's customer is as it was
    const theirCustomer = await get(ctx, other.headers, `/customers?phone=${encodeURIComponent(p.phone)}`);
    expect(theirCustomer.body.data).toMatchObject({ name: p.name, phone: p.e164, email: p.email });
    const theirOrder = await get(ctx, other.headers, `/orders/${theirs.ref}`);
    expect(theirOrder.body.data.customer.name).toBe(p.name);

    // erased: not found by phone; a new order with the phone is a new customer; erasing again changes nothing
    expect((await get(ctx, s.headers, `/customers?phone=${encodeURIComponent(p.phone)}`)).status).toBe(404);
    const again = await erase(ctx, headers, { customer_id: customerId });
    expect(again).toEqual({
      status: 200,
      body: { data: { customer_id: customerId, erased_at: done.body.data.erased_at, already_erased: true, cancelled_orders: [], erased: {}, retained: [] } },
    });
    const next = await post(ctx, s.headers, orderFor(p));
    expect(next.status).toBe(201);
    const reborn = await get(ctx, s.headers, `/customers?phone=${encodeURIComponent(p.phone)}`);
    expect(reborn.body.data.customer_id).not.toBe(customerId);
    expect(reborn.body.data.recent_orders.map((o: { order_number: string }) => o.order_number)).toEqual([next.body.data.order_number]);

    const audit = await ctx.db.query<{ action: string; actor_kind: string; detail: unknown }>(
      sql`SELECT action, actor_kind, detail FROM audit_log WHERE company_id = ${s.companyId} AND subject_id = ${customerId}`,
    );
    expect(audit.map((a) => [a.action, a.actor_kind])).toEqual([['customer.erased', 'key']]);
  });

  it("keeps the recipient's name and address on an invoice of ₹50,000 or more, and nowhere else", async () => {
    const p = person();
    const s = await shopWith(ctx, '70000.00');
    const o = await orderIn(ctx, s, p, 'delivered');
    const done = await erase(ctx, await privacyHeaders(ctx, s.companyId), { phone: p.phone });
    expect(done.status).toBe(200);
    expect(done.body.data.retained.map((r: { what: string }) => r.what)).toContainEqual(
      expect.stringMatching(/^invoice .*: the recipient's name and address as issued/),
    );
    const [invoice] = await ctx.db.query<{ document: { buyer: { name: string; phone: string | null; address: string[] } } }>(
      sql`SELECT document FROM invoices WHERE company_id = ${s.companyId} AND order_id = ${o.id}`,
    );
    expect(invoice.document.buyer.name).toBe(p.name);
    expect(invoice.document.buyer.phone).toBeNull();
    expect(invoice.document.buyer.address[0]).toBe(p.line1);
    const others = (await ctx.db.query<{ id: string }>(sql`SELECT id FROM companies WHERE id <> ${s.companyId}`)).map((r) => r.id);
    expect(await scan(ctx, needles(p), others, (table, column) => table === 'invoices' && column === 'document')).toEqual([]);
    const [phoneLeft] = await ctx.db.query<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM invoices WHERE company_id = ${s.companyId} AND strpos(document::text, ${p.national}) > 0`,
    );
    expect(phoneLeft.n).toBe(0);
  });
});
