import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { runAdmin } from '../../src/cli/admin.js';
import { orderDetailsMessage, orderDetailsTemplateMessage, orderStatusMessage } from '../../src/contract/whatsapp.js';
import { createDeliveryWorker } from '../../src/events/delivery-worker.js';
import { verifyWebhook } from '../../src/lib/webhook-signature.js';
import { useTestApp } from '../helpers/app.js';
import { get, listeningUrl, orderBody, post, shop } from '../helpers/orders.js';
import { webhookReceiver } from '../helpers/webhook-receiver.js';

/** An order's WhatsApp messages through every door: REST, the MCP tool (official SDK client), a delivered webhook, the admin CLI. */
const ctx = useTestApp({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_WORKER_ENABLED: 'false' });

let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
beforeAll(async () => {
  receiver = await webhookReceiver();
});
afterAll(() => receiver?.close());

const KURTA = 'हाथ से बना सूती कुर्ता';
const products = () => [{ sku: 'KURTA', name: KURTA, tax_rate: '5', variants: [{ sku: 'KURTA-L', name: 'L', selling_price: '399.00', stock: '50' }] }];
const SETTINGS = { catalog_id: '345678', payment_configuration: 'razorpay-prod', template_name: 'cod_bill', template_language: 'hi' };

async function codOrder(s: Awaited<ReturnType<typeof shop>>) {
  const res = await post(ctx, s.headers, orderBody({ items: [{ product_id: 'KURTA-L', quantity: 2 }], payment: 'cod' }));
  expect(res.status).toBe(201);
  return res.body.data as { order_id: string; order_number: string; amount: string };
}

const messages = (s: { headers: Record<string, string> }, ref: string, query: string) =>
  get(ctx, s.headers, `/orders/${encodeURIComponent(ref)}/whatsapp-messages?${query}`);

describe('GET /orders/{reference}/whatsapp-messages', () => {
  it('answers the order_details body to POST as it is, valid against the documented shape, its amounts the order’s', async () => {
    const s = await shop(ctx, products());
    await ctx.services.whatsapp.set(s.companyId, { kind: 'cli', name: 'test' }, SETTINGS);
    const o = await codOrder(s);
    const res = await messages(s, o.order_number, 'type=order_details&phone=98765%2043210');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const msg = orderDetailsMessage.parse(res.body.data);
    expect(res.body.data).toEqual(msg); // nothing beyond the documented shape
    expect(msg.to).toBe('919876543210');
    const p = msg.interactive.action.parameters;
    expect(p.reference_id).toBe(o.order_number);
    expect(p.total_amount).toEqual({ value: 79800, offset: 100 });
    expect(p.order.items).toEqual([{ retailer_id: 'KURTA-L', name: `${KURTA} (L)`, amount: { value: 39900, offset: 100 }, quantity: 2 }]);
    expect(p.payment_settings).toEqual([
      { type: 'payment_gateway', payment_gateway: { type: 'razorpay', configuration_name: 'razorpay-prod', razorpay: { receipt: o.order_number } } },
    ]);
    // the template variant: the same bill on the company's template
    const template = await messages(s, o.order_id, 'type=order_details&template=true');
    expect(template.status).toBe(200);
    const button = orderDetailsTemplateMessage.parse(template.body.data).template.components[0] as unknown as {
      parameters: [{ action: { order_details: unknown } }];
    };
    expect(button.parameters[0].action.order_details).toEqual(p);
  });

  it("carries the order's live payment link (the newest one not expired), else the configured way to pay", async () => {
    const s = await shop(ctx, products());
    await ctx.services.whatsapp.set(s.companyId, { kind: 'cli', name: 'test' }, SETTINGS);
    const o = await codOrder(s);
    const link = (id: string, url: string, status: string, expires: string | null, created: string) =>
      ctx.db.query(sql`INSERT INTO order_payment_links (company_id, id, order_id, provider, short_url, amount, status, expires_at, created_at)
        VALUES (${s.companyId}, ${id}, ${o.order_id}, 'razorpay', ${url}, ${o.amount}, ${status}, ${expires}::timestamptz, ${created}::timestamptz)`);
    await link('plink_old', 'https://rzp.io/i/old', 'created', null, '2026-11-01T00:00:00Z');
    await link('plink_gone', 'https://rzp.io/i/expired', 'created', '2026-11-02T00:00:00Z', '2026-11-02T00:00:00Z');
    await link('plink_cancelled', 'https://rzp.io/i/cancelled', 'cancelled', null, '2026-11-03T00:00:00Z');
    const settingsOf = async () => (await messages(s, o.order_number, 'type=order_details')).body.data.interactive.action.parameters.payment_settings;
    expect(await settingsOf()).toEqual([{ type: 'payment_link', payment_link: { uri: 'https://rzp.io/i/old' } }]);
    await link('plink_new', 'https://rzp.io/i/new', 'created', '2099-01-01T00:00:00Z', '2026-11-04T00:00:00Z');
    expect(await settingsOf()).toEqual([{ type: 'payment_link', payment_link: { uri: 'https://rzp.io/i/new' } }]);
    await ctx.db.query(sql`UPDATE order_payment_links SET status = 'expired' WHERE company_id = ${s.companyId}`);
    expect((await settingsOf())[0].type).toBe('payment_gateway');
  });

  it('order_status for the current status; the phone gate, bad input and what cannot be built answer as the contract says', async () => {
    const s = await shop(ctx, products());
    const o = await codOrder(s);
    const status = await messages(s, o.order_number, 'type=order_status');
    expect(status.status).toBe(200);
    expect(orderStatusMessage.parse(status.body.data).interactive.action.parameters).toEqual({
      reference_id: o.order_number,
      order: { status: 'processing', description: 'Confirmed, being prepared' },
    });
    const otherPhone = await messages(s, o.order_number, 'type=order_status&phone=9123456789');
    expect(otherPhone).toEqual(await messages(s, 'ORD-NOPE', 'type=order_status'));
    expect(otherPhone.status).toBe(404);
    const bad = await messages(s, o.order_number, 'type=invoice');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ path: 'type', message: expect.stringContaining('order_details or order_status') }]);
    expect((await messages(s, o.order_number, 'type=order_status&template=maybe')).body.error.details[0].path).toBe('template');
    // no settings: no catalogue to name the items in, no template
    const refused = await messages(s, o.order_number, 'type=order_details');
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'unprocessable', details: [{ path: 'catalog_id', message: 'not set' }] });
    expect((await messages(s, o.order_number, 'type=order_status&template=true')).body.error.details).toEqual([{ path: 'template', message: 'not set' }]);
    // another company's key does not reach the order
    const other = await shop(ctx, products());
    expect((await messages(other, o.order_number, 'type=order_status')).status).toBe(404);
  });
});

describe('the MCP tool get_order_whatsapp_messages (official SDK client)', () => {
  it('returns the REST body; what cannot be built is a tool error with the REST error', async () => {
    const s = await shop(ctx, products());
    await ctx.services.whatsapp.set(s.companyId, { kind: 'cli', name: 'test' }, SETTINGS);
    const o = await codOrder(s);
    const base = await listeningUrl(ctx);
    const client = new Client({ name: 'vitest', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': s.key } } }));
    try {
      const result = await client.callTool({
        name: 'get_order_whatsapp_messages',
        arguments: { reference: o.order_number, type: 'order_details', phone: '+91 98765 43210' },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual((await messages(s, o.order_number, 'type=order_details')).body);
      const refused = await client.callTool({
        name: 'get_order_whatsapp_messages',
        arguments: { reference: o.order_number, type: 'order_status', template: true },
      });
      expect(refused.isError).toBe(true);
      expect(JSON.parse((refused.content as { text: string }[])[0].text)).toEqual((await messages(s, o.order_number, 'type=order_status&template=true')).body);
    } finally {
      await client.close();
    }
  });
});

describe('order events carry the messages beside data', () => {
  it('order.created has the bill and the status, order.status_changed the new status, signed and byte-identical on a resend', async () => {
    const s = await shop(ctx, products());
    await ctx.services.whatsapp.set(s.companyId, { kind: 'cli', name: 'test' }, SETTINGS);
    const endpoint = await ctx.services.webhooks.create(
      s.companyId,
      { kind: 'cli', name: 'test' },
      {
        url: receiver.url,
        events: ['order.created', 'order.status_changed'],
        description: null,
      },
    );
    const o = await codOrder(s);
    await ctx.services.fulfilment.move(s.companyId, o.order_number, 'packed');
    const worker = createDeliveryWorker({ db: ctx.db, config: ctx.config, log: ctx.workerLog('webhook-worker') });
    await worker.drainNow(s.companyId);
    const mine = receiver.state.received.filter((r) => (r.body.data as { order_id?: string }).order_id === o.order_id);
    expect(mine.map((r) => r.body.type)).toEqual(['order.created', 'order.status_changed']);
    for (const r of mine) expect(verifyWebhook(endpoint.secret, r.raw, String(r.headers['x-webhook-signature']))).toBe(true);
    const [created, packed] = mine.map((r) => r.body as unknown as { data: object; whatsapp: { order_details?: unknown; order_status: unknown } });
    // data stays exactly the lookup shape; the messages are their own member
    expect(Object.keys(created.data)).not.toContain('whatsapp');
    expect(orderDetailsMessage.parse(created.whatsapp.order_details)).toEqual(
      (await messages(s, o.order_number, 'type=order_details')).body.data, // nothing changed since: the same bill as REST builds now
    );
    expect(orderStatusMessage.parse(created.whatsapp.order_status).interactive.action.parameters.order.status).toBe('processing');
    expect(packed.whatsapp).toEqual({ order_status: (await messages(s, o.order_number, 'type=order_status')).body.data });
    // a re-send is the same bytes: the messages were stored with the event
    await ctx.db.query(sql`UPDATE whatsapp_settings SET payment_configuration = 'changed-since' WHERE company_id = ${s.companyId}`);
    const firstRaw = mine[0].raw;
    await ctx.db.query(sql`UPDATE webhook_deliveries SET status = 'failed' WHERE company_id = ${s.companyId}`);
    await ctx.services.webhooks.resend(s.companyId, { kind: 'cli', name: 'test' }, mine[0].body.id);
    await worker.drainNow(s.companyId);
    const again = receiver.state.received.filter((r) => r.body.id === mine[0].body.id);
    expect(again.length).toBe(2);
    expect(again[1].raw).toBe(firstRaw);
  });
});

describe('admin CLI: whatsapp', () => {
  async function admin(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(argv, (t) => out.push(t), { db: ctx.testDb.db, services: ctx.services, caller: { err: (t) => err.push(t) } });
    return { code, out: out.join('\n'), err: err.join('') };
  }

  it('shows and sets the settings; "none" clears one; a bad value is refused, naming the field', async () => {
    const s = await shop(ctx);
    const show = await admin('whatsapp', 'show', '--company', s.companyId, '--json');
    expect(JSON.parse(show.out)).toMatchObject({ catalog_id: null, upi_vpa: null, updated_at: null });
    const set = await admin('whatsapp', 'set', '--company', s.companyId, '--catalog-id', '345678', '--upi-vpa', 'shop@okhdfcbank', '--json');
    expect(set.code, set.err).toBe(0);
    expect(JSON.parse(set.out)).toMatchObject({ catalog_id: '345678', upi_vpa: 'shop@okhdfcbank' });
    const kept = JSON.parse((await admin('whatsapp', 'set', '--company', s.companyId, '--upi-vpa', 'none', '--json')).out);
    expect(kept).toMatchObject({ catalog_id: '345678', upi_vpa: null });
    const bad = await admin('whatsapp', 'set', '--company', s.companyId, '--upi-vpa', 'not a vpa');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('upi_vpa: must be a UPI id');
    expect((await admin('whatsapp', 'set', '--company', s.companyId)).code).toBe(2);
    const table = await admin('whatsapp', 'show', '--company', s.companyId);
    expect(table.out).toMatch(/CATALOGUE\s+PAYMENT CONFIG/);
  });
});
