import { acrossCompanies } from '../helpers/across-companies.js';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { draftOrderBody } from '../../src/contract/orders.js';
import { EVENT_TYPES } from '../../src/contract/webhooks.js';
import { newId } from '../../src/lib/ids.js';
import { useTestApp, type TestApp } from '../helpers/app.js';
import { BASE, get, post, shop, uid } from '../helpers/orders.js';

/**
 * Erasure proven by looking: a customer with orders in every status, an invoice and a credit note with their PDFs drawn,
 * webhook events and deliveries, UCP checkout sessions (one completed, one open), a saved buyer address, an idempotent
 * answer and a Razorpay payment event naming them, is erased over REST; then every text, varchar, json, jsonb and array
 * column of every table the database has (found in information_schema, so a future table is scanned too) and every log
 * line the service wrote are searched for the customer's name, phone (E.164, with the country code, national),
 * e-mail and address lines. Another company's customer of the same name and phone is untouched.
 */
const ctx = useTestApp({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_WORKER_ENABLED: 'false' });

interface Person {
  name: string;
  phone: string;
  e164: string;
  national: string;
  email: string;
  line1: string;
  line2: string;
}

/** A person no fixture shares: random letters in every value, a random mobile number. */
function person(): Person {
  const tag = uid().replace(/\d/g, 'q');
  const digits = String(Math.floor(1e9 * (1 + Math.random()))).slice(1, 10);
  const national = `9${digits}`;
  return {
    name: `Zephyrine ${tag} Quillfeather`,
    phone: `+91 ${national.slice(0, 5)} ${national.slice(5)}`,
    e164: `+91${national}`,
    national,
    email: `zeph.${tag}@dpdp-scan.test`,
    line1: `77 Marigold ${tag} Lane`,
    line2: `Vellum ${tag} Cross`,
  };
}

const needles = (p: Person) => [p.name, p.e164, `91${p.national}`, p.national, p.email, p.line1, p.line2].map((n) => n.toLowerCase());

async function privacyHeaders(t: TestApp, companyId: string) {
  const { key } = await t.services.keys.create(companyId, { kind: 'cli', name: 'test' }, 'privacy admin', ['privacy']);
  return { 'x-api-key': key };
}

async function shopWith(t: TestApp, price = '499.00') {
  return shop(t, [{ sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', selling_price: price, stock: '100' }] }]);
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

/** An order of `p` moved through the real services to `status`; its order number and id. */
async function orderIn(t: TestApp, s: Shop, p: Person, status: string): Promise<{ ref: string; id: string }> {
  const { fulfilment } = t.services;
  if (status === 'draft') {
    const draft = await fulfilment.createDraft(s.companyId, draftOrderBody.parse(orderFor(p)));
    return { ref: draft.order_number, id: draft.order_id };
  }
  const placed = await post(t, s.headers, orderFor(p));
  if (placed.status !== 201) throw new Error(`order not placed: ${JSON.stringify(placed.body)}`);
  const ref: string = placed.body.data.order_number;
  const id: string = placed.body.data.order_id;
  if (status === 'confirmed') return { ref, id };
  if (status === 'packed' || status === 'cancelled') {
    await fulfilment.move(s.companyId, ref, status);
    return { ref, id };
  }
  const awb = `AWB${uid()}`;
  await fulfilment.ship(s.companyId, ref, { awb });
  if (status === 'shipped') return { ref, id };
  await fulfilment.track(s.companyId, { awb }, 'delivered', { source: 'callback' });
  if (status === 'returned') await fulfilment.move(s.companyId, ref, 'returned');
  return { ref, id };
}

/** The copies of a customer's data that other flows leave, written as those flows write them. */
async function leaveTraces(t: TestApp, companyId: string, p: Person, orderId: string) {
  const buyer = { first_name: p.name.split(' ')[0], last_name: p.name.split(' ').slice(1).join(' '), email: p.email, phone_number: p.e164 };
  const destination = { street_address: p.line1, extended_address: p.line2, address_locality: 'Bengaluru', postal_code: '560038', address_country: 'IN' };
  const fulfillment = { methods: [{ type: 'shipping', destinations: [{ id: 'dst_1', ...destination }] }] };
  // a UCP checkout completed into one of the orders, and an open one of the same buyer
  await t.db.query(sql`
    INSERT INTO checkout_sessions (company_id, id, status, ucp_version, expires_at, order_id, buyer, fulfillment, completed_view)
    VALUES (${companyId}, ${newId('chk')}, 'completed', '2026-01-11', now() + interval '1 hour', ${orderId}, ${JSON.stringify(buyer)}::jsonb,
            ${JSON.stringify(fulfillment)}::jsonb, ${JSON.stringify({ buyer, fulfillment })}::jsonb)`);
  await t.db.query(sql`
    INSERT INTO checkout_sessions (company_id, id, status, ucp_version, expires_at, buyer, fulfillment)
    VALUES (${companyId}, ${newId('chk')}, 'incomplete', '2026-01-11', now() + interval '1 hour', ${JSON.stringify(buyer)}::jsonb, ${JSON.stringify(fulfillment)}::jsonb)`);
  await t.db.query(sql`
    INSERT INTO buyer_addresses (company_id, buyer_key, id, address)
    VALUES (${companyId}, ${`email:${p.email}`}, ${newId('adr')}, ${JSON.stringify(destination)}::jsonb)`);
  await t.db.query(sql`
    INSERT INTO idempotency_records (company_id, scope, key, request_hash, status_code, response)
    VALUES (${companyId}, 'ucp.checkout.complete', ${uid()}, '\\x00', 200, ${JSON.stringify({ id: 'chk_x', buyer, fulfillment })})`);
  const payload = { payment: { entity: { id: `pay_${uid()}`, contact: p.e164, email: p.email, notes: { customer: p.name } } } };
  await t.db.query(sql`
    INSERT INTO payment_events (company_id, provider, event_id, event_type, payment_id, payload)
    VALUES (${companyId}, 'razorpay', ${`evt_${uid()}`}, 'payment.captured', ${`pay_${uid()}`}, ${JSON.stringify(payload)}::jsonb)`);
  // a delivery's error echoing a body, and a courier's note naming the buyer
  await t.db.query(sql`UPDATE webhook_deliveries SET last_error = ${`HTTP 400: {"name":"${p.name}"}`} WHERE company_id = ${companyId}`);
  await t.db.query(sql`
    UPDATE shipment_events SET note = ${`handed to ${p.name}, ${p.line1}`}
     WHERE company_id = ${companyId} AND shipment_id IN (SELECT id FROM shipments WHERE company_id = ${companyId})`);
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

    const orders: Record<string, { ref: string; id: string }> = {};
    for (const status of ['draft', 'confirmed', 'packed', 'shipped', 'delivered', 'cancelled', 'returned']) orders[status] = await orderIn(ctx, s, p, status);
    // the same person is a customer of another company too
    const theirs = await orderIn(ctx, other, p, 'delivered');

    await ctx.services.fulfilment.invoicePdf(s.companyId, orders.delivered.ref);
    await ctx.services.fulfilment.invoicePdf(s.companyId, orders.returned.ref, 'credit_note');
    await ctx.services.customers.setMessagingOptOut(s.companyId, p.phone, true);
    await leaveTraces(ctx, s.companyId, p, orders.confirmed.id);
    const found = await get(ctx, s.headers, `/customers?phone=${encodeURIComponent(p.phone)}`);
    expect(found.status).toBe(200);
    const customerId: string = found.body.data.customer_id;

    // before: the scan finds the person (the test can fail)
    const before = await scan(ctx, needles(p), [other.companyId]);
    expect(before.length).toBeGreaterThan(10);
    for (const table of ['customers', 'orders', 'events', 'checkout_sessions', 'buyer_addresses', 'idempotency_records', 'payment_events', 'invoices'])
      expect(
        before.some((h) => h.startsWith(`${table}.`)),
        table,
      ).toBe(true);

    const headers = await privacyHeaders(ctx, s.companyId);
    const refused = await erase(ctx, headers, { phone: p.phone });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect(refused.body.error.details.map((d: { message: string }) => d.message).sort()).toEqual(
      [`${orders.draft.ref} is draft`, `${orders.confirmed.ref} is confirmed`, `${orders.packed.ref} is packed`, `${orders.shipped.ref} is shipped`].sort(),
    );

    const done = await erase(ctx, headers, { phone: p.phone, cancel_open_orders: true });
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ customer_id: customerId, already_erased: false });
    expect(done.body.data.cancelled_orders.sort()).toEqual([orders.draft.ref, orders.confirmed.ref, orders.packed.ref].sort());
    expect(done.body.data.erased).toMatchObject({
      customers: 1,
      orders: 7,
      checkout_sessions: 2,
      buyer_addresses: 1,
      idempotency_records: 1,
      payment_events: 1,
      document_files: 2,
    });
    expect(done.body.data.retained.length).toBe(3);

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
