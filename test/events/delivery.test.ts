import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryWorker, retryDelayMs } from '../../src/events/delivery-worker.js';
import { verifyWebhook } from '../../src/lib/webhook-signature.js';
import { useTestApp } from '../helpers/app.js';
import { BASE, get, orderBody, post, teeShop } from '../helpers/fulfilment.js';
import { webhookReceiver, type Received } from '../helpers/webhook-receiver.js';
import { EVENT_TYPES } from '../../src/contract/webhooks.js';

/** Webhook delivery proved with a real HTTP receiver on this machine (http and loopback allowed for the test only). */
const ctx = useTestApp({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_WORKER_ENABLED: 'false' });

let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
beforeAll(async () => {
  receiver = await webhookReceiver();
});
afterAll(() => receiver?.close());

const fast = { WEBHOOK_RETRY_BASE_MS: 20, WEBHOOK_RETRY_MAX_MS: 100 };
const worker = (overrides: Partial<typeof ctx.config> = {}) =>
  createDeliveryWorker({ db: ctx.db, config: { ...ctx.config, ...fast, ...overrides }, log: ctx.workerLog('webhook-worker') });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A shop with a webhooks key and one endpoint on `url` subscribed to `events`. */
async function subscribed(url: string, events: readonly string[] = EVENT_TYPES) {
  const s = await teeShop(ctx, '50');
  const created = await ctx.services.webhooks.create(s.companyId, { kind: 'cli', name: 'test' }, { url, events: [...events] as never, description: null });
  return { ...s, endpointId: created.id, secret: created.secret };
}

/** What `receiver` got for one company's orders and customers (events carry the company's own ids only). */
const mine = (ids: Set<string>) => receiver.state.received.filter((r) => ids.has(r.body.id));
async function eventIds(companyId: string) {
  const rows = await ctx.db.query<{ id: string }>(sql`SELECT id FROM events WHERE company_id = ${companyId} ORDER BY seq`);
  return new Set(rows.map((r) => r.id));
}
async function deliveryStates(companyId: string) {
  return ctx.db.query<{ event_id: string; status: string; attempts: number; last_status_code: number | null; last_error: string | null }>(
    sql`SELECT event_id, status, attempts, last_status_code, last_error FROM webhook_deliveries WHERE company_id = ${companyId} ORDER BY seq`,
  );
}

describe('events delivered to a real receiver', () => {
  it('fires each event type once per change, signed, with the lookup shape and the opt-out in every order event', async () => {
    const s = await subscribed(receiver.url);
    const w = worker();
    const placed = await post(ctx, s.headers, orderBody({ payment: 'prepaid' }));
    expect(placed.status).toBe(201);
    const ref = placed.body.data.order_number as string;
    expect((await post(ctx, s.headers, orderBody({ external_reference: placed.body.data.external_reference }))).status).toBe(200); // a repeat: no event
    await ctx.services.fulfilment.move(s.companyId, ref, 'packed');
    await ctx.services.fulfilment.ship(s.companyId, ref, { awb: 'AWB-EV-1', courier: 'Delhivery' }); // shipped, invoice (prepaid: paid), shipment
    await ctx.services.fulfilment.track(s.companyId, { reference: ref }, 'in_transit');
    await ctx.services.fulfilment.track(s.companyId, { reference: ref }, 'in_transit'); // a repeat: no event
    const optOut = () =>
      ctx.app.inject({
        method: 'PUT',
        url: `${BASE}/customers/messaging-opt-out`,
        headers: s.headers,
        payload: { phone: '9876543210', messaging_opted_out: true },
      });
    const opted = (await optOut()).json();
    expect(opted.changed).toBe(true);
    const customerThen = (await get(ctx, s.headers, '/customers?phone=9876543210')).body.data;
    expect((await optOut()).json().changed).toBe(false); // idempotent: no event
    await ctx.services.fulfilment.track(s.companyId, { reference: ref }, 'delivered');
    await w.drainNow(s.companyId);

    // In order per subject: the order's events in the order they happened; the customer's event on its own.
    const got = mine(await eventIds(s.companyId));
    expect(got.filter((r) => r.body.type === 'customer.messaging_opt_out_changed')).toHaveLength(1);
    expect(got.filter((r) => r.body.type !== 'customer.messaging_opt_out_changed').map((r) => r.body.type)).toEqual([
      'order.created',
      'order.status_changed', // packed
      'invoice.issued',
      'payment.recorded',
      'order.status_changed', // shipped
      'shipment.updated', // booked
      'shipment.updated', // in_transit
      'shipment.updated', // delivered
      'order.status_changed', // delivered
    ]);
    expect(new Set(got.map((r) => r.body.id)).size).toBe(got.length);
    for (const r of got) {
      expect(r.headers['x-webhook-id']).toBe(r.body.id);
      expect(verifyWebhook(s.secret, r.raw, String(r.headers['x-webhook-signature']))).toBe(true);
      expect(r.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    const orderEvents = got.filter((r) => r.body.type !== 'customer.messaging_opt_out_changed');
    expect(orderEvents.map((r) => (r.body.data.customer as { messaging_opted_out: boolean }).messaging_opted_out)).toEqual([
      ...Array(7).fill(false),
      true,
      true,
    ]);
    expect(orderEvents.map((r) => r.body.data.order_status)).toEqual([
      'confirmed',
      'packed',
      'packed',
      'packed',
      'shipped',
      'shipped',
      'shipped',
      'shipped',
      'delivered',
    ]);
    // The last event's data is exactly what GET /orders/{reference} answers now, except the invoice's signed PDF link,
    // which only a lookup carries (null in events); the first is the new order as created.
    const lookup = await get(ctx, s.headers, `/orders/${ref}`);
    expect(lookup.body.data.invoice.url).toMatch(/^http.*\/invoices\/.*\.pdf\?expires=\d+&sig=/);
    expect(orderEvents.at(-1)!.body.data).toEqual({ ...lookup.body.data, invoice: { ...lookup.body.data.invoice, url: null } });
    expect(orderEvents[0].body.data).toEqual({
      ...lookup.body.data,
      order_status: 'confirmed',
      status_label: expect.any(String),
      shipment: null,
      invoice: null,
      // before the opt-out: order updates could be sent on messaging
      customer: {
        ...lookup.body.data.customer,
        messaging_opted_out: false,
        may_send: { ...lookup.body.data.customer.may_send, order_updates: { messaging: true, email: true } },
      },
    });
    // The customer's event is the GET /customers shape as it was at the change (also the PUT's answer).
    const customerEvent = got.find((r) => r.body.type === 'customer.messaging_opt_out_changed')!.body.data;
    expect(customerEvent).toEqual(customerThen);
    expect(customerEvent).toEqual(opted.data);
  });

  it('sends order.created for MCP orders and for confirmed drafts, and nothing for a draft', async () => {
    const s = await subscribed(receiver.url, ['order.created', 'order.status_changed']);
    const mcp = await ctx.app.inject({
      method: 'POST',
      url: `${BASE}/mcp`,
      headers: { ...s.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'place_order', arguments: orderBody() } },
    });
    expect(mcp.statusCode).toBe(200);
    const draft = await ctx.services.fulfilment.createDraft(s.companyId, {
      customer: { name: 'Ravi', phone: '9876501234' },
      items: [{ product_id: 'TEE-M', quantity: 1 }],
      payment: 'cod',
    } as never);
    const cancelledDraft = await ctx.services.fulfilment.createDraft(s.companyId, {
      customer: { name: 'Ravi', phone: '9876501234' },
      items: [{ product_id: 'TEE-M', quantity: 1 }],
      payment: 'cod',
    } as never);
    await ctx.services.fulfilment.move(s.companyId, cancelledDraft.order_number, 'cancelled');
    await worker().drainNow(s.companyId);
    expect(mine(await eventIds(s.companyId)).map((r) => r.body.type)).toEqual(['order.created']);
    await ctx.services.fulfilment.confirm(s.companyId, draft.order_number);
    await worker().drainNow(s.companyId);
    const got = mine(await eventIds(s.companyId));
    expect(got.map((r) => [r.body.type, r.body.data.order_status])).toEqual([
      ['order.created', 'confirmed'],
      ['order.created', 'confirmed'],
    ]);
    expect(got[1].body.data.order_number).toBe(draft.order_number);
  });

  it('sends only the subscribed types', async () => {
    const s = await subscribed(receiver.url, ['shipment.updated']);
    const placed = await post(ctx, s.headers, orderBody());
    await ctx.services.fulfilment.move(s.companyId, placed.body.data.order_number, 'packed');
    await worker().drainNow(s.companyId);
    expect(mine(await eventIds(s.companyId))).toEqual([]);
    expect(await deliveryStates(s.companyId)).toEqual([]);
  });

  it('keeps everything while the receiver is down and delivers it all, in order per order, when it is back', async () => {
    const down = await webhookReceiver();
    try {
      const s = await subscribed(down.url);
      const w = worker();
      down.state.down = true;
      const refs: string[] = [];
      for (let i = 0; i < 2; i++) refs.push((await post(ctx, s.headers, orderBody())).body.data.order_number as string);
      for (const ref of refs) {
        await ctx.services.fulfilment.move(s.companyId, ref, 'packed');
        await ctx.services.fulfilment.move(s.companyId, ref, 'cancelled');
      }
      for (let i = 0; i < 6; i++) {
        await w.runOnce(s.companyId);
        await sleep(30);
      }
      expect(down.state.attempts).toBeGreaterThan(2);
      expect(down.state.received).toEqual([]);
      const states = await deliveryStates(s.companyId);
      expect(states).toHaveLength(6);
      expect(states.every((d) => d.status === 'pending')).toBe(true);
      // in order per order: only the first event of each order was ever tried
      expect(states.filter((d) => d.attempts > 0)).toHaveLength(2);
      expect(states.find((d) => d.attempts > 0)!.last_status_code).toBe(503);

      down.state.down = false;
      for (let i = 0; i < 40 && (await deliveryStates(s.companyId)).some((d) => d.status !== 'delivered'); i++) {
        await w.drainNow(s.companyId);
        await sleep(30);
      }
      expect((await deliveryStates(s.companyId)).map((d) => d.status)).toEqual(Array(6).fill('delivered'));
      const byOrder = (ref: string) =>
        down.state.received.filter((r) => r.body.data.order_number === ref).map((r) => `${r.body.type}:${String(r.body.data.order_status)}`);
      for (const ref of refs) expect(byOrder(ref)).toEqual(['order.created:confirmed', 'order.status_changed:packed', 'order.status_changed:cancelled']);
      expect(new Set(down.state.received.map((r) => r.body.id)).size).toBe(6);
    } finally {
      await down.close();
    }
  });

  it('does not follow a redirect: the delivery stays pending with the 3xx recorded, and the target gets nothing', async () => {
    const target = await webhookReceiver();
    const redirecting = await webhookReceiver();
    try {
      redirecting.state.redirectTo = target.url;
      const s = await subscribed(redirecting.url, ['order.created']);
      await post(ctx, s.headers, orderBody());
      await worker().runOnce(s.companyId);
      expect(redirecting.state.attempts).toBe(1);
      expect(target.state.attempts).toBe(0);
      expect(await deliveryStates(s.companyId)).toEqual([expect.objectContaining({ status: 'pending', attempts: 1, last_status_code: 302 })]);
      await ctx.services.webhooks.remove(s.companyId, { kind: 'cli', name: 'test' }, s.endpointId);
      expect(await deliveryStates(s.companyId)).toEqual([expect.objectContaining({ status: 'failed' })]);
    } finally {
      await target.close();
      await redirecting.close();
    }
  });

  it('checks the address again when connecting: a name that now resolves to loopback is refused, nothing is sent', async () => {
    const s = await subscribed(receiver.url.replace('127.0.0.1', 'localhost'), ['order.created']);
    await post(ctx, s.headers, orderBody());
    const before = receiver.state.attempts;
    await worker({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: false }).runOnce(s.companyId);
    expect(receiver.state.attempts).toBe(before);
    expect(await deliveryStates(s.companyId)).toEqual([
      expect.objectContaining({ status: 'pending', attempts: 1, last_status_code: null, last_error: expect.stringContaining('forbidden address') }),
    ]);
    await ctx.services.webhooks.remove(s.companyId, { kind: 'cli', name: 'test' }, s.endpointId);
  });

  it('counts an answer slower than the timeout as a failure', async () => {
    const slow = await webhookReceiver();
    try {
      slow.state.delayMs = 1000;
      const s = await subscribed(slow.url, ['order.created']);
      await post(ctx, s.headers, orderBody());
      const started = Date.now();
      await worker({ WEBHOOK_TIMEOUT_MS: 150 }).runOnce(s.companyId);
      expect(Date.now() - started).toBeLessThan(900);
      expect(await deliveryStates(s.companyId)).toEqual([
        expect.objectContaining({ status: 'pending', attempts: 1, last_status_code: null, last_error: 'timed out after 150 ms' }),
      ]);
      await ctx.services.webhooks.remove(s.companyId, { kind: 'cli', name: 'test' }, s.endpointId);
    } finally {
      await slow.close();
    }
  });

  it('gives a delivery up after the retry window, and the admin re-sends it', async () => {
    const flaky = await webhookReceiver();
    try {
      flaky.state.down = true;
      const s = await subscribed(flaky.url, ['order.created']);
      await post(ctx, s.headers, orderBody());
      await sleep(5);
      await worker({ WEBHOOK_RETRY_FOR_MS: 1 }).runOnce(s.companyId);
      expect(await deliveryStates(s.companyId)).toEqual([expect.objectContaining({ status: 'failed', attempts: 1, last_status_code: 503 })]);
      flaky.state.down = false;
      expect(await ctx.services.webhooks.resend(s.companyId, { kind: 'cli', name: 'test' }, null)).toEqual({ resent: 1 });
      await worker().drainNow(s.companyId);
      expect(await deliveryStates(s.companyId)).toEqual([expect.objectContaining({ status: 'delivered', attempts: 2, last_status_code: 200 })]);
      expect(flaky.state.received).toHaveLength(1);
    } finally {
      await flaky.close();
    }
  });

  it('disables an endpoint that keeps failing past the disable window and shows it to the admin', async () => {
    const dead = await webhookReceiver();
    try {
      dead.state.down = true;
      const s = await subscribed(dead.url, ['order.created', 'order.status_changed']);
      const placed = await post(ctx, s.headers, orderBody());
      await ctx.services.fulfilment.move(s.companyId, placed.body.data.order_number, 'packed');
      const w = worker({ WEBHOOK_DISABLE_AFTER_MS: 40 });
      await w.runOnce(s.companyId); // first failure: failing since now
      expect((await ctx.services.webhooks.list(s.companyId))[0]).toMatchObject({ status: 'active', failing_since: expect.any(String) });
      await sleep(60);
      await w.runOnce(s.companyId);
      const [endpoint] = await ctx.services.webhooks.list(s.companyId);
      expect(endpoint).toMatchObject({ status: 'disabled', disabled_reason: expect.stringContaining('no successful delivery since') });
      expect((await deliveryStates(s.companyId)).map((d) => d.status)).toEqual(['failed', 'failed']);
      // Nothing more is recorded for a disabled endpoint.
      await post(ctx, s.headers, orderBody());
      expect(await deliveryStates(s.companyId)).toHaveLength(2);
      // The admin turns it on again once it works, and re-sends what failed: delivered in order.
      dead.state.down = false;
      expect(await ctx.services.webhooks.enable(s.companyId, { kind: 'cli', name: 'test' }, s.endpointId)).toMatchObject({
        status: 'active',
        failing_since: null,
        disabled_reason: null,
      });
      expect(await ctx.services.webhooks.resend(s.companyId, { kind: 'cli', name: 'test' }, null)).toEqual({ resent: 2 });
      await worker().drainNow(s.companyId);
      expect((await deliveryStates(s.companyId)).map((d) => d.status)).toEqual(['delivered', 'delivered']);
      expect(dead.state.received.map((r) => r.body.type)).toEqual(['order.created', 'order.status_changed']);
    } finally {
      await dead.close();
    }
  });

  it('signs with both secrets during a rotation’s grace period', async () => {
    const s = await subscribed(receiver.url, ['order.created']);
    const rotated = await ctx.services.webhooks.rotate(s.companyId, { kind: 'cli', name: 'test' }, s.endpointId);
    expect(rotated.secret).not.toBe(s.secret);
    await post(ctx, s.headers, orderBody());
    await worker().drainNow(s.companyId);
    const [r] = mine(await eventIds(s.companyId)) as [Received];
    const header = String(r.headers['x-webhook-signature']);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifyWebhook(s.secret, r.raw, header)).toBe(true);
    expect(verifyWebhook(rotated.secret, r.raw, header)).toBe(true);
  });
});

describe('retry schedule', () => {
  it('doubles from the base up to the cap, with ±50% jitter', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(1000, 5000, n, () => 0.5))).toEqual([1000, 2000, 4000, 5000]);
    expect(retryDelayMs(1000, 5000, 1, () => 0)).toBe(500);
    expect(retryDelayMs(1000, 5000, 1, () => 0.999)).toBe(1499);
  });
});

describe('delivery outcomes for metrics', () => {
  it('each recorded attempt reports its outcome: delivered to a receiver that answers, retrying to one that does not', async () => {
    const outcomes: string[] = [];
    const observed = () =>
      createDeliveryWorker({ db: ctx.db, config: { ...ctx.config, ...fast }, log: ctx.workerLog('webhook-worker'), onOutcome: (o) => outcomes.push(o) });
    const up = await subscribed(receiver.url, ['order.created']);
    expect((await post(ctx, up.headers, orderBody())).status).toBe(201);
    await observed().runOnce(up.companyId);
    expect(outcomes).toEqual(['delivered']);
    const down = await subscribed('http://127.0.0.1:1/hook', ['order.created']);
    expect((await post(ctx, down.headers, orderBody())).status).toBe(201);
    await observed().runOnce(down.companyId);
    expect(outcomes).toEqual(['delivered', 'retrying']);
    expect((await deliveryStates(down.companyId)).map((d) => d.status)).toEqual(['pending']);
  });
});
