import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { useTestApp } from '../helpers/app.js';
import { codAvailability, orderThatEnds } from '../helpers/cod.js';
import { count, listeningUrl } from '../helpers/orders.js';
import { orderBody, teeShop } from '../helpers/fulfilment.js';

/**
 * The COD rules over MCP, through the official SDK client on a listening server: check_cod_availability answers as GET
 * /cod/availability does, place_order with payment "cod" is refused as POST /orders is (a tool error carrying the 422
 * body, nothing written), and find_customer carries the delivery record the rto_threshold counts.
 */
const ctx = useTestApp();
const PHONE = '9876543210';

/** What these tests read of a tool's answer. */
interface Answer {
  data: { payment?: string; available?: boolean; delivery_record?: Record<string, number> };
  error?: unknown;
}

const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close();
});

async function agent(rules: Parameters<typeof ctx.services.codSettings.set>[2]) {
  const s = await teeShop(ctx, '100');
  await ctx.services.codSettings.set(s.companyId, { kind: 'cli', name: 'test' }, rules);
  const client = new Client({ name: 'vitest-cod', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${await listeningUrl(ctx)}/mcp`), { requestInit: { headers: { 'x-api-key': s.key } } }));
  clients.push(client);
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent?: unknown };
    const body = JSON.parse(result.content[0].text) as Answer;
    if (!result.isError) expect(result.structuredContent).toEqual(body);
    return { isError: result.isError === true, body };
  };
  return { ...s, call };
}

const at = (pincode: string) => ({ line1: '12 MG Road', city: 'Somewhere', pincode });

describe('COD rules over MCP', () => {
  it('check_cod_availability is listed read-only and answers what GET /cod/availability answers, at each edge', async () => {
    const a = await agent({ blocked_pincodes: ['110010-110020'], max_order_value: '998.00', rto_threshold: 0 });
    const tool = (await clients.at(-1)!.listTools()).tools.find((t) => t.name === 'check_cod_availability')!;
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    await orderThatEnds(ctx, a, '9876500009', 'rto');
    const edges: Record<string, string>[] = [
      { pincode: '110009', amount: '998.00', phone: PHONE },
      { pincode: '110010', amount: '998.01', phone: PHONE },
      { pincode: '110020' },
      { pincode: '110021', phone: '9876500009' },
      {},
    ];
    for (const args of edges) {
      const viaTool = await a.call('check_cod_availability', args);
      const viaRest = await codAvailability(ctx, a.headers, args);
      expect(viaTool.isError, JSON.stringify(args)).toBe(false);
      expect(viaTool.body, JSON.stringify(args)).toEqual(viaRest.body);
    }
    expect((await a.call('check_cod_availability', { pincode: '110015', amount: null, phone: null })).body.data).toEqual({
      available: false,
      refusals: [{ rule: 'blocked_pincode', message: expect.stringContaining('110015') }],
      not_checked: ['max_order_value', 'rto_threshold'],
    });
    const bad = await a.call('check_cod_availability', { pincode: '1100' });
    expect(bad).toMatchObject({ isError: true, body: { error: { code: 'validation_failed', details: [{ path: 'pincode' }] } } });
  });

  it('place_order with payment "cod" breaking a rule is a tool error with the REST 422 body, nothing written; prepaid is placed', async () => {
    const a = await agent({ blocked_pincodes: ['560038'], rto_threshold: 0 });
    await orderThatEnds(ctx, a, PHONE, 'rto');
    const orders = await count(ctx, 'orders', a.companyId);
    const refused = await a.call('place_order', orderBody({ payment: 'cod', customer: { name: 'Asha Rao', phone: PHONE }, delivery_address: at('560038') }));
    expect(refused.isError).toBe(true);
    expect(refused.body).toEqual({
      error: {
        code: 'unprocessable',
        message: expect.stringContaining('blocked_pincode, rto_threshold'),
        details: [
          { rule: 'blocked_pincode', path: 'delivery_address.pincode', message: expect.any(String) },
          { rule: 'rto_threshold', path: 'customer.phone', message: expect.stringContaining('1 of their parcels') },
        ],
      },
    });
    expect(await count(ctx, 'orders', a.companyId)).toBe(orders);
    const prepaid = await a.call('place_order', orderBody({ customer: { name: 'Asha Rao', phone: PHONE }, delivery_address: at('560038') }));
    expect(prepaid.isError).toBe(false);
    expect(prepaid.body.data.payment).toBe('prepaid');
  });

  it('find_customer carries the delivery record, the count the rto_threshold reads', async () => {
    const a = await agent({ rto_threshold: 1 });
    for (const end of ['delivered', 'rto', 'cancelled'] as const) await orderThatEnds(ctx, a, PHONE, end);
    const found = await a.call('find_customer', { phone: PHONE });
    expect(found.body.data.delivery_record).toEqual({ delivered: 1, returned_to_origin: 1, cancelled: 1 });
    expect((await a.call('check_cod_availability', { phone: PHONE })).body.data.available).toBe(true);
    await orderThatEnds(ctx, a, PHONE, 'rto');
    expect((await a.call('find_customer', { phone: PHONE })).body.data.delivery_record?.returned_to_origin).toBe(2);
    expect((await a.call('check_cod_availability', { phone: PHONE })).body.data.available).toBe(false);
  });
});
