import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCodSettings } from '../../src/cod/cod-settings.queries.js';
import { useTestApp } from '../helpers/app.js';
import { BASE, orderBody, stockRow } from '../helpers/orders.js';
import { teeShop } from '../helpers/fulfilment.js';

/** `confirm_cod_order` through the official MCP SDK client on a listening app: the REST answers, the phone gate of get_order. */
const ctx = useTestApp();
let origin: string;
const clients: Client[] = [];

beforeAll(async () => {
  origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  for (const c of clients) await c.close();
});

async function codShop() {
  const s = await teeShop(ctx, '10', { auto_courier_booking: true });
  await writeCodSettings(ctx.db, s.companyId, { confirm_before_booking: true });
  const client = new Client({ name: 'vitest', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}${BASE}/mcp`), { requestInit: { headers: s.headers } }));
  clients.push(client);
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
    return { isError: result.isError === true, body: JSON.parse(result.content[0].text) };
  };
  const rest = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${origin}${BASE}${path}`, {
      method,
      headers: { ...s.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
  return { ...s, client, call, rest };
}

const unsign = (value: unknown) => JSON.parse(JSON.stringify(value).replace(/expires=\d+&sig=[\w-]+/g, 'SIGNED'));

describe('the confirm_cod_order tool', () => {
  it('is listed as a write that may cancel, idempotent, with reference and answer required and phone described', async () => {
    const s = await codShop();
    const { tools } = await s.client.listTools();
    const tool = tools.find((t) => t.name === 'confirm_cod_order')!;
    expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
    expect(tool.inputSchema.required).toEqual(['reference', 'answer']);
    expect(tool.inputSchema.properties).toHaveProperty('answer.enum', ['confirm', 'decline']);
    expect((tool.inputSchema.properties as Record<string, { description?: string }>).phone.description).toMatch(/only if it belongs|only if it is theirs/);
  });

  it('place_order (cod) shows the pending confirmation; confirm answers as REST and get_order do, and again changes nothing; decline then is a conflict', async () => {
    const s = await codShop();
    const placed = await s.call('place_order', orderBody({ payment: 'cod', external_reference: 'mcp-cod-1' }));
    expect(placed.isError).toBe(false);
    expect(placed.body.data.cod_confirmation).toMatchObject({ status: 'pending', settled_by: null });
    const ref = placed.body.data.order_number;

    const confirmed = await s.call('confirm_cod_order', { reference: ref, answer: 'confirm', phone: '9876543210' });
    expect(confirmed.isError).toBe(false);
    expect(confirmed.body.data.cod_confirmation).toMatchObject({ status: 'confirmed', settled_by: 'buyer' });
    expect(unsign(confirmed.body)).toEqual(unsign((await s.call('get_order', { reference: ref })).body));
    const viaRest = await s.rest('POST', `/orders/${ref}/cod-confirmation`, { answer: 'confirm' });
    expect(viaRest.status).toBe(200);
    expect(unsign(viaRest.body)).toEqual(unsign(confirmed.body));
    const [jobs] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM jobs WHERE company_id = ${s.companyId}`);
    expect(jobs.n).toBe(1);

    const other = await s.call('confirm_cod_order', { reference: ref, answer: 'decline' });
    expect(other).toEqual({
      isError: true,
      body: { error: expect.objectContaining({ code: 'conflict', details: [{ path: 'answer', message: 'already confirmed' }] }) },
    });
  });

  it("decline cancels and releases the stock; another customer's phone is not_found and changes nothing; a bad answer names the field", async () => {
    const s = await codShop();
    const placed = await s.call('place_order', orderBody({ payment: 'cod', external_reference: 'mcp-cod-2', items: [{ product_id: 'TEE-M', quantity: 3 }] }));
    const ref = placed.body.data.order_number;
    expect((await stockRow(ctx, s.companyId, s.variantIds['TEE-M'])).reserved).toBe('3.000');

    const stranger = await s.call('confirm_cod_order', { reference: ref, answer: 'decline', phone: '+91 90000 00009' });
    expect(stranger).toEqual({ isError: true, body: { error: expect.objectContaining({ code: 'not_found' }) } });
    const bad = await s.call('confirm_cod_order', { reference: ref, answer: 'nope' });
    expect(bad.isError).toBe(true);
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', details: [{ path: 'answer' }] });
    expect((await stockRow(ctx, s.companyId, s.variantIds['TEE-M'])).reserved).toBe('3.000');

    const declined = await s.call('confirm_cod_order', { reference: ref, answer: 'decline', phone: '+91 98765 43210' });
    expect(declined.isError).toBe(false);
    expect(declined.body.data).toMatchObject({ order_status: 'cancelled', cod_confirmation: { status: 'declined', settled_by: 'buyer' } });
    expect((await stockRow(ctx, s.companyId, s.variantIds['TEE-M'])).reserved).toBe('0.000');
    const again = await s.call('confirm_cod_order', { reference: ref, answer: 'decline', phone: null });
    expect(unsign(again)).toEqual(unsign(declined));
  });
});
