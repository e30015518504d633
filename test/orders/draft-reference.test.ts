import pg from 'pg';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { isCitus } from '../../src/db/cross-company.js';
import { useTestApp } from '../helpers/app.js';
import { BASE, count, fetchJson, get, listeningUrl, orderBody, post, shop, stockRow, uid } from '../helpers/orders.js';

const ctx = useTestApp();

const teeShop = () => shop(ctx, [{ sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', selling_price: '299.00', stock: '10' }] }]);

const draftBody = (externalReference: string) => ({
  customer: { name: 'Ravi', phone: '9876501234' },
  items: [{ product_id: 'TEE-M', quantity: 3 }],
  payment: 'cod' as const,
  external_reference: externalReference,
});

async function mcpPlaceOrder(headers: Record<string, string>, args: unknown) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: `${BASE}/mcp`,
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'place_order', arguments: args } },
  });
  const text = res.body.startsWith('event:')
    ? res.body
        .split('\n')
        .find((l) => l.startsWith('data: '))!
        .slice(6)
    : res.body;
  const result = JSON.parse(text).result;
  return { isError: result.isError as boolean | undefined, body: JSON.parse(result.content[0].text) };
}

function expectDraftRefusal(body: unknown) {
  expect(body).toEqual({
    error: {
      code: 'unprocessable',
      message: expect.stringMatching(/belongs to an order staff are preparing; nothing was placed; send a new external_reference/),
      details: [{ path: 'external_reference', message: expect.any(String) }],
    },
  });
}

describe("a staff draft's external_reference sent to POST /orders", () => {
  it('is refused (422 unprocessable, nothing placed, the draft never shown) by REST and MCP; once confirmed it is an ordinary duplicate', async () => {
    const s = await teeShop();
    const ref = `draft-${uid()}`;
    const draft = await ctx.services.fulfilment.createDraft(s.companyId, draftBody(ref));
    expect(draft.order_status).toBe('draft');

    const res = await post(ctx, s.headers, orderBody({ external_reference: ref }));
    expect(res.status).toBe(422);
    expectDraftRefusal(res.body);
    expect(JSON.stringify(res.body)).not.toContain(draft.order_number);

    const viaMcp = await mcpPlaceOrder(s.headers, orderBody({ external_reference: ref }));
    expect(viaMcp.isError).toBe(true);
    expect(viaMcp.body).toEqual(res.body);

    // Nothing placed: still the one draft, no stock reserved, and the reference finds nothing.
    expect(await count(ctx, 'orders', s.companyId)).toBe(1);
    expect((await stockRow(ctx, s.companyId, s.variantIds['TEE-M'])).reserved).toBe('0.000');
    expect((await get(ctx, s.headers, `/orders/${ref}`)).status).toBe(404);

    // A new reference places the order.
    expect((await post(ctx, s.headers, orderBody({ external_reference: `${ref}-new` }))).status).toBe(201);

    // Confirmed by staff, the draft is an order like any other: the reference answers it as the duplicate.
    await ctx.services.fulfilment.confirm(s.companyId, draft.order_number);
    const again = await post(ctx, s.headers, orderBody({ external_reference: ref }));
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ duplicate: true, data: { order_number: draft.order_number, order_status: 'confirmed', amount: '897.00' } });
  });

  it('racing a staff draft with the same reference: the POST waits for the draft; rolled back it places, committed it is refused', async () => {
    if (!ctx.testDb.url) return; // needs a second real connection holding the draft's transaction open
    const s = await teeShop();
    const url = await listeningUrl(ctx);
    const staff = new pg.Client({ connectionString: ctx.testDb.url });
    await staff.connect();
    try {
      const [customer] = await ctx.db.query<{ id: string }>(sql`
        INSERT INTO customers (company_id, id, name, phone_e164) VALUES (${s.companyId}, ${`cus_${uid()}`}, 'Ravi', '+919876501234') RETURNING id`);
      // What createDraft's transaction writes, held open until the POST is seen waiting on the reference.
      const holdDraft = async (ref: string) => {
        await staff.query('BEGIN');
        await staff.query(
          `INSERT INTO orders (company_id, id, order_number, external_reference, customer_id, status, payment, amount)
           VALUES ($1, $2, $3, $4, $5, 'draft', 'cod', 897)`,
          [s.companyId, `ord_${uid()}`, `ORD-DRAFT-${uid()}`, ref, customer.id],
        );
      };
      // On Citus the POST waits on a worker node, behind the coordinator: citus_lock_waits shows it there.
      const blocked = (await isCitus(ctx.db))
        ? sql`SELECT count(*)::int AS n FROM citus_lock_waits WHERE blocked_statement LIKE '%place_order%'`
        : sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%place_order%' AND datname = current_database()`;
      const waitForBlockedPost = async () => {
        for (let i = 0; i < 300; i++) {
          // Polled on the app's pool: inside the staff transaction pg_stat_activity would be a stale snapshot.
          const [r] = await ctx.db.query<{ n: number }>(blocked);
          if (r.n > 0) return;
          await new Promise((r) => setTimeout(r, 10));
        }
        throw new Error('the POST never waited on the draft');
      };

      const rolledBack = `race-${uid()}`;
      await holdDraft(rolledBack);
      const first = fetchJson(`${url}/orders`, { method: 'POST', headers: s.headers, body: orderBody({ external_reference: rolledBack }) });
      await waitForBlockedPost();
      await staff.query('ROLLBACK');
      const placed = await first;
      expect(placed.status).toBe(201);
      expect(placed.body.data.external_reference).toBe(rolledBack);

      const committed = `race-${uid()}`;
      await holdDraft(committed);
      const second = fetchJson(`${url}/orders`, { method: 'POST', headers: s.headers, body: orderBody({ external_reference: committed }) });
      await waitForBlockedPost();
      await staff.query('COMMIT');
      const refused = await second;
      expect(refused.status).toBe(422);
      expectDraftRefusal(refused.body);
      // Only the placed order reserved stock; the refused one kept nothing.
      expect((await stockRow(ctx, s.companyId, s.variantIds['TEE-M'])).reserved).toBe('1.000');
      expect(await count(ctx, 'order_lines', s.companyId)).toBe(1);
    } finally {
      await staff.query('ROLLBACK').catch(() => {});
      await staff.end();
    }
  });
});
