import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { useTestApp } from '../helpers/app.js';
import { get, listeningUrl, shop, stockRow, uid } from '../helpers/orders.js';

/**
 * UCP's checkout over MCP (the checkout-mcp binding, UCP 2026-01-11) for the company's own agents, with its key, through
 * the official SDK client over real HTTP: the same checkout JSON as the REST binding, writes once per idempotency_key,
 * UCP's refusals as tool errors in the tools' error shape, the business off, and another company's checkout unseen.
 */

const ctx = useTestApp();

const ADDRESS = {
  id: 'home',
  street_address: '12 MG Road',
  address_locality: 'Bengaluru',
  address_region: 'Karnataka',
  postal_code: '560038',
  address_country: 'IN',
};
const BUYER = { first_name: 'Asha', last_name: 'Rao', phone_number: '+91 98765 43210' };
const COD = { id: 'instr_cod', handler_id: 'cod' };

const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close();
});

/** A company selling roses (35.00 each), its UCP business on unless `enabled` is false, a 5.00 shipping rate, and its MCP client. */
async function business({ enabled = true } = {}) {
  const s = await shop(ctx, [{ sku: 'ROSE', name: 'Red Rose Bouquet', variants: [{ sku: 'ROSE-1', name: '12 stems', selling_price: '35.00', stock: '5' }] }], {
    company: { slug: `mcp-${uid()}` },
  });
  await ctx.services.ucpSettings.set(s.companyId, { kind: 'cli', name: 'test' }, { enabled });
  await ctx.services.shippingRates.create(
    s.companyId,
    { kind: 'cli', name: 'test' },
    { id: 'std', title: 'Standard', level: 'standard', zone_kind: 'everywhere', price: '5.00' },
  );
  const client = new Client({ name: 'vitest-checkout', version: '1.0.0' });
  const url = new URL(`${await listeningUrl(ctx)}/mcp`);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-api-key': s.key } } }));
  clients.push(client);
  /** A tool's answer: the checkout (structuredContent, equal to the text), or the tool error's body. */
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent?: unknown };
    const body = JSON.parse(result.content[0].text) as Record<string, unknown>;
    if (!result.isError) expect(result.structuredContent).toEqual(body);
    return { isError: result.isError === true, body };
  };
  /** The REST binding, on the same listening server (its links name the origin it was reached at). */
  const rest = async (path: string) => {
    const res = await fetch(`${url.origin}/ucp/${s.company.slug}/2026-01-11${path}`, { headers: { 'ucp-agent': 'profile="https://agent.example/p"' } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const reserved = async () => (await stockRow(ctx, s.companyId, s.variantIds['ROSE-1'])).reserved;
  return { ...s, client, call, rest, reserved };
}

const cart = (quantity = 2) => ({ line_items: [{ item: { id: 'ROSE-1' }, quantity }], buyer: BUYER });
const shipping = { methods: [{ type: 'shipping', destinations: [ADDRESS], selected_destination_id: 'home', groups: [{ selected_option_id: 'std' }] }] };

describe('the checkout tools', () => {
  it('are listed with the binding’s arguments, the writes required to carry idempotency_key where the binding says', async () => {
    const b = await business();
    const tools = (await b.client.listTools()).tools.filter((t) => t.name.endsWith('_checkout'));
    const by = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(by).sort()).toEqual(['cancel_checkout', 'complete_checkout', 'create_checkout', 'get_checkout', 'update_checkout']);
    expect(by.create_checkout.inputSchema.required).toEqual(['checkout']);
    expect(by.update_checkout.inputSchema.required).toEqual(['id', 'checkout']);
    expect(by.get_checkout.inputSchema.required).toEqual(['id']);
    expect(by.complete_checkout.inputSchema.required).toEqual(['id', 'payment_data', 'idempotency_key']);
    expect(by.cancel_checkout.inputSchema.required).toEqual(['id', 'idempotency_key']);
    expect(by.get_checkout.annotations).toMatchObject({ readOnlyHint: true });
    for (const name of ['create_checkout', 'update_checkout', 'complete_checkout', 'cancel_checkout'])
      expect(by[name].annotations?.readOnlyHint, name).toBe(false);
    expect(by.cancel_checkout.annotations?.destructiveHint).toBe(true);
  });

  it('create → update (fulfillment) → complete with cod: a confirmed order, visible to get_order and to REST', async () => {
    const b = await business();
    const created = await b.call('create_checkout', { checkout: cart(), idempotency_key: randomUUID() });
    expect(created.isError, JSON.stringify(created.body)).toBe(false);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ status: 'incomplete', currency: 'INR', line_items: [{ item: { id: 'ROSE-1', price: 3500 }, quantity: 2 }] });
    expect(created.body.totals).toContainEqual({ type: 'subtotal', display_text: 'Subtotal', amount: 7000 });
    expect(await b.reserved()).toBe('2.000');
    // the same JSON as the REST binding answers for it
    expect((await b.rest(`/checkout-sessions/${id}`)).body).toEqual(created.body);

    const updated = await b.call('update_checkout', { id, checkout: { ...cart(), fulfillment: shipping }, idempotency_key: randomUUID() });
    expect(updated.body).toMatchObject({ id, status: 'ready_for_complete' });
    expect(updated.body.totals).toContainEqual({ type: 'total', display_text: 'Total', amount: 7500 });

    const completed = await b.call('complete_checkout', { id, payment_data: COD, idempotency_key: randomUUID() });
    expect(completed.isError, JSON.stringify(completed.body)).toBe(false);
    expect(completed.body).toMatchObject({ id, status: 'completed', order: { id: expect.stringMatching(/^ord_/) } });
    const orderId = (completed.body.order as { id: string }).id;

    const looked = await b.call('get_order', { reference: id });
    expect(looked.body.data).toMatchObject({ order_id: orderId, external_reference: id, order_status: 'confirmed', amount: '75.00' });
    const viaRest = await get(ctx, b.headers, `/orders/${id}`);
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.data).toMatchObject({ order_id: orderId });
    expect((await b.rest(`/orders/${orderId}`)).status).toBe(200);
    expect((await b.call('get_checkout', { id })).body).toEqual(completed.body);
  });

  it('a write repeated with its idempotency_key answers the first answer; other arguments with that key are a conflict', async () => {
    const b = await business();
    const key = randomUUID();
    const first = await b.call('create_checkout', { checkout: cart(1), idempotency_key: key });
    const again = await b.call('create_checkout', { checkout: cart(1), idempotency_key: key });
    expect(again).toEqual(first);
    expect(await b.reserved()).toBe('1.000'); // one checkout, one hold
    const other = await b.call('create_checkout', { checkout: cart(2), idempotency_key: key });
    expect(other).toEqual({ isError: true, body: { error: { code: 'idempotency_conflict', message: expect.any(String) } } });

    // a refusal is kept too: the same complete of a checkout not ready answers `missing` again, after it became ready
    const id = first.body.id as string;
    const completeKey = randomUUID();
    const refused = await b.call('complete_checkout', { id, payment_data: COD, idempotency_key: completeKey });
    expect(refused).toMatchObject({ isError: true, body: { error: { code: 'missing', details: [{ path: '$.fulfillment' }] } } });
    await b.call('update_checkout', { id, checkout: { ...cart(1), fulfillment: shipping } });
    expect(await b.call('complete_checkout', { id, payment_data: COD, idempotency_key: completeKey })).toEqual(refused);
    const done = await b.call('complete_checkout', { id, payment_data: COD, idempotency_key: randomUUID() });
    expect(done.body.status).toBe('completed');
  });

  it('refusals are tool errors with UCP’s codes: an unknown checkout, a completed one, a canceled one', async () => {
    const b = await business();
    expect(await b.call('get_checkout', { id: 'chk_nope' })).toEqual({
      isError: true,
      body: { error: { code: 'not_found', message: 'Checkout session not found' } },
    });
    expect((await b.call('cancel_checkout', { id: 'chk_nope', idempotency_key: randomUUID() })).body).toMatchObject({ error: { code: 'not_found' } });

    const id = (await b.call('create_checkout', { checkout: { ...cart(1), fulfillment: shipping } })).body.id as string;
    expect((await b.call('complete_checkout', { id, payment_data: COD, idempotency_key: randomUUID() })).body.status).toBe('completed');
    for (const [name, args] of [
      ['update_checkout', { id, checkout: cart(1) }],
      ['complete_checkout', { id, payment_data: COD, idempotency_key: randomUUID() }],
      ['cancel_checkout', { id, idempotency_key: randomUUID() }],
    ] as const) {
      const answer = await b.call(name, args);
      expect(answer, name).toMatchObject({ isError: true, body: { error: { code: 'checkout_not_modifiable' } } });
    }

    const other = (await b.call('create_checkout', { checkout: cart(1) })).body.id as string;
    expect(await b.reserved()).toBe('2.000'); // the order's unit and the open checkout's
    const canceled = await b.call('cancel_checkout', { id: other, idempotency_key: randomUUID() });
    expect(canceled.body.status).toBe('canceled');
    expect(await b.reserved()).toBe('1.000');
    expect((await b.call('create_checkout', { checkout: cart(9) })).body).toMatchObject({ error: { code: 'out_of_stock' } });
    expect((await b.call('complete_checkout', { id: other, payment_data: { handler_id: 'bitcoin' }, idempotency_key: randomUUID() })).body).toMatchObject({
      error: { code: 'checkout_not_modifiable' },
    });
  });

  it('a strict-schema agent’s nulls read as not sent, nested ones too', async () => {
    const b = await business();
    const nulls = {
      checkout: {
        line_items: [{ id: null, item: { id: 'ROSE-1', title: null }, quantity: 1 }],
        currency: null,
        buyer: { ...BUYER, email: null, full_name: null, fullName: null, consent: null },
        fulfillment: { methods: [{ ...shipping.methods[0], id: null, line_item_ids: null }] },
        discounts: null,
        payment: null,
      },
      idempotency_key: null,
    };
    const created = await b.call('create_checkout', nulls);
    expect(created.body, JSON.stringify(created.body)).toMatchObject({ status: 'ready_for_complete' });
  });

  it('with the business off: forbidden, saying how to turn it on; nothing is held', async () => {
    const b = await business({ enabled: false });
    const answer = await b.call('create_checkout', { checkout: cart(1), idempotency_key: randomUUID() });
    expect(answer).toEqual({ isError: true, body: { error: { code: 'forbidden', message: expect.stringContaining('ucp enable') } } });
    expect((await b.call('get_checkout', { id: 'chk_any' })).body).toMatchObject({ error: { code: 'forbidden' } });
    expect(await b.reserved()).toBe('0.000');
  });

  it("another company's checkout is not found with this key, and is left as it was", async () => {
    const a = await business();
    const b = await business();
    const id = (await a.call('create_checkout', { checkout: { ...cart(1), fulfillment: shipping } })).body.id as string;
    expect((await b.call('get_checkout', { id })).body).toMatchObject({ error: { code: 'not_found' } });
    expect((await b.call('update_checkout', { id, checkout: cart(3) })).body).toMatchObject({ error: { code: 'not_found' } });
    expect((await b.call('complete_checkout', { id, payment_data: COD, idempotency_key: randomUUID() })).body).toMatchObject({ error: { code: 'not_found' } });
    expect((await b.call('cancel_checkout', { id, idempotency_key: randomUUID() })).body).toMatchObject({ error: { code: 'not_found' } });
    expect((await a.call('get_checkout', { id })).body).toMatchObject({ status: 'ready_for_complete', line_items: [{ quantity: 1 }] });
  });
});
