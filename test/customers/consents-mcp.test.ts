import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePrivacySettings } from '../../src/customers/privacy-settings.queries.js';
import { useTestApp } from '../helpers/app.js';
import { BASE, orderBody, shop } from '../helpers/orders.js';

/** Consent through the official MCP SDK client: set_customer_consent, place_order's marketing_consent, find_customer. */
const ctx = useTestApp();
let origin: string;
const clients: Client[] = [];
const PHONE = '+91 98765 43210';

beforeAll(async () => {
  origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  for (const c of clients) await c.close();
});

async function agent() {
  const s = await shop(ctx, [{ sku: 'TEE', name: 'Cotton Tee', variants: [{ sku: 'TEE-M', selling_price: '10.00', stock: '1000' }] }]);
  const client = new Client({ name: 'vitest', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}${BASE}/mcp`), { requestInit: { headers: s.headers } }));
  clients.push(client);
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
    return { isError: result.isError === true, body: JSON.parse(result.content[0].text) };
  };
  const rows = async () =>
    ctx.db.query<{ purpose: string; channel: string; state: string; source: string; actor: string | null }>(
      sql`SELECT purpose, channel, state, source, actor FROM customer_consents WHERE company_id = ${s.companyId} ORDER BY recorded_at, channel`,
    );
  return { ...s, client, call, rows };
}

describe('consent over MCP', () => {
  it('set_customer_consent is listed as an idempotent write with every argument required', async () => {
    const a = await agent();
    const tool = (await a.client.listTools()).tools.find((t) => t.name === 'set_customer_consent')!;
    expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(tool.inputSchema.required).toEqual(['phone', 'purpose', 'channel', 'state']);
    expect(tool.inputSchema.properties).toHaveProperty('state.enum', ['given', 'withdrawn']);
  });

  it('place_order records marketing_consent as place_order; set_customer_consent as mcp; find_customer shows the state, may_send and the notice', async () => {
    const a = await agent();
    await writePrivacySettings(ctx.db, a.companyId, { notice_url: 'https://shop.example.in/privacy' });
    const placed = await a.call('place_order', orderBody({ marketing_consent: { email: true } }));
    expect(placed.isError, JSON.stringify(placed.body)).toBe(false);
    const withdrawn = await a.call('set_customer_consent', { phone: PHONE, purpose: 'marketing', channel: 'email', state: 'withdrawn' });
    expect(withdrawn.isError).toBe(false);
    expect(withdrawn.body.changed).toBe(true);
    const again = await a.call('set_customer_consent', { phone: '9876543210', purpose: 'marketing', channel: 'email', state: 'withdrawn' });
    expect(again.body.changed).toBe(false);
    expect(await a.rows()).toEqual([
      { purpose: 'marketing', channel: 'email', state: 'given', source: 'place_order', actor: a.keyRecord.prefix },
      { purpose: 'marketing', channel: 'email', state: 'withdrawn', source: 'mcp', actor: a.keyRecord.prefix },
    ]);
    const found = await a.call('find_customer', { phone: PHONE });
    expect(found.body.data).toEqual(withdrawn.body.data);
    expect(found.body.data).toMatchObject({
      consents: { marketing: { email: 'withdrawn', messaging: 'not_asked' } },
      may_send: { order_updates: { messaging: true, email: true }, marketing: { messaging: false, email: false } },
      privacy_notice_url: 'https://shop.example.in/privacy',
    });
  });

  it('refuses a bad purpose, channel or state as REST does (isError, validation_failed naming the field)', async () => {
    const a = await agent();
    await a.call('place_order', orderBody());
    for (const [args, path] of [
      [{ phone: PHONE, purpose: 'spam', channel: 'email', state: 'given' }, 'purpose'],
      [{ phone: PHONE, purpose: 'marketing', channel: 'pigeon', state: 'given' }, 'channel'],
      [{ phone: PHONE, purpose: 'marketing', channel: 'email', state: 'ok' }, 'state'],
    ] as const) {
      const res = await a.call('set_customer_consent', args);
      expect(res.isError).toBe(true);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details[0].path).toBe(path);
    }
    expect(await a.rows()).toEqual([]);
  });

  it("another company's agent reaches only its own customers", async () => {
    const a = await agent();
    const b = await agent();
    await a.call('place_order', orderBody());
    const res = await b.call('set_customer_consent', { phone: PHONE, purpose: 'marketing', channel: 'messaging', state: 'given' });
    expect(res.isError).toBe(true);
    expect(res.body.error.code).toBe('not_found');
    expect(await a.rows()).toEqual([]);
  });
});
