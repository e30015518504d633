import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { auditCompany } from '../helpers/audit.js';
import { shop, stockRow, uid } from '../helpers/orders.js';

/** The UCP checkout over real HTTP: stock held from the first line, totals in paise, codes, shipping, cancel. */

// a platform's profile on this machine's loopback is fetched (a deployment's default refuses private addresses)
const ctx = useTestApp({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' });

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
  const slug = s.company.slug;
  const call = async (method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown, key = uid(), agent = 'profile="https://agent.example/profile.json"') => {
    const res = await ctx.app.inject({
      method,
      url: `/ucp/${slug}/2026-01-11${path}`,
      headers: {
        'ucp-agent': agent,
        'idempotency-key': key,
        ...(payload ? { 'content-type': 'application/json' } : {}),
      },
      ...(payload ? { payload: JSON.stringify(payload) } : {}),
    });
    return { status: res.statusCode, body: res.json() };
  };
  const reserved = async () => (await stockRow(ctx, s.companyId, s.variantIds['ROSE-1'])).reserved;
  return { ...s, call, reserved };
}

/** reserved = sum(open reservations), never above on hand, no hold left by a finished checkout. */
async function expectSound(companyId: string) {
  const a = await auditCompany(ctx.db, companyId);
  expect({ stock: a.stock, orphans: a.orphans, strayHolds: a.strayHolds }).toEqual({ stock: [], orphans: [], strayHolds: [] });
}

const line = (id: string, quantity: number) => ({ item: { id, title: 'Wrong Title' }, quantity });
const US = { id: 'dest_1', address_country: 'US', postal_code: '62704' };

describe('UCP checkout sessions', () => {
  it('create prices the lines from the catalogue, holds their stock, and answers 201 in paise', async () => {
    const b = await business('5');
    const res = await b.call('POST', '/checkout-sessions', { line_items: [line('ROSE-1', 2)], currency: 'INR' });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^chk_[A-Za-z0-9]{24}$/);
    expect(res.body.status).toBe('incomplete');
    expect(res.body.line_items[0].item).toEqual({ id: 'ROSE-1', title: 'Red Rose Bouquet - 12 stems', price: 3500 });
    expect(res.body.totals).toEqual([
      { type: 'subtotal', display_text: 'Subtotal', amount: 7000 },
      { type: 'total', display_text: 'Total', amount: 7000 },
    ]);
    expect(await b.reserved()).toBe('2.000');
    await expectSound(b.companyId);
  });

  it('refuses an unknown item and short stock with UCP errors, holding nothing', async () => {
    const b = await business('1');
    const unknown = await b.call('POST', '/checkout-sessions', { line_items: [line('NOPE', 1)] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain('not found');
    const short = await b.call('POST', '/checkout-sessions', { line_items: [line('ROSE-1', 2)] });
    expect(short.status).toBe(400);
    expect(short.body.detail).toContain('Insufficient stock');
    expect(await b.reserved()).toBe('0.000');
  });

  it('update replaces the held quantity, applies codes and shipping, and becomes ready to complete', async () => {
    const b = await business('5');
    const created = await b.call('POST', '/checkout-sessions', { line_items: [line('ROSE-1', 1)] });
    const id = created.body.id as string;
    const withAddress = await b.call('PUT', `/checkout-sessions/${id}`, {
      line_items: [{ id: created.body.line_items[0].id, ...line('ROSE-1', 3) }],
      discounts: { codes: ['10off', 'BOGUS'] },
      fulfillment: { methods: [{ type: 'shipping', destinations: [US], selected_destination_id: 'dest_1' }] },
    });
    expect(withAddress.status).toBe(200);
    expect(await b.reserved()).toBe('3.000');
    expect(withAddress.body.line_items[0].id).toBe(created.body.line_items[0].id);
    const group = withAddress.body.fulfillment.methods[0].groups[0];
    expect(group.options.map((o: { id: string }) => o.id)).toEqual(['std-ship']);
    expect(withAddress.body.status).toBe('incomplete');
    expect(withAddress.body.discounts.applied).toEqual([
      { code: '10OFF', title: '10% Off', amount: 1050, allocations: [{ path: "$.totals[?(@.type=='subtotal')]", amount: 1050 }] },
    ]);
    expect(withAddress.body.messages.some((m: { code: string }) => m.code === 'discount_code_invalid')).toBe(true);

    const ready = await b.call('PUT', `/checkout-sessions/${id}`, {
      line_items: [line('ROSE-1', 3)],
      fulfillment: { methods: [{ groups: [{ selected_option_id: 'std-ship' }] }] },
    });
    expect(ready.body.status).toBe('ready_for_complete');
    const total = ready.body.totals.find((t: { type: string }) => t.type === 'total').amount;
    expect(total).toBe(10500 + 500 - 1050);
    const again = await b.call('GET', `/checkout-sessions/${id}`);
    expect(again.body.status).toBe('ready_for_complete');
  });

  it('an update asking for more than is in stock is refused and keeps the earlier hold', async () => {
    const b = await business('5');
    const created = await b.call('POST', '/checkout-sessions', { line_items: [line('ROSE-1', 2)] });
    const res = await b.call('PUT', `/checkout-sessions/${created.body.id}`, { line_items: [line('ROSE-1', 10001)] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('stock');
    expect(await b.reserved()).toBe('2.000');
  });

  it('cancel releases the hold; a canceled checkout cannot be changed or canceled again', async () => {
    const b = await business('5');
    const created = await b.call('POST', '/checkout-sessions', { line_items: [line('ROSE-1', 2)] });
    const id = created.body.id as string;
    const canceled = await b.call('POST', `/checkout-sessions/${id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    expect(await b.reserved()).toBe('0.000');
    expect((await b.call('POST', `/checkout-sessions/${id}/cancel`)).status).toBe(409);
    expect((await b.call('PUT', `/checkout-sessions/${id}`, { line_items: [line('ROSE-1', 1)] })).status).toBe(409);
    await expectSound(b.companyId);
  });

  it('replays a write for the same Idempotency-Key and body, and refuses the key with another body', async () => {
    const b = await business('5');
    const first = await b.call('POST', '/checkout-sessions', { line_items: [line('ROSE-1', 1)] }, 'same-key');
    const replay = await b.call('POST', '/checkout-sessions', { line_items: [line('ROSE-1', 1)] }, 'same-key');
    expect(replay).toEqual(first);
    expect(await b.reserved()).toBe('1.000');
    const other = await b.call('POST', '/checkout-sessions', { line_items: [line('ROSE-1', 2)] }, 'same-key');
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('idempotency_conflict');
  });

  it('truly parallel checkouts on the last units never hold more than there is', async () => {
    const b = await business('3');
    const results = await Promise.all(Array.from({ length: 8 }, () => b.call('POST', '/checkout-sessions', { line_items: [line('ROSE-1', 1)] })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 400)).toHaveLength(5);
    expect(await b.reserved()).toBe('3.000');
    await expectSound(b.companyId);
  });

  it('keeps where the platform wants order events, read from the profile its UCP-Agent names', async () => {
    const hook = 'http://127.0.0.1:9/webhooks/partners/p/events/order';
    const profile = createServer((_req, res) =>
      res.end(JSON.stringify({ ucp: { version: '2026-01-11', capabilities: [{ name: 'dev.ucp.shopping.order', config: { webhook_url: hook } }] } })),
    );
    await new Promise<void>((r) => profile.listen(0, '127.0.0.1', r));
    try {
      const b = await business('5');
      const url = `http://127.0.0.1:${(profile.address() as AddressInfo).port}/profile.json`;
      const created = await b.call('POST', '/checkout-sessions', { line_items: [line('ROSE-1', 1)] }, uid(), `profile="${url}"; version="2026-01-11"`);
      expect(created.status).toBe(201);
      const [row] = await ctx.db.query<{ platform_webhook_url: string | null }>(
        sql`SELECT platform_webhook_url FROM checkout_sessions WHERE company_id = ${b.companyId} AND id = ${created.body.id}`,
      );
      expect(row.platform_webhook_url).toBe(hook);
    } finally {
      profile.close();
    }
  });
});
