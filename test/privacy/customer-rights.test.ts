import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { anonymiseInactiveCustomers } from '../../src/privacy/customer-data.service.js';
import { useTestApp } from '../helpers/app.js';
import { BASE, get, orderBody, post, shop, uid } from '../helpers/orders.js';

/** A customer's rights over REST, MCP (the official SDK client) and the CLI: access, correction, erasure, and the inactive rule. */
const ctx = useTestApp();
let origin: string;
const clients: Client[] = [];
beforeAll(async () => {
  origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  if (ctx.testDb.url) process.env.DATABASE_URL = ctx.testDb.url;
});
afterAll(async () => {
  for (const c of clients) await c.close();
});

const phone = () => `+91 98${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;

async function setup() {
  const s = await shop(ctx, [{ sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', selling_price: '499.00', stock: '100' }] }]);
  const { key } = await ctx.services.keys.create(s.companyId, { kind: 'cli', name: 'test' }, 'privacy', ['privacy']);
  const p = phone();
  const placed = await post(ctx, s.headers, orderBody({ customer: { name: 'Asha Rao', phone: p, email: 'asha@example.com' } }));
  expect(placed.status).toBe(201);
  return { ...s, privacy: { 'x-api-key': key }, phone: p, order: placed.body.data as { order_number: string; order_id: string } };
}

const req = async (method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: unknown) => {
  const res = await ctx.app.inject({
    method,
    url: `${BASE}${url}`,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.json() };
};

describe('access: GET /privacy/customer-data', () => {
  it('answers one document of the customer, records the access, and refuses without the permission, without a key, or for another company', async () => {
    const s = await setup();
    const doc = await req('GET', `/privacy/customer-data?phone=${encodeURIComponent(s.phone)}`, s.privacy);
    expect(doc.status).toBe(200);
    const d = doc.body.data;
    expect(d.customer).toMatchObject({ name: 'Asha Rao', email: 'asha@example.com', erased_at: null });
    expect(d.customer.address).toMatchObject({ line1: '12 MG Road', city: 'Bengaluru', state: 'Karnataka', pincode: '560038' });
    expect(d.orders).toHaveLength(1);
    expect(d.orders[0]).toMatchObject({ order_number: s.order.order_number, status: 'confirmed', shipment: null, invoice: null, payment_links: [] });
    expect(d.orders[0].lines).toEqual([{ sku: 'TEE-M', name: expect.any(String), quantity: '1.000', unit_price: '499.00', line_total: '499.00' }]);
    expect(d.events.map((e: { type: string }) => e.type)).toEqual(['order.created']);
    expect(Date.parse(d.generated_at)).not.toBeNaN();
    const byId = await req('GET', `/privacy/customer-data?customer_id=${d.customer.customer_id}`, s.privacy);
    expect({ ...byId.body.data, generated_at: null }).toEqual({ ...d, generated_at: null });
    const [audit] = await ctx.db.query<{ action: string; detail: unknown }>(
      sql`SELECT action, detail FROM audit_log WHERE company_id = ${s.companyId} AND subject_id = ${d.customer.customer_id} ORDER BY seq LIMIT 1`,
    );
    expect(audit).toEqual({ action: 'customer.accessed', detail: { orders: 1, events: 1 } });

    const forbidden = await req('GET', `/privacy/customer-data?phone=${encodeURIComponent(s.phone)}`, s.headers);
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'forbidden']);
    expect((await req('GET', `/privacy/customer-data?phone=${encodeURIComponent(s.phone)}`, {})).status).toBe(401);
    const other = await setup();
    const elsewhere = await req('GET', `/privacy/customer-data?customer_id=${d.customer.customer_id}`, other.privacy);
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([404, 'not_found']);
  });

  it('asks for exactly one of phone and customer_id', async () => {
    const s = await setup();
    const none = await req('GET', '/privacy/customer-data', s.privacy);
    expect([none.status, none.body.error.details]).toEqual([400, [{ path: 'phone', message: 'required; send phone or customer_id' }]]);
    const both = await req('GET', `/privacy/customer-data?phone=${encodeURIComponent(s.phone)}&customer_id=cus_x`, s.privacy);
    expect([both.status, both.body.error.details[0].path]).toEqual([400, 'customer_id']);
    const bad = await req('GET', '/privacy/customer-data?phone=12', s.privacy);
    expect([bad.status, bad.body.error.details[0].path]).toEqual([400, 'phone']);
    const long = await req('GET', `/privacy/customer-data?customer_id=${'c'.repeat(65)}`, s.privacy);
    expect([long.status, long.body.error.details[0].path]).toEqual([400, 'customer_id']);
    expect((await req('GET', `/privacy/customer-data?customer_id=${'c'.repeat(64)}`, s.privacy)).status).toBe(404);
  });
});

describe('correction: POST /privacy/corrections', () => {
  it('corrects the record and the address of orders not yet shipped, keeps a shipped order as it is, and records field names only', async () => {
    const s = await setup();
    const awb = `AWB${uid()}`;
    const shipped = (await post(ctx, s.headers, orderBody({ customer: { name: 'Asha Rao', phone: s.phone } }))).body.data;
    await ctx.services.fulfilment.ship(s.companyId, shipped.order_number, { awb });
    const address = { line1: '14 Brigade Road', city: 'Bengaluru', pincode: '560001' };
    const done = await req('POST', '/privacy/corrections', s.privacy, { phone: s.phone, name: 'Asha R. Rao', email: 'asha.rao@example.com', address });
    expect(done).toEqual({
      status: 200,
      body: {
        data: {
          customer_id: expect.any(String),
          corrected: ['name', 'email', 'address'],
          orders_updated: [s.order.order_number],
          orders_not_updated: [shipped.order_number],
        },
      },
    });
    const found = await get(ctx, s.headers, `/customers?phone=${encodeURIComponent(s.phone)}`);
    expect(found.body.data).toMatchObject({ name: 'Asha R. Rao', email: 'asha.rao@example.com', pincode: '560001' });
    const addressOf = async (number: string) =>
      (
        await ctx.db.query<{ a: { line1: string; pincode: string } }>(
          sql`SELECT delivery_address AS a FROM orders WHERE company_id = ${s.companyId} AND order_number = ${number}`,
        )
      )[0].a;
    expect(await addressOf(s.order.order_number)).toMatchObject({ line1: '14 Brigade Road', pincode: '560001', state: 'Karnataka' });
    expect(await addressOf(shipped.order_number)).toMatchObject({ line1: '12 MG Road', pincode: '560038' });
    const [audit] = await ctx.db.query<{ detail: unknown }>(
      sql`SELECT detail FROM audit_log WHERE company_id = ${s.companyId} AND action = 'customer.corrected'`,
    );
    expect(audit.detail).toEqual({ fields: ['name', 'email', 'address'], orders_updated: 1 });
    // an empty e-mail removes it
    expect((await req('POST', '/privacy/corrections', s.privacy, { phone: s.phone, email: '' })).status).toBe(200);
    expect((await get(ctx, s.headers, `/customers?phone=${encodeURIComponent(s.phone)}`)).body.data.email).toBeNull();
  });

  it('validates each field as POST /orders does, at its edges', async () => {
    const s = await setup();
    const refused = async (body: Record<string, unknown>, path: string) => {
      const r = await req('POST', '/privacy/corrections', s.privacy, { phone: s.phone, ...body });
      expect([r.status, r.body.error.code], JSON.stringify(body)).toEqual([400, 'validation_failed']);
      expect(r.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
    };
    await refused({}, 'name');
    await refused({ name: '' }, 'name');
    await refused({ name: 'a'.repeat(121) }, 'name');
    await refused({ email: 'not-an-email' }, 'email');
    await refused({ address: { line1: 'x', city: 'Bengaluru', pincode: '56003' } }, 'address.pincode');
    await refused({ address: { line1: 'x', city: 'Bengaluru', pincode: '560038', state: 'Kerala' } }, 'address.state');
    await refused({ address: { city: 'Bengaluru', pincode: '560038' } }, 'address.line1');
    expect((await req('POST', '/privacy/corrections', s.privacy, { phone: s.phone, name: 'a'.repeat(120) })).status).toBe(200);
    expect((await req('POST', '/privacy/corrections', s.headers, { phone: s.phone, name: 'x' })).status).toBe(403);
    expect((await req('POST', '/privacy/corrections', s.privacy, { phone: phone(), name: 'x' })).status).toBe(404);
  });
});

describe('the MCP tools, through the official SDK client', () => {
  it('export, correct and erase answer as REST does, and are forbidden to a key without the privacy permission', async () => {
    const s = await setup();
    const connect = async (headers: Record<string, string>) => {
      const client = new Client({ name: 'vitest', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}${BASE}/mcp`), { requestInit: { headers } }));
      clients.push(client);
      return async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
        return { isError: result.isError === true, body: JSON.parse(result.content[0].text) };
      };
    };
    const plain = await connect(s.headers);
    const denied = await plain('export_customer_data', { phone: s.phone });
    expect(denied.isError).toBe(true);
    expect(denied.body.error.code).toBe('forbidden');
    expect((await plain('erase_customer_data', { phone: s.phone })).body.error.code).toBe('forbidden');

    const call = await connect(s.privacy);
    const exported = await call('export_customer_data', { phone: s.phone, customer_id: null });
    const rest = await req('GET', `/privacy/customer-data?phone=${encodeURIComponent(s.phone)}`, s.privacy);
    expect({ ...exported.body.data, generated_at: null }).toEqual({ ...rest.body.data, generated_at: null });
    const bad = await call('correct_customer_data', { phone: s.phone });
    expect([bad.isError, bad.body.error.details[0].path]).toEqual([true, 'name']);
    expect((await call('correct_customer_data', { phone: s.phone, name: 'Asha Rao Nair' })).body.data.corrected).toEqual(['name']);
    const conflict = await call('erase_customer_data', { phone: s.phone });
    expect([conflict.isError, conflict.body.error.code]).toEqual([true, 'conflict']);
    const erased = await call('erase_customer_data', { phone: s.phone, cancel_open_orders: true });
    expect(erased.body.data).toMatchObject({ already_erased: false, cancelled_orders: [s.order.order_number] });
    expect((await call('erase_customer_data', { customer_id: erased.body.data.customer_id })).body.data.already_erased).toBe(true);
    expect((await call('export_customer_data', { phone: s.phone })).body.error.code).toBe('not_found');
  });
});

describe('the CLI: customer export|correct|erase', () => {
  async function admin(...argv: string[]) {
    const lines: string[] = [];
    const code = await runAdmin([...argv, '--json'], (t) => lines.push(t), { db: ctx.testDb.db });
    return { code, out: lines.join('\n') };
  }

  it('exports, corrects and erases, naming the CLI user in the audit trail; a wrong call is a usage error', async () => {
    const s = await setup();
    const slug = s.company.slug;
    const exported = await admin('customer', 'export', '--company', slug, '--phone', s.phone);
    expect(exported.code).toBe(0);
    expect(JSON.parse(exported.out).customer.name).toBe('Asha Rao');
    const corrected = await admin(
      'customer',
      'correct',
      '--company',
      slug,
      '--phone',
      s.phone,
      '--line1',
      '3 Park Street',
      '--city',
      'Kolkata',
      '--pincode',
      '700016',
    );
    expect(corrected.code).toBe(0);
    expect(JSON.parse(corrected.out)).toMatchObject({ corrected: ['address'], orders_updated: [s.order.order_number] });
    expect((await admin('customer', 'erase', '--company', slug, '--phone', s.phone)).code).not.toBe(0);
    const erased = await admin('customer', 'erase', '--company', slug, '--phone', s.phone, '--cancel-open-orders');
    expect(erased.code).toBe(0);
    expect(JSON.parse(erased.out)).toMatchObject({ already_erased: false, erased: { customers: 1 } });
    expect((await admin('customer', 'export', '--company', slug)).code).toBe(2);
    expect((await admin('customer', 'export', '--company', slug, '--phone', s.phone, '--customer-id', 'x')).code).toBe(2);
    const actors = await ctx.db.query<{ action: string; actor_kind: string }>(
      sql`SELECT action, actor_kind FROM audit_log WHERE company_id = ${s.companyId} AND action LIKE 'customer.%' ORDER BY seq`,
    );
    expect(actors).toEqual([
      { action: 'customer.accessed', actor_kind: 'cli' },
      { action: 'customer.corrected', actor_kind: 'cli' },
      { action: 'customer.erased', actor_kind: 'cli' },
    ]);
  });
});

describe('the inactive-customer rule: anonymiseInactiveCustomers', () => {
  it('erases customers with no order and no change in the years given (48 hours after telling them), never one with an order on its way, and counts them', async () => {
    const s = await setup();
    const idle = phone();
    const open = phone();
    const idleOrder = (await post(ctx, s.headers, orderBody({ customer: { name: 'Idle One', phone: idle } }))).body.data;
    await ctx.services.fulfilment.move(s.companyId, idleOrder.order_number, 'cancelled');
    await post(ctx, s.headers, orderBody({ customer: { name: 'Open One', phone: open } }));
    const old = new Date(Date.now() - 3 * 365 * 86_400_000).toISOString();
    await ctx.db.query(sql`UPDATE customers SET updated_at = ${old}::timestamptz WHERE company_id = ${s.companyId}`);
    await ctx.db.query(sql`UPDATE orders SET created_at = ${old}::timestamptz WHERE company_id = ${s.companyId}`);
    const now = new Date();
    // two years: the idle customer only (the open one has a confirmed order; the setup's customer too): told first,
    // erased 48 hours later (test/privacy/inactive-notice.test.ts has the notice's own cases)
    expect(await anonymiseInactiveCustomers(ctx.db, s.companyId, 4, now, 10)).toBe(0);
    expect(await anonymiseInactiveCustomers(ctx.db, s.companyId, 2, now, 10)).toBe(1);
    expect((await get(ctx, s.headers, `/customers?phone=${encodeURIComponent(idle)}`)).status).toBe(200);
    const due = new Date(now.getTime() + 48 * 3_600_000);
    expect(await anonymiseInactiveCustomers(ctx.db, s.companyId, 2, due, 10)).toBe(1);
    expect((await get(ctx, s.headers, `/customers?phone=${encodeURIComponent(idle)}`)).status).toBe(404);
    expect((await get(ctx, s.headers, `/customers?phone=${encodeURIComponent(open)}`)).status).toBe(200);
    const [audit] = await ctx.db.query<{ actor_kind: string; actor: string }>(
      sql`SELECT actor_kind, actor FROM audit_log WHERE company_id = ${s.companyId} AND action = 'customer.erased'`,
    );
    expect(audit).toEqual({ actor_kind: 'service', actor: 'retention.inactive_customers' });
    expect(await anonymiseInactiveCustomers(ctx.db, s.companyId, 2, due, 10)).toBe(0);
  });
});
