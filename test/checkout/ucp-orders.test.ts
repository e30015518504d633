import { createPublicKey, verify } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrderEventsWorker } from '../../src/checkout/order-events-worker.js';
import { useTestApp } from '../helpers/app.js';
import { post, orderBody, shop, stockRow, uid } from '../helpers/orders.js';
import { webhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * The UCP order after the checkout: events to the platform's webhook (signed, retried, built when sent), the order at
 * the business root, and the conformance harness (shipping simulation, PUT orders) served only with a secret.
 */

const SECRET = 'simulation-secret-of-this-test-file';
// a platform's profile and webhook on this machine's loopback (a deployment's default refuses private addresses)
const ctx = useTestApp({
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
  UCP_TEST_HANDLERS: 'true',
  UCP_SIMULATION_SECRET: SECRET,
  WEBHOOK_RETRY_BASE_MS: '1000',
});

let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
let profileServer: Server;
let profileUrl: string;
beforeAll(async () => {
  receiver = await webhookReceiver();
  profileServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ucp: { version: '2026-01-11', capabilities: [{ name: 'dev.ucp.shopping.order', version: '2026-01-11', config: { webhook_url: receiver.url } }] },
      }),
    );
  });
  await new Promise<void>((r) => profileServer.listen(0, '127.0.0.1', r));
  profileUrl = `http://127.0.0.1:${(profileServer.address() as AddressInfo).port}/profile.json`;
});
afterAll(async () => {
  await receiver.close();
  await new Promise((r) => profileServer.close(r));
});

const CARD = {
  payment_data: {
    id: 'instr_1',
    handler_id: 'mock_payment_handler',
    type: 'card',
    brand: 'Visa',
    last_digits: '1234',
    credential: { type: 'token', token: 'success_token' },
  },
};

async function business() {
  const s = await shop(ctx, [{ sku: 'ROSE', name: 'Red Rose Bouquet', variants: [{ sku: 'ROSE-1', name: '12 stems', selling_price: '35.00', stock: '9' }] }], {
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
  const slug = s.company.slug;
  const call = async (method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown, headers: Record<string, string> = {}) => {
    const res = await ctx.app.inject({
      method,
      url: `/ucp/${slug}${path}`,
      headers: { 'ucp-agent': `profile="${profileUrl}"`, 'idempotency-key': uid(), ...(payload ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(payload ? { payload: JSON.stringify(payload) } : {}),
    });
    return { status: res.statusCode, body: res.json() };
  };
  /** A checkout to a US address paid by the conformance card: its order id and checkout id. */
  const order = async (quantity = 2) => {
    const created = await call('POST', '/2026-01-11/checkout-sessions', {
      line_items: [{ item: { id: 'ROSE-1' }, quantity }],
      fulfillment: {
        methods: [{ type: 'shipping', destinations: [{ id: 'us', street_address: '1 Main St', address_country: 'US' }], selected_destination_id: 'us' }],
      },
    });
    expect(created.status).toBe(201);
    await call('PUT', `/2026-01-11/checkout-sessions/${created.body.id}`, {
      line_items: [{ item: { id: 'ROSE-1' }, quantity }],
      fulfillment: { methods: [{ groups: [{ selected_option_id: 'std-ship' }] }] },
    });
    const done = await call('POST', `/2026-01-11/checkout-sessions/${created.body.id}/complete`, CARD);
    expect(done.status).toBe(200);
    return { orderId: done.body.order.id as string, checkoutId: created.body.id as string };
  };
  return { ...s, slug, call, order };
}

const worker = () =>
  createOrderEventsWorker({
    db: ctx.db,
    config: ctx.config,
    checkout: ctx.services.checkout,
    origin: () => 'https://api.example.in',
    log: ctx.workerLog('ucp-order-events'),
  });

/** The detached JWS (RFC 7797, unencoded payload) verified over the body with the profile's key named by its kid. */
function verifiesWith(signature: string, body: string, keys: { kid: string }[]): boolean {
  const [header, empty, sig] = signature.split('.');
  const protectedHeader = JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg: string; kid: string; b64: boolean; crit: string[] };
  const jwk = keys.find((k) => k.kid === protectedHeader.kid);
  if (empty !== '' || protectedHeader.alg !== 'ES256' || protectedHeader.b64 !== false || !jwk) return false;
  return verify(
    'sha256',
    Buffer.from(`${header}.${body}`),
    { key: createPublicKey({ key: jwk as never, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(sig, 'base64url'),
  );
}

describe('UCP orders', () => {
  it('the platform hears of the order placed and shipped, each the full order signed with a key the business profile lists', async () => {
    const b = await business();
    const { orderId, checkoutId } = await b.order();
    const w = worker();
    await w.drainNow();
    // the profile UCP-Agent names: 2026-01-11's, the events' version
    const profile = (await b.call('GET', '/2026-01-11/.well-known/ucp')).body as { signing_keys: { kid: string }[] };

    const placed = receiver.state.received.filter((r) => (r.body as unknown as { order: { id: string } }).order.id === orderId);
    expect(placed).toHaveLength(1);
    const event = placed[0].body as unknown as {
      event_type: string;
      checkout_id: string;
      order: { id: string; checkout_id: string; fulfillment: { events: unknown[] } };
    };
    expect(event).toMatchObject({
      event_type: 'order_placed',
      checkout_id: checkoutId,
      order: { id: orderId, checkout_id: checkoutId, fulfillment: { events: [] } },
    });
    expect(verifiesWith(String(placed[0].headers['request-signature']), placed[0].raw, profile.signing_keys)).toBe(true);
    expect(verifiesWith(String(placed[0].headers['request-signature']), placed[0].raw.replace('order_placed', 'order_shipped'), profile.signing_keys)).toBe(
      false,
    );
    expect(placed[0].headers['ucp-agent']).toBe(`profile="https://api.example.in/ucp/${b.slug}/2026-01-11/.well-known/ucp"`);

    // staff ship it by hand: the order moves, and the platform hears order_shipped with the shipment as an event
    await ctx.services.fulfilment.ship(b.companyId, orderId, { awb: 'AWB123456', courier: 'Blue Dart' });
    await w.drainNow();
    const shipped = receiver.state.received.find(
      (r) =>
        (r.body as unknown as { event_type: string; order: { id: string } }).order.id === orderId &&
        (r.body as unknown as { event_type: string }).event_type === 'order_shipped',
    );
    expect(shipped).toBeDefined();
    const order = (shipped!.body as unknown as { order: { fulfillment: { events: Record<string, unknown>[] }; line_items: { status: string }[] } }).order;
    expect(order.fulfillment.events).toEqual([
      expect.objectContaining({ type: 'shipped', tracking_number: 'AWB123456', description: 'Shipped via Blue Dart' }),
    ]);
    expect(order.line_items.map((l) => l.status)).toEqual(['fulfilled']);
    // each event once: nothing more is due
    const rows = await ctx.db.query<{ event_type: string; status: string }>(
      sql`SELECT event_type, status FROM ucp_order_deliveries WHERE company_id = ${b.companyId} ORDER BY created_at`,
    );
    expect(rows).toEqual([
      { event_type: 'order_placed', status: 'delivered' },
      { event_type: 'order_shipped', status: 'delivered' },
    ]);
  });

  it('a platform that fails is retried later, with the attempt and its error kept; an order not from a checkout owes no platform anything', async () => {
    const b = await business();
    receiver.state.down = true;
    const { orderId } = await b.order(1);
    const w = worker();
    try {
      await w.drainNow();
    } finally {
      receiver.state.down = false;
    }
    const [row] = await ctx.db.query<{ status: string; attempts: number; last_status: number; due_later: boolean }>(sql`
      SELECT status, attempts, last_status, next_attempt_at > now() AS due_later FROM ucp_order_deliveries WHERE company_id = ${b.companyId} AND order_id = ${orderId}`);
    expect(row).toEqual({ status: 'pending', attempts: 1, last_status: 503, due_later: true });
    await ctx.db.query(sql`UPDATE ucp_order_deliveries SET next_attempt_at = now() WHERE company_id = ${b.companyId}`);
    await w.drainNow();
    const [after] = await ctx.db.query<{ status: string; attempts: number }>(
      sql`SELECT status, attempts FROM ucp_order_deliveries WHERE company_id = ${b.companyId} AND order_id = ${orderId}`,
    );
    expect(after).toEqual({ status: 'delivered', attempts: 2 });

    // an order over POST /orders, shipped: no UCP event is owed
    const placed = await post(ctx, b.headers, orderBody({ items: [{ product_id: 'ROSE-1', quantity: 1 }] }));
    expect(placed.status).toBe(201);
    await ctx.services.fulfilment.ship(b.companyId, placed.body.data.order_id, { awb: 'AWB999' });
    const [owed] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM ucp_order_deliveries WHERE company_id = ${b.companyId}`);
    expect(owed.n).toBe(1);
  });

  it('the order reads the same at the business root; the shipping simulation needs the secret, then ships the order for real', async () => {
    const b = await business();
    const { orderId, checkoutId } = await b.order(2);
    const versioned = await b.call('GET', `/2026-01-11/orders/${orderId}`);
    const root = await b.call('GET', `/orders/${orderId}`);
    expect(root).toEqual(versioned);
    expect(root.body).toMatchObject({ id: orderId, checkout_id: checkoutId });

    for (const headers of [{} as Record<string, string>, { 'simulation-secret': 'wrong' }, { 'simulation-secret': `${SECRET}x` }]) {
      const refused = await b.call('POST', `/testing/simulate-shipping/${orderId}`, undefined, headers);
      expect(refused.status).toBe(403);
    }
    expect((await b.call('POST', `/testing/simulate-shipping/ord_unknown`, undefined, { 'simulation-secret': SECRET })).status).toBe(404);
    const shipped = await b.call('POST', `/testing/simulate-shipping/${orderId}`, undefined, { 'simulation-secret': SECRET });
    expect(shipped.status).toBe(200);
    expect(shipped.body.fulfillment.events).toEqual([expect.objectContaining({ type: 'shipped' })]);
    const [order] = await ctx.db.query<{ status: string }>(sql`SELECT status FROM orders WHERE company_id = ${b.companyId} AND id = ${orderId}`);
    expect(order.status).toBe('shipped');
    // shipped stock left the shelf: on hand down by two, nothing reserved for it
    expect(await stockRow(ctx, b.companyId, b.variantIds['ROSE-1'])).toMatchObject({ on_hand: '7.000', reserved: '0.000' });
  });

  it('PUT orders (the harness) keeps valid events and adjustments, refuses a bad one with 422, and never rewrites the shipment', async () => {
    const b = await business();
    const { orderId } = await b.order(1);
    const sim = await b.call('POST', `/testing/simulate-shipping/${orderId}`, undefined, { 'simulation-secret': SECRET });
    const own = sim.body.fulfillment.events[0] as { id: string; tracking_number: string };
    const adjustment = { id: 'adj_1', type: 'refund', occurred_at: '2026-11-27T10:00:00Z', status: 'pending', amount: 500 };
    const event = { id: 'evt_1', occurred_at: '2026-11-27T11:00:00Z', type: 'in_transit', line_items: [], tracking_number: 'TRACK123' };
    const kept = await b.call('PUT', `/orders/${orderId}`, {
      ...sim.body,
      fulfillment: { ...sim.body.fulfillment, events: [{ ...own, tracking_number: 'FORGED' }, event] },
      adjustments: [adjustment],
    });
    expect(kept.status).toBe(200);
    expect(kept.body.fulfillment.events).toEqual([
      expect.objectContaining({ id: own.id, tracking_number: own.tracking_number }),
      expect.objectContaining(event),
    ]);
    expect(kept.body.adjustments).toEqual([adjustment]);
    expect((await b.call('GET', `/orders/${orderId}`)).body.adjustments).toEqual([adjustment]);

    const badStatus = await b.call('PUT', `/2026-01-11/orders/${orderId}`, { adjustments: [{ ...adjustment, status: 'INVALID_STATUS' }] });
    expect(badStatus.status).toBe(422);
    expect(badStatus.body.messages[0]).toMatchObject({ code: 'invalid_request', path: '$.adjustments[0].status' });
    const notAList = await b.call('PUT', `/orders/${orderId}`, { adjustments: { id: 'adj_1', amount: 100 } });
    expect(notAList.status).toBe(422);
    expect((await b.call('GET', `/orders/${orderId}`)).body.adjustments).toEqual([adjustment]);
  });
});

describe('UCP orders without a simulation secret', () => {
  const plain = useTestApp({ UCP_TEST_HANDLERS: 'true' });
  it('the harness does not exist: 404 for the shipping simulation and PUT orders, whatever the header says', async () => {
    const s = await shop(plain, [], { company: { slug: `ucp-${uid()}` } });
    await plain.services.ucpSettings.set(s.companyId, { kind: 'cli', name: 'test' }, { enabled: true });
    for (const [method, url] of [
      ['POST', `/ucp/${s.company.slug}/testing/simulate-shipping/ord_1`],
      ['PUT', `/ucp/${s.company.slug}/orders/ord_1`],
      ['PUT', `/ucp/${s.company.slug}/2026-01-11/orders/ord_1`],
    ] as const) {
      const res = await plain.app.inject({ method, url, headers: { 'simulation-secret': SECRET, 'content-type': 'application/json' }, payload: '{}' });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
  });
});
