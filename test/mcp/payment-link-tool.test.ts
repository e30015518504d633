import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { useTestApp } from '../helpers/app.js';
import { orderBody, post, teeShop } from '../helpers/fulfilment.js';
import { listeningUrl } from '../helpers/orders.js';
import { fakeRazorpay, type FakeRazorpay } from '../helpers/razorpay.js';

/**
 * create_payment_link through the official SDK client over real HTTP: the REST answer's shape, the same live link on
 * a second call and over REST, the phone gate, the refusals as tool errors, and the link paid turning the order prepaid
 * as get_order then shows.
 */
const ctx = useTestApp({ PAYMENT_API_ALLOW_LOCAL: 'true' });
let rzp: FakeRazorpay;
let base: string;
const clients: Client[] = [];
beforeAll(async () => {
  rzp = await fakeRazorpay();
  base = await listeningUrl(ctx);
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await rzp?.close();
});

/** A success (the REST body) or a tool error (the REST error body), as the text content carries it. */
interface ToolAnswer {
  data: Record<string, string>;
  existing?: true;
  error: { code: string; message: string; details?: unknown };
}

async function codShop() {
  const s = await teeShop(ctx);
  const acct = rzp.account();
  const webhookSecret = `whsec-${s.company.slug}-mcp`;
  await ctx.services.payments.configure(
    s.companyId,
    { kind: 'cli', name: 'test' },
    { provider: 'razorpay', keyId: acct.keyId, keySecret: acct.keySecret, webhookSecret, baseUrl: rzp.url },
  );
  const origin = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  rzp.webhook(acct, `${origin}${ctx.config.BASE_PATH}/payments/razorpay/webhook/${s.company.slug}`, webhookSecret);
  const order = (await post(ctx, s.headers, orderBody({ payment: 'cod' }))).body.data as { order_id: string; order_number: string };
  const client = new Client({ name: 'vitest-payment-link', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': s.key } } }));
  clients.push(client);
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent?: unknown };
    const body = JSON.parse(result.content[0].text) as ToolAnswer;
    if (!result.isError) expect(result.structuredContent).toEqual(body);
    return { isError: result.isError === true, body };
  };
  return { ...s, order, client, call };
}

describe('create_payment_link', () => {
  it('is listed as a write that reaches out (openWorldHint), requiring only the reference', async () => {
    const s = await codShop();
    const tool = (await s.client.listTools()).tools.find((t) => t.name === 'create_payment_link')!;
    expect(tool.inputSchema.required).toEqual(['reference']);
    expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true });
  });

  it('answers the REST shape; a second call and POST over REST answer the same live link; paid, get_order shows prepaid', async () => {
    const s = await codShop();
    const first = await s.call('create_payment_link', { reference: s.order.order_number, phone: '98765 43210' });
    expect(first.isError).toBe(false);
    expect(first.body).toEqual({
      data: expect.objectContaining({
        order_id: s.order.order_id,
        amount: '499.00',
        currency: 'INR',
        status: 'created',
        link_id: expect.stringMatching(/^plink_/),
      }),
    });
    const second = await s.call('create_payment_link', { reference: s.order.order_id, phone: null, expire_in_minutes: null });
    expect(second.body).toEqual({ data: first.body.data, existing: true });
    const rest = await fetch(`${base}/orders/${s.order.order_number}/payment-link`, { method: 'POST', headers: s.headers });
    expect(await rest.json()).toEqual(second.body);

    const { paymentId } = await rzp.pay(first.body.data.link_id);
    const order = await s.call('get_order', { reference: s.order.order_number });
    expect(order.body.data).toMatchObject({ order_number: s.order.order_number, order_status: 'confirmed' });
    const [row] = await ctx.db.query<{ payment: string; payment_reference: string }>(
      sql`SELECT payment, payment_reference FROM orders WHERE company_id = ${s.companyId} AND id = ${s.order.order_id}`,
    );
    expect(row).toEqual({ payment: 'prepaid', payment_reference: paymentId });
    // now prepaid: refused as a tool error with the REST body
    const again = await s.call('create_payment_link', { reference: s.order.order_number });
    expect(again).toEqual({
      isError: true,
      body: { error: { code: 'unprocessable', message: expect.any(String), details: [{ path: 'reference', message: 'is prepaid already' }] } },
    });
  });

  it("another customer's phone, an unknown order and a bad expiry are tool errors; nothing is made", async () => {
    const s = await codShop();
    expect((await s.call('create_payment_link', { reference: s.order.order_number, phone: '+91 91234 56789' })).body.error.code).toBe('not_found');
    expect((await s.call('create_payment_link', { reference: 'ORD-NOPE' })).body.error.code).toBe('not_found');
    const bad = await s.call('create_payment_link', { reference: s.order.order_number, expire_in_minutes: 5 });
    expect(bad).toMatchObject({ isError: true, body: { error: { code: 'validation_failed', details: [{ path: 'expire_in_minutes' }] } } });
    const rows = await ctx.db.query(sql`SELECT id FROM order_payment_links WHERE company_id = ${s.companyId}`);
    expect(rows).toEqual([]);
  });
});
