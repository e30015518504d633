import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { BASE, shop } from '../helpers/orders.js';
import { directModernToolCall, directToolCall, invalidRequestId, modernHeadersOf, normaliseNulls } from '../../src/mcp/protocol.js';

/**
 * A single tools/call is answered without the SDK's per-request server and transport, in the 2025 era and
 * in revision 2026-07-28 (with its standard headers and `_meta` envelope plainly right). Two
 * instances on one database, one answering such calls directly (the default) and one sending every request through
 * the SDK (`MCP_DIRECT_TOOL_CALLS=false`), must answer every request alike: status, content type and JSON body.
 */
let testDb: TestDatabase;
let direct: TestApp;
let sdk: TestApp;
let s: Awaited<ReturnType<typeof shop>>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  direct = await buildTestApp(testDb.db);
  sdk = await buildTestApp(testDb.db, { MCP_DIRECT_TOOL_CALLS: 'false' });
  s = await shop(direct, [
    {
      sku: 'SHIRT',
      name: 'Cotton Shirt',
      variants: [
        { sku: 'SHIRT-RED-XL', attributes: { Colour: 'Red', Size: 'XL' }, selling_price: '799.00', mrp: '999.00', stock: '10' },
        { sku: 'SHIRT-BLUE-M', attributes: { Colour: 'Blue', Size: 'M' }, selling_price: '749.00', stock: '0' },
      ],
    },
    { sku: 'RICE', name: 'Basmati Rice', unit: 'KG', tax_rate: '5', variants: [{ sku: 'RICE-LOOSE', selling_price: '120.50', stock: '25.500' }] },
  ]);
});
afterAll(async () => {
  await direct?.app.close();
  await sdk?.app.close();
  await testDb?.drop();
});

async function post(app: TestApp, body: unknown, headers: Record<string, string> = {}) {
  const res = await app.app.inject({
    method: 'POST',
    url: `${BASE}/mcp`,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...s.headers, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
  // signed photo links differ by their expiry second; everything else must be the same bytes
  return { status: res.statusCode, type: res.headers['content-type'], body: res.body.replace(/expires=\d+&sig=[\w-]+/g, 'SIGNED') };
}
const parsed = (res: Awaited<ReturnType<typeof post>>) => JSON.parse(res.body) as unknown;

/** The body as the route hands it to either path: parsed, nulls read as absent, refused ids gone. */
function asRouted(body: unknown): unknown {
  const message: unknown = typeof body === 'string' ? JSON.parse(body) : structuredClone(body);
  normaliseNulls(message);
  return invalidRequestId(message) ? undefined : message;
}

const call = (name: string, args?: unknown, extra: Record<string, unknown> = {}, id: unknown = 7) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, ...(args === undefined ? {} : { arguments: args }), ...extra },
});

const CASES: [string, unknown, Record<string, string>?][] = [
  ['browse', call('browse_catalog', {})],
  ['browse, searched and paged', call('browse_catalog', { search: 'shirt', limit: 1, offset: 0 })],
  ['browse with a limit out of bounds (tool error)', call('browse_catalog', { limit: 0 })],
  ['browse without arguments', call('browse_catalog')],
  ['browse with arguments null', call('browse_catalog', null)],
  ['detail', call('get_product_details', { id: 'SHIRT-RED-XL' })],
  ['detail of an unknown product', call('get_product_details', { id: 'NOPE' })],
  ['categories', call('list_categories', {})],
  ['items search', call('search_products', { search: 'rice' })],
  ['unknown order', call('get_order', { reference: 'ORD-NOPE' })],
  ['unknown customer', call('find_customer', { phone: '9876543210' })],
  ['an order without items (tool error)', call('place_order', { customer: { name: 'A', phone: '9876543210' }, items: [], external_reference: 'x' })],
  ['an unknown tool', call('no_such_tool', {})],
  ['a string id', call('browse_catalog', { limit: 1 }, {}, 'req-1')],
  ['id 0', call('browse_catalog', { limit: 1 }, {}, 0)],
  ['a trace context in _meta', call('browse_catalog', { limit: 1 }, { _meta: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } })],
  ['protocol 2025-06-18 in the header', call('list_categories', {}), { 'mcp-protocol-version': '2025-06-18' }],
  ['protocol 2024-11-05 in the header', call('list_categories', {}), { 'mcp-protocol-version': '2024-11-05' }],
  // not taken directly: each must still be answered as the SDK answers it
  ['a fractional id', call('list_categories', {}, {}, 1.5)],
  ['a null id', call('list_categories', {}, {}, null)],
  ['a member the SDK refuses', { ...call('list_categories', {}), extra: true }],
  ['jsonrpc 1.0', { ...call('list_categories', {}), jsonrpc: '1.0' }],
  ['a name that is not a string', call(42 as unknown as string, {})],
  ['arguments that are not an object', call('browse_catalog', [1])],
  ['a protocol version we do not negotiate', call('list_categories', {}), { 'mcp-protocol-version': '2024-10-07' }],
  ['an unknown protocol version', call('list_categories', {}), { 'mcp-protocol-version': '1999-01-01' }],
  ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
  ['tools/list', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
  ['tools/list with params null', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: null }],
  ['tools/list with an id past 2^53', '{"jsonrpc":"2.0","id":12345678901234567890123,"method":"tools/list"}'],
];

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
/** A 2026-07-28 tools/call: the envelope in `_meta` (plus `meta`), and the standard headers (plus `headers`, undefined drops one). */
const modern = (
  name: string,
  args: unknown,
  {
    meta = {},
    headers = {},
    extra = {},
    id = 7,
  }: { meta?: Record<string, unknown>; headers?: Record<string, string | undefined>; extra?: Record<string, unknown>; id?: unknown } = {},
): [unknown, Record<string, string>] => {
  const all: Record<string, string | undefined> = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name, ...headers };
  return [
    call(name, args, { _meta: { ...ENVELOPE, ...meta }, ...extra }, id),
    Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined)),
  ];
};

const MODERN_CASES: [string, unknown, Record<string, string>][] = [
  ['browse', ...modern('browse_catalog', {})],
  ['browse, searched and paged', ...modern('browse_catalog', { search: 'shirt', limit: 1, offset: 0 })],
  ['browse with a limit out of bounds (tool error)', ...modern('browse_catalog', { limit: 0 })],
  ['browse without arguments', ...modern('browse_catalog', undefined)],
  ['browse with arguments null', ...modern('browse_catalog', null)],
  ['detail', ...modern('get_product_details', { id: 'SHIRT-RED-XL' })],
  ['detail of an unknown product', ...modern('get_product_details', { id: 'NOPE' })],
  ['categories', ...modern('list_categories', {})],
  ['unknown order', ...modern('get_order', { reference: 'ORD-NOPE' })],
  ['an unknown tool', ...modern('no_such_tool', {})],
  ['a string id', ...modern('browse_catalog', { limit: 1 }, { id: 'req-1' })],
  ['id 0', ...modern('browse_catalog', { limit: 1 }, { id: 0 })],
  ['a trace context in _meta', ...modern('list_categories', {}, { meta: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } })],
  [
    'client capabilities declared',
    ...modern('list_categories', {}, { meta: { 'io.modelcontextprotocol/clientCapabilities': { sampling: {}, elicitation: { form: {} } } } }),
  ],
  // not taken directly: each must still be answered as the SDK answers it
  ['no MCP-Protocol-Version header', ...modern('list_categories', {}, { headers: { 'mcp-protocol-version': undefined } })],
  ['no Mcp-Method header', ...modern('list_categories', {}, { headers: { 'mcp-method': undefined } })],
  ['an Mcp-Method header naming another method', ...modern('list_categories', {}, { headers: { 'mcp-method': 'tools/list' } })],
  ['no Mcp-Name header', ...modern('list_categories', {}, { headers: { 'mcp-name': undefined } })],
  ['an Mcp-Name header naming another tool', ...modern('list_categories', {}, { headers: { 'mcp-name': 'browse_catalog' } })],
  ['an Mcp-Param header', ...modern('browse_catalog', { limit: 1 }, { headers: { 'mcp-param-limit': '1' } })],
  ['no client capabilities', ...modern('list_categories', {}, { meta: { 'io.modelcontextprotocol/clientCapabilities': undefined } })],
  ['a capability that is not an object', ...modern('list_categories', {}, { meta: { 'io.modelcontextprotocol/clientCapabilities': { sampling: 5 } } })],
  ['client info in the envelope', ...modern('list_categories', {}, { meta: { 'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '1.0.0' } } })],
  ['another version in the envelope', ...modern('list_categories', {}, { meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } })],
  ['a member of params the call does not have', ...modern('list_categories', {}, { extra: { task: {} } })],
  ['a fractional id', ...modern('list_categories', {}, { id: 1.5 })],
  ['arguments that are not an object', ...modern('browse_catalog', [1])],
  [
    'tools/list',
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
  ],
];

describe('a single 2026-07-28 tools/call answered directly', () => {
  it.each(MODERN_CASES)('%s: answered as the SDK answers it', async (_name, body, headers) => {
    const [viaSdk, viaDirect] = [await post(sdk, body, headers), await post(direct, body, headers)];
    expect(viaDirect).toEqual(viaSdk);
  });

  it('is taken only for what the SDK would hand to the tool unchanged', () => {
    const taken = MODERN_CASES.filter(([, body, headers]) => directModernToolCall(asRouted(body), modernHeadersOf(headers)));
    expect(taken.map(([name]) => name)).toEqual(MODERN_CASES.slice(0, 14).map(([name]) => name));
  });

  it('answers as the revision does: resultType complete and the server in _meta', async () => {
    const [body, headers] = modern('list_categories', {});
    const res = await post(direct, body, headers);
    expect(res.status).toBe(200);
    expect(parsed(res)).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      result: {
        resultType: 'complete',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'commerce-api' } },
        structuredContent: { data: { categories: [], brands: [] } },
      },
    });
  });
});

describe('a single tools/call answered directly', () => {
  it.each(CASES)('%s: answered as the SDK answers it', async (_name, body, headers) => {
    const [viaSdk, viaDirect] = [await post(sdk, body, headers), await post(direct, body, headers)];
    expect(viaDirect).toEqual(viaSdk);
  });

  it('is taken only for what the SDK would hand to the tool unchanged', () => {
    const taken = CASES.filter(([, body, headers]) => directToolCall(asRouted(body), headers?.['mcp-protocol-version']));
    expect(taken.map(([name]) => name)).toEqual(CASES.slice(0, 18).map(([name]) => name));
  });

  it('places one order per external_reference either way, and answers a repeat alike', async () => {
    const order = (ref: string) =>
      call('place_order', { customer: { name: 'Asha Rao', phone: '9876543210' }, items: [{ product_id: 'RICE-LOOSE', quantity: 1 }], external_reference: ref });
    const first = await post(direct, order('mcp-direct-1'));
    const repeatDirect = await post(direct, order('mcp-direct-1'));
    const repeatSdk = await post(sdk, order('mcp-direct-1'));
    expect(first.status).toBe(200);
    type Placed = { result: { structuredContent: { data: { order_id: string }; duplicate?: true } } };
    const placed = (parsed(first) as Placed).result.structuredContent;
    expect(placed.data.order_id, first.body).toMatch(/^ord_/);
    expect(repeatDirect).toEqual(repeatSdk);
    expect((parsed(repeatDirect) as Placed).result.structuredContent).toMatchObject({ data: { order_id: placed.data.order_id }, duplicate: true });
  });
});

/**
 * Request ids as sent (JSON text), and the id the answer must carry, as JSON writes it; undefined: refused whole
 * (400, -32600, id null), since JSON numbers past 2^53 − 1 reach the server rounded and could not be sent back as sent.
 */
const IDS: [string, string | undefined][] = [
  ['0', '0'],
  ['-0', '0'],
  ['-1', '-1'],
  ['1e3', '1000'],
  ['1.0', '1'],
  ['9007199254740991', '9007199254740991'], // 2^53 - 1
  ['-9007199254740991', '-9007199254740991'],
  ['"req-1"', '"req-1"'],
  ['""', '""'],
  ['"12345678901234567890123"', '"12345678901234567890123"'],
  ['"ünïcödé ✓ \\u0000"', '"ünïcödé ✓ \\u0000"'],
  ['9007199254740992', undefined], // 2^53
  ['9007199254740993', undefined], // 2^53 + 1, read as 2^53
  ['-9007199254740993', undefined],
  ['12345678901234567890123', undefined],
  ['1e400', undefined],
  ['1.5', undefined],
  ['-2.5', undefined],
  ['null', undefined],
  ['true', undefined],
  ['{}', undefined],
  ['[7]', undefined],
];

/** A tools/call of either era whose id is the JSON text `id`, with the era's headers. */
function withId(era: '2025' | '2026-07-28', id: string): [string, Record<string, string>] {
  const [body, headers] = era === '2025' ? [call('list_categories', {}, {}, 'ID'), {}] : modern('list_categories', {}, { id: 'ID' });
  return [JSON.stringify(body).replace('"id":"ID"', `"id":${id}`), headers];
}

describe.each(['2025', '2026-07-28'] as const)('request ids, %s era: one answer whichever path', (era) => {
  it.each(IDS)('id %s', async (id, echoed) => {
    const [body, headers] = withId(era, id);
    const [viaSdk, viaDirect] = [await post(sdk, body, headers), await post(direct, body, headers)];
    expect(viaDirect).toEqual(viaSdk);
    if (echoed !== undefined) {
      expect(viaDirect.status, viaDirect.body).toBe(200);
      expect(viaDirect.body.endsWith(`"jsonrpc":"2.0","id":${echoed}}`), viaDirect.body).toBe(true);
    } else {
      expect(viaDirect.status).toBe(400);
      expect(parsed(viaDirect)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: expect.stringMatching(/id of a tools\/call request must be a string or an integer from -9007199254740991 to 9007199254740991/),
        },
      });
    }
  });
});

describe('arguments: null is "not given", in both eras, on both paths', () => {
  const eras: [string, (args: unknown) => [unknown, Record<string, string>]][] = [
    ['2025', (args) => [call('browse_catalog', args), {}]],
    ['2026-07-28', (args) => modern('browse_catalog', args)],
  ];
  it.each(eras)('%s', async (_era, make) => {
    for (const app of [direct, sdk]) {
      const [absent, nulled] = [await post(app, ...make(undefined)), await post(app, ...make(null))];
      expect(nulled.status).toBe(200);
      expect(nulled).toEqual(absent);
      expect(parsed(nulled)).toMatchObject({ result: { structuredContent: { total: 2 } } });
    }
  });
});
