import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { BASE, orderBody, post as postOrder, shop } from '../helpers/orders.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { writeCodSettings } from '../../src/cod/cod-settings.queries.js';
import { fakeRazorpay, type FakeRazorpay } from '../helpers/razorpay.js';

/**
 * Every tool, in both eras, answers the same bytes whichever road its tools/call takes: the direct path (our writer
 * frames the JSON-RPC response) and the SDKs' (the v1 server and transport for the 2025 era, the v2 handler for
 * 2026-07-28, each framing what the same writer returned). Each tool is called with arguments it answers and, where
 * it has any, with arguments it refuses (a tool error). A few answers are also pinned to the bytes recorded before
 * the writer was made one, so a change both roads share still shows.
 */
let testDb: TestDatabase;
let direct: TestApp;
let sdk: TestApp;
let s: Awaited<ReturnType<typeof shop>>;
let orderNumber: string;
let codOrderNumber: string;
let placed: Record<string, unknown>;
let checkoutId: string;
let toCancel: string;
let codNumber: string;
let rzp: FakeRazorpay;
let erasedCustomer: string;

const PHONE = '9876543210';

beforeAll(async () => {
  testDb = await createTestDatabase();
  direct = await buildTestApp(testDb.db, { PAYMENT_API_ALLOW_LOCAL: 'true' });
  sdk = await buildTestApp(testDb.db, { MCP_DIRECT_TOOL_CALLS: 'false' });
  s = await shop(direct, [
    {
      sku: 'SHIRT',
      name: 'Cotton Shirt',
      variants: [{ sku: 'SHIRT-RED-XL', attributes: { Colour: 'Red', Size: 'XL' }, selling_price: '799.00', mrp: '999.00', stock: '10' }],
    },
    { sku: 'RICE', name: 'Basmati Rice', unit: 'KG', tax_rate: '5', variants: [{ sku: 'RICE-LOOSE', selling_price: '120.50', stock: '25.500' }] },
  ]);
  // one key for every tool: the data-rights tools need the privacy permission
  s = { ...s, headers: { 'x-api-key': (await direct.services.keys.create(s.companyId, { kind: 'cli', name: 'test' }, 'tools', ['privacy'])).key } };
  placed = orderBody({ customer: { name: 'Asha Rao', phone: PHONE }, items: [{ product_id: 'RICE-LOOSE', quantity: 1.5 }] });
  const res = await postOrder(direct, s.headers, placed);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  orderNumber = (res.body as { data: { order_number: string } }).data.order_number;
  await writeCodSettings(direct.db, s.companyId, { confirm_before_booking: true });
  const toConfirm = await postOrder(
    direct,
    s.headers,
    orderBody({ customer: { name: 'Asha Rao', phone: PHONE }, payment: 'cod', items: [{ product_id: 'RICE-LOOSE', quantity: 1 }] }),
  );
  codOrderNumber = (toConfirm.body as { data: { order_number: string } }).data.order_number;
  await direct.services.customers.setConsent(
    s.companyId,
    { phone: PHONE, purpose: 'marketing', channel: 'messaging', state: 'given' },
    { source: 'api', actor: null },
  );
  // a COD order with its payment link made, so create_payment_link answers that live link on both roads
  rzp = await fakeRazorpay();
  const acct = rzp.account();
  await direct.services.payments.configure(
    s.companyId,
    { kind: 'cli', name: 'test' },
    {
      provider: 'razorpay',
      keyId: acct.keyId,
      keySecret: acct.keySecret,
      webhookSecret: 'whsec-tool-answers',
      baseUrl: rzp.url,
    },
  );
  const cod = await postOrder(direct, s.headers, { ...placed, external_reference: 'tool-answers-cod', payment: 'cod' });
  codNumber = (cod.body as { data: { order_number: string } }).data.order_number;
  await direct.services.paymentLinks.create({ companyId: s.companyId }, codNumber, {});
  await direct.services.ucpSettings.set(s.companyId, { kind: 'cli', name: 'test' }, { enabled: true });
  await direct.services.shippingRates.create(
    s.companyId,
    { kind: 'cli', name: 'test' },
    { id: 'std', title: 'Standard', level: 'standard', zone_kind: 'everywhere', price: '49.00' },
  );
  const business = (await direct.services.ucpSettings.byCompany(s.companyId))!;
  const line_items = [{ item: { id: 'SHIRT-RED-XL' }, quantity: 1 }];
  const fulfillment = {
    methods: [
      {
        type: 'shipping' as const,
        destinations: [{ id: 'home', street_address: '12 MG Road', address_locality: 'Bengaluru', postal_code: '560038', address_country: 'IN' }],
        selected_destination_id: 'home',
        groups: [{ selected_option_id: 'std' }],
      },
    ],
  };
  checkoutId = (await direct.services.checkout.create(business, { line_items, buyer: { phone_number: PHONE }, fulfillment }, undefined)).record.id;
  toCancel = (await direct.services.checkout.create(business, { line_items }, undefined)).record.id;
  // a customer erased already, so erase_customer_data answers the same on every call
  const gone = await postOrder(
    direct,
    s.headers,
    orderBody({ customer: { name: 'Ravi Kumar', phone: '9811122334' }, items: [{ product_id: 'RICE-LOOSE', quantity: 1 }] }),
  );
  const erasure = await direct.services.customerData.erase(s.companyId, { kind: 'cli', name: 'test' }, { phone: '9811122334', cancel_open_orders: true });
  expect(gone.status).toBe(201);
  erasedCustomer = erasure.customer_id;
});
afterAll(async () => {
  await direct?.app.close();
  await sdk?.app.close();
  await rzp?.close();
  await testDb?.drop();
});

/** Per tool: arguments it answers (a repeat of a placed order, for place_order), and arguments it refuses when it has any. */
const SAMPLES: Record<string, { ok: () => Record<string, unknown>; refused?: Record<string, unknown> }> = {
  browse_catalog: { ok: () => ({ search: 'shirt', limit: 5 }), refused: { limit: 0 } },
  get_product_details: { ok: () => ({ id: 'SHIRT-RED-XL' }), refused: { id: 'NOPE' } },
  list_categories: { ok: () => ({}) },
  find_customer: { ok: () => ({ phone: PHONE }), refused: { phone: '12' } },
  get_order: { ok: () => ({ reference: orderNumber, phone: PHONE }), refused: { reference: 'ORD-NOPE' } },
  // confirmed at the first call; every later call answers the same
  confirm_cod_order: { ok: () => ({ reference: codOrderNumber, answer: 'confirm', phone: PHONE }), refused: { reference: 'ORD-NOPE', answer: 'confirm' } },
  create_payment_link: { ok: () => ({ reference: codNumber, phone: PHONE }), refused: { reference: 'ORD-NOPE' } },
  get_order_whatsapp_messages: {
    ok: () => ({ reference: orderNumber, type: 'order_status', phone: PHONE }),
    refused: { reference: 'ORD-NOPE', type: 'order_status' },
  },
  place_order: { ok: () => placed, refused: { customer: { name: 'A', phone: PHONE }, items: [], external_reference: 'x' } },
  check_cod_availability: { ok: () => ({ pincode: '560038', phone: PHONE, amount: '499.00' }), refused: { pincode: '5600' } },
  // given before the calls (beforeAll), so every call answers changed: false
  set_customer_consent: {
    ok: () => ({ phone: PHONE, purpose: 'marketing', channel: 'messaging', state: 'given' }),
    refused: { phone: PHONE, purpose: 'newsletters', channel: 'messaging', state: 'given' },
  },
  search_products: { ok: () => ({ search: 'rice' }), refused: { limit: 'many' } },
  get_product: { ok: () => ({ id: 'RICE-LOOSE' }), refused: {} },
  // the writes with a fixed idempotency_key: every call after the first answers its answer again
  create_checkout: {
    ok: () => ({ checkout: { line_items: [{ item: { id: 'RICE-LOOSE' }, quantity: 1 }] }, idempotency_key: 'answers-create' }),
    refused: { checkout: {} },
  },
  get_checkout: { ok: () => ({ id: checkoutId }), refused: { id: 'chk_nope' } },
  update_checkout: {
    ok: () => ({ id: checkoutId, checkout: { line_items: [{ item: { id: 'SHIRT-RED-XL' }, quantity: 2 }] }, idempotency_key: 'answers-update' }),
    refused: { id: 'chk_nope', checkout: { line_items: [{ item: { id: 'SHIRT-RED-XL' }, quantity: 1 }] } },
  },
  complete_checkout: {
    ok: () => ({ id: checkoutId, payment_data: { id: 'instr_1', handler_id: 'cod' }, idempotency_key: 'answers-complete' }),
    refused: { id: 'chk_nope', payment_data: { handler_id: 'cod' }, idempotency_key: 'refuses-complete' },
  },
  cancel_checkout: { ok: () => ({ id: toCancel, idempotency_key: 'answers-cancel' }), refused: { id: 'chk_nope', idempotency_key: 'refuses-cancel' } },
  export_customer_data: { ok: () => ({ phone: PHONE }), refused: {} },
  correct_customer_data: { ok: () => ({ phone: PHONE, name: 'Asha Rao' }), refused: { phone: PHONE } },
  erase_customer_data: { ok: () => ({ customer_id: erasedCustomer }), refused: { customer_id: 'cus_nope' } },
};

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
type Era = '2025' | '2026-07-28';

/** A tools/call in the era's form: the 2025 era's plain request, or 2026-07-28's envelope and standard headers. */
function toolsCall(era: Era, name: string, args: unknown, id: string | number = 7): [unknown, Record<string, string>] {
  if (era === '2025') return [{ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }, {}];
  return [
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: ENVELOPE } },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
  ];
}

async function post(app: TestApp, [body, headers]: [unknown, Record<string, string>]) {
  const res = await app.app.inject({
    method: 'POST',
    url: `${BASE}/mcp`,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...s.headers, ...headers },
    payload: JSON.stringify(body),
  });
  // signed photo links differ by their expiry second; everything else must be the same bytes
  return {
    status: res.statusCode,
    type: res.headers['content-type'],
    body: res.body.replace(/expires=\d+&sig=[\w-]+/g, 'SIGNED').replace(/generated_at(\\*"):(\\*")[^"\\]+/g, 'generated_at$1:$2NOW'),
  };
}

type Answer = { result: { structuredContent?: unknown; isError?: boolean } };

describe.each(['2025', '2026-07-28'] as const)('every tool, %s era: the direct answer is the SDK answer', (era) => {
  it('has a sample for every tool', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(TOOLS.map((t) => t.name).sort());
  });

  it.each(TOOLS.map((t) => t.name))('%s answering', async (name) => {
    const call = toolsCall(era, name, SAMPLES[name].ok());
    const [viaSdk, viaDirect] = [await post(sdk, call), await post(direct, call)];
    expect(viaDirect.status, viaDirect.body).toBe(200);
    const answer = (JSON.parse(viaDirect.body) as Answer).result;
    expect(answer.isError, viaDirect.body).toBeUndefined();
    expect(answer.structuredContent).toBeTypeOf('object');
    expect(viaDirect).toEqual(viaSdk);
  });

  it.each(TOOLS.map((t) => t.name).filter((name) => SAMPLES[name].refused))('%s refusing (a tool error)', async (name) => {
    const call = toolsCall(era, name, SAMPLES[name].refused);
    const [viaSdk, viaDirect] = [await post(sdk, call), await post(direct, call)];
    expect((JSON.parse(viaDirect.body) as Answer).result.isError, viaDirect.body).toBe(true);
    expect(viaDirect).toEqual(viaSdk);
  });
});

/** Answers recorded from the service before the tools/call writer was made one; both roads must still give these bytes. */
const RECORDED: [string, Era, string, unknown, string][] = [
  [
    'a result, 2025 era',
    '2025',
    'list_categories',
    {},
    '{"result":{"content":[{"type":"text","text":"{\\"data\\":{\\"categories\\":[],\\"brands\\":[]}}"}],"structuredContent":{"data":{"categories":[],"brands":[]}}},"jsonrpc":"2.0","id":"req-1"}',
  ],
  [
    'a result, 2026-07-28',
    '2026-07-28',
    'list_categories',
    {},
    '{"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"commerce-api","title":"Catalogue, Orders and Customers","version":"1.3.0"}},"content":[{"type":"text","text":"{\\"data\\":{\\"categories\\":[],\\"brands\\":[]}}"}],"structuredContent":{"data":{"categories":[],"brands":[]}},"resultType":"complete"},"jsonrpc":"2.0","id":"req-1"}',
  ],
  [
    'a tool error, 2025 era',
    '2025',
    'get_product',
    {},
    '{"result":{"content":[{"type":"text","text":"{\\"error\\":{\\"code\\":\\"validation_failed\\",\\"message\\":\\"id: must be a string\\",\\"details\\":[{\\"path\\":\\"id\\",\\"message\\":\\"must be a string\\"}]}}"}],"isError":true},"jsonrpc":"2.0","id":"req-1"}',
  ],
  [
    'a tool error, 2026-07-28',
    '2026-07-28',
    'get_product',
    {},
    '{"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"commerce-api","title":"Catalogue, Orders and Customers","version":"1.3.0"}},"content":[{"type":"text","text":"{\\"error\\":{\\"code\\":\\"validation_failed\\",\\"message\\":\\"id: must be a string\\",\\"details\\":[{\\"path\\":\\"id\\",\\"message\\":\\"must be a string\\"}]}}"}],"isError":true,"resultType":"complete"},"jsonrpc":"2.0","id":"req-1"}',
  ],
];

describe('answers as recorded before', () => {
  it.each(RECORDED)('%s', async (_label, era, name, args, recorded) => {
    for (const app of [direct, sdk]) {
      const res = await post(app, toolsCall(era, name, args, 'req-1'));
      expect(res.body).toBe(recorded);
    }
  });
});
