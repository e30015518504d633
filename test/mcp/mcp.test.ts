import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';

const BASE = '/api/v1/commerce';
let testDb: TestDatabase;
let ctx: TestApp;
let origin: string;
let tenant: Awaited<ReturnType<typeof createCompanyWithKey>>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  ctx = await buildTestApp(testDb.db);
  origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  tenant = await seedCompany();
});
afterAll(async () => {
  await ctx?.app.close();
  await testDb?.drop();
});

async function seedCompany() {
  const t = await createCompanyWithKey(ctx.services);
  await addLocations(ctx.db, t.company.id);
  await addProduct(ctx.db, t.company.id, {
    sku: 'SHIRT',
    name: 'Cotton Shirt',
    description: 'Breathable cotton',
    variants: [
      { sku: 'SHIRT-RED-XL', barcode: '8901234567890', attributes: { Colour: 'Red', Size: 'XL' }, selling_price: '799.00', mrp: '999.00', stock: '10' },
      { sku: 'SHIRT-BLUE-M', attributes: { Colour: 'Blue', Size: 'M' }, selling_price: '749.00', stock: '0' },
    ],
  });
  await addProduct(ctx.db, t.company.id, {
    sku: 'RICE',
    name: 'Basmati Rice',
    unit: 'KG',
    tax_rate: '5',
    variants: [{ sku: 'RICE-LOOSE', selling_price: '120.50', stock: '25.500' }],
  });
  return t;
}

async function connect(headers: Record<string, string>) {
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}${BASE}/mcp`), { requestInit: { headers } });
  const client = new Client({ name: 'vitest', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

async function rest(url: string, init: { method?: string; body?: unknown; key?: string } = {}) {
  const res = await fetch(`${origin}${BASE}${url}`, {
    method: init.method ?? 'GET',
    headers: { 'x-api-key': init.key ?? tenant.key, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}

async function rpc(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${origin}${BASE}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': tenant.key, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** Signed links differ by their expiry second; compare everything else. */
const unsign = (value: unknown) => JSON.parse(JSON.stringify(value).replace(/expires=\d+&sig=[\w-]+/g, 'SIGNED'));

function toolJson(result: Awaited<ReturnType<Client['callTool']>>) {
  const content = result.content as { type: string; text: string }[];
  expect(content[0].type).toBe('text');
  return JSON.parse(content[0].text);
}

const ORDER_BODY = (ref: string) => ({
  customer: { name: 'Asha Rao', phone: '+91 98765 43210', email: 'asha@example.in' },
  items: [
    { product_id: 'SHIRT-RED-XL', quantity: 2 },
    { product_id: 'RICE-LOOSE', quantity: '1.250' },
  ],
  external_reference: ref,
  delivery_address: { line1: '12 MG Road', city: 'Bengaluru', pincode: '560001' },
  payment: 'cod',
});

describe('transport and protocol', () => {
  it.each(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'])('negotiates protocol version %s as asked', async (version) => {
    const res = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.protocolVersion).toBe(version);
    expect(res.body.result.capabilities.tools).toBeDefined();
  });

  it('answers a client asking for a version we do not offer with the newest, 2025-11-25', async () => {
    for (const version of ['2099-01-01', '2024-10-07', 'latest']) {
      const res = await rpc({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      expect(res.body.result.protocolVersion, version).toBe('2025-11-25');
    }
  });

  it('serves the official SDK client, which negotiates 2025-11-25 and then sends it in MCP-Protocol-Version', async () => {
    const { client, transport } = await connect({ 'x-api-key': tenant.key });
    expect(client.getServerVersion()?.name).toBe('commerce-api');
    expect(transport.protocolVersion).toBe('2025-11-25');
    expect((await client.listTools()).tools).toHaveLength(21);
    await client.close();
  });

  it('serves clients that accept only application/json, and a bare tools/call without initialize', async () => {
    const res = await rpc({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_categories', arguments: {} } }, { accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body.id).toBe(7);
    expect(res.body.result.isError).toBeFalsy();
  });

  it('answers GET and DELETE with 405, Allow: POST and the error shape', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${origin}${BASE}/mcp`, { method, headers: { 'x-api-key': tenant.key, accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect((await res.json()).error.code).toBe('validation_failed');
    }
  });

  it('refuses bad keys with HTTP 401 and inactive companies with 403, before any JSON-RPC', async () => {
    const none = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'x-api-key': '' });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    const inactive = await createCompanyWithKey(ctx.services, { status: 'inactive' });
    const forbidden = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'x-api-key': inactive.key });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('forbidden');
    await expect(connect({ 'x-api-key': 'cok_bad' })).rejects.toThrow();
  });

  it('accepts the key as Authorization: Bearer too', async () => {
    const { client } = await connect({ authorization: `Bearer ${tenant.key}` });
    expect((await client.listTools()).tools.length).toBe(21);
    await client.close();
  });
});

/** The UCP checkout tools that write (test/mcp/checkout-tools.test.ts). */
const WRITES_CHECKOUT = ['create_checkout', 'update_checkout', 'complete_checkout', 'cancel_checkout'];
/** The data-rights tools (test/privacy/customer-rights.test.ts): even the export writes its audit entry. */
const PRIVACY_TOOLS = ['export_customer_data', 'correct_customer_data', 'erase_customer_data'];
/** The other tools that write besides place_order (test/mcp/payment-link-tool.test.ts). */
const WRITES_OTHER = ['confirm_cod_order', 'create_payment_link', 'set_customer_consent', ...PRIVACY_TOOLS];

describe('tools/list', () => {
  it('lists every tool with a title, a description, schemas and annotations', async () => {
    const { client } = await connect({ 'x-api-key': tenant.key });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'browse_catalog',
        'check_cod_availability',
        'confirm_cod_order',
        'find_customer',
        'get_order',
        'get_order_whatsapp_messages',
        'get_product',
        'get_product_details',
        'list_categories',
        'place_order',
        'create_payment_link',
        'search_products',
        'set_customer_consent',
        ...WRITES_CHECKOUT,
        'get_checkout',
        ...PRIVACY_TOOLS,
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description!.length, tool.name).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations?.title).toBeTruthy();
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(
        tool.name !== 'place_order' && !WRITES_CHECKOUT.includes(tool.name) && !WRITES_OTHER.includes(tool.name),
      );
      for (const [prop, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        if (tool.name !== 'place_order') expect((schema as { description?: string }).description, `${tool.name}.${prop}`).toBeTruthy();
      }
    }
    const place = tools.find((t) => t.name === 'place_order')!;
    expect(place.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(place.inputSchema.required).toEqual(expect.arrayContaining(['customer', 'items', 'external_reference']));
    expect(place.description).toMatch(/external_reference/);
    const browse = tools.find((t) => t.name === 'browse_catalog')!;
    expect(browse.inputSchema.properties).toHaveProperty('limit', {
      description: 'Page size, 1-50 (default 20).',
      anyOf: [{ type: 'integer', minimum: 1, maximum: 50 }, { type: 'null' }],
    });
    expect(Object.keys(browse.inputSchema.properties!).sort()).toEqual(['brand', 'category', 'in_stock', 'limit', 'offset', 'search']);
    expect(tools.find((t) => t.name === 'get_order')!.description).toMatch(/phone/);
    expect(tools.find((t) => t.name === 'find_customer')!.description).toMatch(/messaging_opted_out/);
    await client.close();
  });
});

describe('tools answer exactly as REST does', () => {
  let client: Client;
  beforeAll(async () => {
    ({ client } = await connect({ 'x-api-key': tenant.key }));
  });
  afterAll(async () => client?.close());

  it('browse_catalog = GET /catalog/products', async () => {
    const result = await client.callTool({ name: 'browse_catalog', arguments: { search: 'shirt xl', limit: 5 } });
    const restRes = await rest('/catalog/products?search=shirt%20xl&limit=5');
    expect(restRes.status).toBe(200);
    expect(restRes.body.total).toBe(1);
    expect(unsign(toolJson(result))).toEqual(unsign(restRes.body));
    expect(unsign(result.structuredContent)).toEqual(unsign(restRes.body));
  });

  it('get_product_details = GET /catalog/products/{id}', async () => {
    const result = await client.callTool({ name: 'get_product_details', arguments: { id: '8901234567890' } });
    const restRes = await rest('/catalog/products/8901234567890');
    expect(restRes.body.data.matched_variant_id).toBeTruthy();
    expect(unsign(toolJson(result))).toEqual(unsign(restRes.body));
  });

  it('list_categories = GET /catalog/categories', async () => {
    const result = await client.callTool({ name: 'list_categories', arguments: {} });
    expect(toolJson(result)).toEqual((await rest('/catalog/categories')).body);
  });

  it('place_order = POST /orders, and a repeat answers duplicate: true with the original', async () => {
    const first = await client.callTool({ name: 'place_order', arguments: ORDER_BODY('mcp-order-1') });
    expect(first.isError).toBeFalsy();
    const created = toolJson(first);
    expect(created.duplicate).toBeUndefined();
    expect(created.data).toMatchObject({ order_status: 'confirmed', external_reference: 'mcp-order-1', payment: 'cod', amount: '1748.63' });
    const again = await client.callTool({
      name: 'place_order',
      arguments: { ...ORDER_BODY('mcp-order-1'), items: [{ product_id: 'RICE-LOOSE', quantity: 9 }] },
    });
    expect(toolJson(again)).toEqual({ data: created.data, duplicate: true });
    const viaRest = await rest('/orders', { method: 'POST', body: ORDER_BODY('mcp-order-1') });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toEqual(toolJson(again));
  });

  it('get_order = GET /orders/{reference}, and find_customer = GET /customers', async () => {
    const placed = toolJson(await client.callTool({ name: 'place_order', arguments: ORDER_BODY('mcp-order-2') }));
    const order = toolJson(await client.callTool({ name: 'get_order', arguments: { reference: placed.data.order_number, phone: '09876543210' } }));
    expect(order).toEqual((await rest(`/orders/${placed.data.order_number}?phone=09876543210`)).body);
    expect(order.data.order_id).toBe(placed.data.order_id);

    const customer = toolJson(await client.callTool({ name: 'find_customer', arguments: { phone: '98765 43210', recent_orders: 1 } }));
    expect(customer).toEqual((await rest('/customers?phone=9876543210&recent_orders=1')).body);
    expect(customer.data.recent_orders).toHaveLength(1);
    expect(customer.data.messaging_opted_out).toBe(false);
  });

  it('search_products and get_product give flat orderable items', async () => {
    const found = toolJson(await client.callTool({ name: 'search_products', arguments: { search: 'shirt red' } }));
    expect(found).toEqual({
      data: [
        { sku: 'SHIRT-RED-XL', name: expect.stringContaining('Cotton Shirt'), price: '799.00', available: expect.stringMatching(/^\d+\.000$/), in_stock: true },
      ],
      count: 1,
      total: 1,
      limit: 20,
      offset: 0,
      has_more: false,
    });
    const all = toolJson(await client.callTool({ name: 'search_products', arguments: { limit: 2 } }));
    expect(all).toMatchObject({ count: 2, total: 3, has_more: true });
    const item = toolJson(await client.callTool({ name: 'get_product', arguments: { id: 'SHIRT-BLUE-M' } }));
    expect(item.data).toEqual({ sku: 'SHIRT-BLUE-M', name: expect.any(String), price: '749.00', available: '0.000', in_stock: false });
  });
});

describe('tool errors carry the REST error object', () => {
  let client: Client;
  beforeAll(async () => {
    ({ client } = await connect({ 'x-api-key': tenant.key }));
  });
  afterAll(async () => client?.close());

  const cases: [string, Record<string, unknown>, string, string | undefined][] = [
    ['browse_catalog', { limit: 51 }, 'validation_failed', 'limit'],
    ['browse_catalog', { in_stock: 'yes' }, 'validation_failed', 'in_stock'],
    ['get_product_details', { id: 'x'.repeat(65) }, 'validation_failed', 'id'],
    ['get_product_details', { id: 'NO-SUCH' }, 'not_found', undefined],
    ['find_customer', { phone: 'abc' }, 'validation_failed', 'phone'],
    ['find_customer', { phone: '+91 91234 56789' }, 'not_found', undefined],
    ['get_order', { reference: 'ORD-0' }, 'not_found', undefined],
    ['get_order', { reference: 'r'.repeat(101) }, 'validation_failed', 'reference'],
    ['place_order', { items: [] }, 'validation_failed', 'customer'],
    ['place_order', { ...ORDER_BODY('mcp-err-1'), items: [{ product_id: 'NOPE', quantity: 1 }] }, 'not_found', undefined],
    ['place_order', { ...ORDER_BODY('mcp-err-2'), items: [{ product_id: 'SHIRT-BLUE-M', quantity: 1 }] }, 'insufficient_stock', undefined],
    ['search_products', { limit: 0 }, 'validation_failed', 'limit'],
    ['get_product', { id: 'NOPE' }, 'not_found', undefined],
    ['no_such_tool', {}, 'not_found', undefined],
  ];

  it.each(cases)('%s %j -> %s', async (name, args, code, path) => {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError).toBe(true);
    const body = toolJson(result);
    expect(body.error.code).toBe(code);
    expect(body.error.message).toEqual(expect.any(String));
    if (path) expect(body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('returns the same error body as REST for the same bad request', async () => {
    const body = { ...ORDER_BODY('mcp-err-3'), customer: { name: '', phone: '12' }, items: [{ product_id: 'SHIRT-RED-XL', quantity: '1.2345' }] };
    const tool = toolJson(await client.callTool({ name: 'place_order', arguments: body }));
    const viaRest = await rest('/orders', { method: 'POST', body });
    expect(viaRest.status).toBe(400);
    expect(tool).toEqual(viaRest.body);
  });
});

describe('isolation and rate limits', () => {
  it("never shows another company's data", async () => {
    const other = await createCompanyWithKey(ctx.services);
    const { client } = await connect({ 'x-api-key': other.key });
    for (const id of ['SHIRT', 'SHIRT-RED-XL', '8901234567890']) {
      expect(toolJson(await client.callTool({ name: 'get_product_details', arguments: { id } })).error.code).toBe('not_found');
      expect(toolJson(await client.callTool({ name: 'get_product', arguments: { id } })).error.code).toBe('not_found');
    }
    expect(toolJson(await client.callTool({ name: 'browse_catalog', arguments: {} })).total).toBe(0);
    expect(toolJson(await client.callTool({ name: 'search_products', arguments: {} })).total).toBe(0);
    expect(toolJson(await client.callTool({ name: 'get_order', arguments: { reference: 'mcp-order-1' } })).error.code).toBe('not_found');
    expect(toolJson(await client.callTool({ name: 'find_customer', arguments: { phone: '9876543210' } })).error.code).toBe('not_found');
    await client.close();
  });

  it('counts each tool call against the key budget shared with REST; protocol calls only read it', async () => {
    const limited = await buildTestApp(testDb.db, { RATE_LIMIT_MAX: '4' });
    const address = await limited.app.listen({ host: '127.0.0.1', port: 0 });
    const t = await createCompanyWithKey(limited.services);
    const post = (body: unknown) =>
      fetch(`${address}${BASE}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': t.key },
        body: JSON.stringify(body),
      });
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_categories', arguments: {} } };
    try {
      expect((await fetch(`${address}${BASE}/catalog/categories`, { headers: { 'x-api-key': t.key } })).status).toBe(200); // 1 (REST)
      const list = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }); // free
      expect(list.status).toBe(200);
      expect(list.headers.get('x-ratelimit-remaining')).toBe('3');
      const init = await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      expect(init.headers.get('x-ratelimit-remaining')).toBe('3');
      expect((await post(call)).headers.get('x-ratelimit-remaining')).toBe('2'); // 2
      expect((await post(call)).status).toBe(200); // 3
      expect((await post(call)).status).toBe(200); // 4
      const over = await post(call);
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await over.json()).error.code).toBe('rate_limited');
      expect((await fetch(`${address}${BASE}/catalog/categories`, { headers: { 'x-api-key': t.key } })).status).toBe(429);
    } finally {
      await limited.app.close();
    }
  });
});

describe('JSON-RPC batches: only where the protocol has them, at most 10, each message spending budget', () => {
  const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
  const batch = (n: number) => Array.from({ length: n }, (_, i) => list(i + 1));

  function expectRefused(res: Awaited<ReturnType<typeof rpc>>, text: RegExp) {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(text) } });
  }

  it.each(['2025-06-18', '2025-11-25'])('refuses any batch under %s (batching was removed in 2025-06-18)', async (version) => {
    expectRefused(
      await rpc(batch(2), { 'mcp-protocol-version': version }),
      /batches .*not part of MCP protocol version 20\d\d-\d\d-\d\d.*one message per POST/,
    );
    expectRefused(await rpc(batch(1), { 'mcp-protocol-version': version }), /not part of/);
    // one message per POST is served as usual
    expect((await rpc(list(1), { 'mcp-protocol-version': version })).body.result.tools).toHaveLength(21);
  });

  it('refuses a batch holding an initialize for 2025-06-18 or later', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    expectRefused(await rpc([init]), /not part of MCP protocol version 2025-11-25/);
  });

  it('serves batches of up to 10 under 2025-03-26 (also when the header is absent) and 2024-11-05; refuses 11, 100 and empty ones', async () => {
    for (const headers of [{}, { 'mcp-protocol-version': '2025-03-26' }, { 'mcp-protocol-version': '2024-11-05' }] as Record<string, string>[]) {
      const ten = await rpc(batch(10), headers);
      expect(ten.status).toBe(200);
      expect(ten.body).toHaveLength(10);
      expect(ten.body.map((r: { id: number }) => r.id).sort((a: number, b: number) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    }
    expectRefused(await rpc(batch(11)), /at most 10 messages; this one holds 11/);
    const hundred = await rpc(batch(100), { 'mcp-protocol-version': '2025-03-26' });
    expectRefused(hundred, /at most 10 messages; this one holds 100/);
    expect(JSON.stringify(hundred.body).length).toBeLessThan(1000);
    expectRefused(await rpc([]), /empty JSON-RPC batch/);
  });

  it('spends one request of the key budget for every message of a batch; single protocol messages stay free', async () => {
    const limited = await buildTestApp(testDb.db, { RATE_LIMIT_MAX: '5' });
    const address = await limited.app.listen({ host: '127.0.0.1', port: 0 });
    const t = await createCompanyWithKey(limited.services);
    const post = (body: unknown) =>
      fetch(`${address}${BASE}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': t.key },
        body: JSON.stringify(body),
      });
    try {
      expect((await post(list(1))).headers.get('x-ratelimit-remaining')).toBe('5'); // single tools/list: free
      const three = await post(batch(3));
      expect(three.status).toBe(200);
      expect(three.headers.get('x-ratelimit-remaining')).toBe('2');
      const over = await post(batch(3)); // 3 more than the 2 left
      expect(over.status).toBe(429);
      expect((await over.json()).error.code).toBe('rate_limited');
      expect((await fetch(`${address}${BASE}/catalog/categories`, { headers: { 'x-api-key': t.key } })).status).toBe(429);
    } finally {
      await limited.app.close();
    }
  });
});

describe('arguments of the wrong JSON type: JSON-RPC invalid params (-32602) with a readable message', () => {
  const call = (params: unknown, id: number | string = 9) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });

  it.each([
    ['tools/call params: []', call([]), /params must be a JSON object, not an array/],
    ['tools/call params: "x"', call('browse_catalog'), /params must be a JSON object, not a string/],
    ['arguments: []', call({ name: 'browse_catalog', arguments: [] }), /params\.arguments must be a JSON object of the tool's arguments.*not an array/],
    ['arguments: "x"', call({ name: 'browse_catalog', arguments: 'search=shirt' }), /params\.arguments must be a JSON object.*not a string/],
    ['arguments: 5', call({ name: 'browse_catalog', arguments: 5 }), /params\.arguments .*not a number/],
    ['name: 5', call({ name: 5, arguments: {} }), /params\.name must be a string, not a number/],
    ['no name', call({ arguments: {} }), /params\.name is required/],
    ['tools/list params: []', { jsonrpc: '2.0', id: 9, method: 'tools/list', params: [] }, /tools\/list: params must be a JSON object/],
    ['initialize params: []', { jsonrpc: '2.0', id: 9, method: 'initialize', params: [] }, /initialize: params must be a JSON object/],
    [
      'initialize without clientInfo',
      { jsonrpc: '2.0', id: 9, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } },
      /params\.clientInfo is required/,
    ],
  ])('%s', async (_label, body, text) => {
    const res = await rpc(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32602, message: expect.stringMatching(text) } });
    expect(res.body.error.message).not.toMatch(/[[{]\s*\n|"code":|invalid_type/); // no validator dump
  });

  it('the official SDK client gets an McpError with code -32602', async () => {
    const { client } = await connect({ 'x-api-key': tenant.key });
    await expect(client.callTool({ name: 'browse_catalog', arguments: [] as unknown as Record<string, unknown> })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/params\.arguments must be a JSON object/),
    });
    await client.close();
  });

  it('params: null and arguments: null are not given; a batch answers each malformed request beside the good ones', async () => {
    const ok = await rpc(call({ name: 'list_categories', arguments: null }, 3));
    expect(ok.body.id).toBe(3);
    expect(ok.body.result.isError).toBeFalsy();
    expect((await rpc({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: null })).body.result.tools).toHaveLength(21);

    const mixed = await rpc([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, call([], 2), call({ name: 'list_categories', arguments: [] }, 3)]);
    expect(mixed.status).toBe(200);
    const byId = new Map(mixed.body.map((r: { id: number }) => [r.id, r]));
    expect(byId.size).toBe(3);
    expect((byId.get(1) as { result: { tools: unknown[] } }).result.tools).toHaveLength(21);
    expect(byId.get(2)).toMatchObject({ error: { code: -32602 } });
    expect(byId.get(3)).toMatchObject({ error: { code: -32602 } });
  });
});

describe('agents send nulls: every optional argument of every tool takes null as not given', () => {
  let client: Client;
  beforeAll(async () => {
    ({ client } = await connect({ 'x-api-key': tenant.key }));
  });
  afterAll(async () => client?.close());

  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    return { isError: result.isError, body: unsign(toolJson(result)) };
  };

  // Each tool: its required arguments, and every optional one as null. Answers must equal the call without them.
  const cases: [string, Record<string, unknown>, Record<string, null>][] = [
    ['browse_catalog', {}, { search: null, category: null, brand: null, in_stock: null, limit: null, offset: null }],
    ['get_product_details', { id: 'SHIRT' }, {}],
    ['list_categories', {}, {}],
    ['find_customer', { phone: '98765 43210' }, { recent_orders: null }],
    ['get_order', { reference: 'mcp-order-1' }, { phone: null }],
    ['search_products', {}, { search: null, limit: null, offset: null }],
    ['get_product', { id: 'SHIRT-RED-XL' }, {}],
  ];

  it('tools/list requires only what the contract requires and names every optional argument nullable', async () => {
    const { tools } = await client.listTools();
    const optionalOf = Object.fromEntries(cases.map(([name, , nulls]) => [name, Object.keys(nulls)]));
    type Prop = { type?: string | string[]; anyOf?: Prop[]; properties?: Record<string, Prop>; required?: string[]; additionalProperties?: unknown };
    const nullableOf = (props: Record<string, Prop>) =>
      Object.keys(props)
        .filter((p) => props[p].anyOf?.some((branch) => branch.type === 'null'))
        .sort();
    // an object's branch sits in an anyOf of its own (src/mcp/portable.ts)
    const branches = (schema: Prop): Prop[] => (schema.anyOf ? schema.anyOf.flatMap(branches) : [schema]);
    for (const tool of tools) {
      const props = (tool.inputSchema.properties ?? {}) as Record<string, Prop>;
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      for (const [prop, schema] of Object.entries(props)) {
        // one JSON type, and null only as a second branch of anyOf (no type list)
        const kinds = branches(schema)
          .filter((b) => b.type !== 'null')
          .map((b) => (typeof b.type === 'string' ? 'one type' : b.type));
        expect(kinds, `${tool.name}.${prop}`).toEqual(['one type']);
      }
      if (optionalOf[tool.name]) {
        expect(nullableOf(props), tool.name).toEqual(optionalOf[tool.name].sort());
        expect((tool.inputSchema.required ?? []).sort(), tool.name).toEqual(
          Object.keys(props)
            .filter((p) => !optionalOf[tool.name].includes(p))
            .sort(),
        );
      }
      if (tool.name === 'place_order') {
        expect(tool.inputSchema.required).toEqual(['customer', 'items', 'external_reference']);
        expect(nullableOf(props)).toEqual(['delivery_address', 'marketing_consent', 'notes', 'payment', 'payment_reference']);
        expect(props.customer).toMatchObject({ type: 'object', required: ['name', 'phone'], additionalProperties: false });
        expect(props.customer.properties).toHaveProperty('email.anyOf', [{ type: 'string', maxLength: 254 }, { type: 'null' }]);
        const [address] = branches(props.delivery_address);
        expect(props.delivery_address.anyOf).toEqual([{ anyOf: [address] }, { type: 'null' }]);
        expect(address).toMatchObject({ type: 'object', required: ['line1', 'city', 'pincode'], additionalProperties: false });
        expect(nullableOf(address.properties!)).toEqual(['line2', 'name', 'phone', 'state']);
        expect(props).toHaveProperty('payment.anyOf', [{ type: 'string', enum: ['cod', 'prepaid'] }, { type: 'null' }]);
        expect(props).toHaveProperty('items.items.properties.quantity.type', 'number');
      }
    }
  });

  it.each(cases)('%s with every optional argument null answers as without them', async (name, required, nulls) => {
    if (name === 'get_order' || name === 'find_customer') await call('place_order', ORDER_BODY('mcp-order-1')); // the order exists (idempotent)
    const plain = await call(name, required);
    expect(plain.isError, JSON.stringify(plain.body)).toBeFalsy();
    const withNulls = await call(name, { ...required, ...nulls });
    expect(withNulls.isError, JSON.stringify(withNulls.body)).toBeFalsy();
    expect(withNulls.body).toEqual(plain.body);
  });

  it('place_order with every optional field null, at the top, in customer and in delivery_address', async () => {
    const allNull = await call('place_order', {
      customer: { name: 'Asha Rao', phone: '+91 98765 43210', email: null },
      items: [{ product_id: 'RICE-LOOSE', quantity: 1 }],
      external_reference: 'mcp-nulls-1',
      notes: null,
      delivery_address: null,
      payment: null,
      payment_reference: null,
    });
    expect(allNull.isError, JSON.stringify(allNull.body)).toBeFalsy();
    expect(allNull.body.data).toMatchObject({ order_status: 'confirmed', payment: 'prepaid', external_reference: 'mcp-nulls-1' });

    const addressNulls = await call('place_order', {
      ...ORDER_BODY('mcp-nulls-2'),
      payment: null,
      delivery_address: { line1: '12 MG Road', city: 'Bengaluru', pincode: '560001', name: null, line2: null, state: null, phone: null },
    });
    expect(addressNulls.isError, JSON.stringify(addressNulls.body)).toBeFalsy();
    expect(addressNulls.body.data.delivery_address).toEqual({
      name: null,
      line1: '12 MG Road',
      line2: null,
      city: 'Bengaluru',
      state: 'Karnataka',
      pincode: '560001',
      phone: null,
    });
    expect(addressNulls.body.data.payment).toBe('prepaid');
  });

  it.each([
    ['get_product_details', { id: null }, 'id'],
    ['get_product', { id: null }, 'id'],
    ['find_customer', { phone: null, recent_orders: null }, 'phone'],
    ['get_order', { reference: null, phone: null }, 'reference'],
    ['place_order', { ...ORDER_BODY('mcp-nulls-3'), customer: null }, 'customer'],
    ['place_order', { ...ORDER_BODY('mcp-nulls-4'), customer: { name: null, phone: '9876543210' } }, 'customer.name'],
    ['place_order', { ...ORDER_BODY('mcp-nulls-5'), items: null }, 'items'],
    ['place_order', { ...ORDER_BODY('mcp-nulls-6'), items: [{ product_id: 'RICE-LOOSE', quantity: null }] }, 'items[0].quantity'],
    ['place_order', { ...ORDER_BODY('mcp-nulls-7'), external_reference: null }, 'external_reference'],
    ['place_order', { ...ORDER_BODY('mcp-nulls-8'), delivery_address: { line1: null, city: 'Bengaluru', pincode: '560001' } }, 'delivery_address.line1'],
  ])('%s: a required argument sent as null is validation_failed naming it (%j)', async (name, args, path) => {
    const res = await call(name, args);
    expect(res.isError).toBe(true);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });
});
