import { expect } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { writeCodSettings } from '../../src/cod/cod-settings.queries.js';

/**
 * What every real MCP client is run through: each tool called once with only the arguments the contract
 * requires and once more with `null` for every optional one, on a listening app and a real database, and each
 * answer compared with the REST answer to the same request. Shared by the official SDK, Vercel AI SDK, LangChain,
 * OpenAI Agents SDK and Inspector CLI tests.
 */
export const BASE = '/api/v1/commerce';
/** Every tool's required parameters, as the contract has them (sorted by tool). */
export const REQUIRED: Record<string, string[]> = {
  browse_catalog: [],
  cancel_checkout: ['id', 'idempotency_key'],
  check_cod_availability: [],
  complete_checkout: ['id', 'payment_data', 'idempotency_key'],
  confirm_cod_order: ['reference', 'answer'],
  correct_customer_data: [],
  create_checkout: ['checkout'],
  create_payment_link: ['reference'],
  erase_customer_data: [],
  export_customer_data: [],
  find_customer: ['phone'],
  get_checkout: ['id'],
  get_order: ['reference'],
  get_order_whatsapp_messages: ['reference', 'type'],
  get_product: ['id'],
  get_product_details: ['id'],
  list_categories: [],
  place_order: ['customer', 'items', 'external_reference'],
  search_products: [],
  set_customer_consent: ['phone', 'purpose', 'channel', 'state'],
  update_checkout: ['id', 'checkout'],
};
export const TOOL_NAMES = Object.keys(REQUIRED);

/** Each tool's `required`, as a client hands the schema on. */
export const requiredOf = (schemas: [name: string, schema: unknown][]): Record<string, string[]> =>
  Object.fromEntries(
    schemas.map(([name, schema]): [string, string[]] => [name, (schema as { required?: string[] }).required ?? []]).sort(([a], [b]) => a.localeCompare(b)),
  );
const PHONE = '+91 98765 43210';

export interface Shop {
  ctx: TestApp;
  /** the MCP endpoint's URL */
  url: string;
  key: string;
  rest(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  /** a GET of the company's UCP REST binding (`path` under its 2026-01-11 endpoint) */
  ucp(path: string): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

/** A listening app on its own database, with a company (its UCP business on, one shipping rate), its key and two products (one sold by weight). */
export async function openShop(): Promise<Shop> {
  let testDb: TestDatabase | undefined;
  let ctx: TestApp | undefined;
  try {
    testDb = await createTestDatabase();
    ctx = await buildTestApp(testDb.db);
    const origin = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const { company, key } = await createCompanyWithKey(ctx.services);
    await addLocations(ctx.db, company.id);
    await ctx.services.ucpSettings.set(company.id, { kind: 'cli', name: 'test' }, { enabled: true });
    // COD orders wait for their buyer's confirmation (confirm_cod_order); prepaid ones are as before
    await writeCodSettings(ctx.db, company.id, { confirm_before_booking: true });
    await ctx.services.shippingRates.create(
      company.id,
      { kind: 'cli', name: 'test' },
      { id: 'std', title: 'Standard', level: 'standard', zone_kind: 'everywhere', price: '49.00' },
    );
    await addProduct(ctx.db, company.id, {
      sku: 'SHIRT',
      name: 'Cotton Shirt',
      variants: [{ sku: 'SHIRT-RED-XL', barcode: '8901234567890', selling_price: '799.00', stock: '10' }],
    });
    await addProduct(ctx.db, company.id, {
      sku: 'RICE',
      name: 'Basmati Rice',
      unit: 'KG',
      variants: [{ sku: 'RICE-LOOSE', selling_price: '120.50', stock: '25.500' }],
    });
    const app = ctx;
    const db = testDb;
    return {
      ctx: app,
      url: `${origin}${BASE}/mcp`,
      key,
      async rest(method, path, body) {
        const res = await fetch(`${origin}${BASE}${path}`, {
          method,
          headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      },
      async ucp(path) {
        const res = await fetch(`${origin}/ucp/${company.slug}/2026-01-11${path}`, { headers: { 'ucp-agent': 'profile="https://agent.example/p"' } });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      },
      async close() {
        await app.app.close();
        await db.drop();
      },
    };
  } catch (err) {
    await ctx?.app.close();
    await testDb?.drop();
    throw err;
  }
}

export interface ToolCall {
  /** `<tool> (<run>)`, or with a note when a tool is called twice in a run */
  label: string;
  tool: string;
  args: Record<string, unknown>;
}

/**
 * Every tool, in an order where each finds what it reads (the orders are placed before they are looked up).
 * `required`: only what the contract requires. `nulls`: the same with every optional argument null, nested ones
 * too (a second place_order gives a delivery address with its optional fields null). `client` keeps each client's
 * orders apart (external references are unique per company). Of the checkout tools only create_checkout is here (the
 * others name the checkout it made); test/mcp/checkout-tools.test.ts calls them all.
 */
export function toolCalls(run: 'required' | 'nulls', client: string): ToolCall[] {
  const ref = `${client}-${run}`;
  const nulls = run === 'nulls';
  const order = (reference: string, extra: Record<string, unknown>) => ({
    customer: { name: 'Asha Rao', phone: PHONE, ...(nulls ? { email: null } : {}) },
    items: [
      { product_id: 'SHIRT-RED-XL', quantity: 1 },
      { product_id: 'RICE-LOOSE', quantity: 1.5 },
    ],
    external_reference: reference,
    ...extra,
  });
  const unset = (...names: string[]) => (nulls ? Object.fromEntries(names.map((n) => [n, null])) : {});
  const calls: ToolCall[] = [
    { label: 'list_categories', tool: 'list_categories', args: {} },
    { label: 'browse_catalog', tool: 'browse_catalog', args: unset('search', 'category', 'brand', 'in_stock', 'limit', 'offset') },
    { label: 'get_product_details', tool: 'get_product_details', args: { id: 'SHIRT' } },
    { label: 'search_products', tool: 'search_products', args: unset('search', 'limit', 'offset') },
    { label: 'get_product', tool: 'get_product', args: { id: 'RICE-LOOSE' } },
    { label: 'place_order', tool: 'place_order', args: order(ref, unset('notes', 'delivery_address', 'payment', 'payment_reference', 'marketing_consent')) },
  ];
  if (nulls) {
    const address = { line1: '12 MG Road', city: 'Bengaluru', pincode: '560001', name: null, line2: null, state: null, phone: null };
    calls.push({
      label: 'place_order (an address with its optional fields null)',
      tool: 'place_order',
      args: order(`${ref}-address`, { ...unset('notes', 'payment', 'payment_reference', 'marketing_consent'), delivery_address: address }),
    });
  }
  calls.push(
    {
      label: 'place_order (cash on delivery)',
      tool: 'place_order',
      args: order(`${ref}-cod`, { ...unset('notes', 'delivery_address', 'payment_reference', 'marketing_consent'), payment: 'cod' }),
    },
    { label: 'confirm_cod_order', tool: 'confirm_cod_order', args: { reference: `${ref}-cod`, answer: 'confirm', ...unset('phone') } },
  );
  const line = { item: { id: 'SHIRT-RED-XL', ...unset('title') }, quantity: 1, ...unset('id') };
  calls.push(
    {
      label: 'create_checkout',
      tool: 'create_checkout',
      args: { checkout: { line_items: [line], ...unset('currency', 'buyer', 'fulfillment', 'discounts', 'payment') }, ...unset('idempotency_key') },
    },
    { label: 'get_order', tool: 'get_order', args: { reference: ref, ...unset('phone') } },
    {
      label: 'get_order_whatsapp_messages',
      tool: 'get_order_whatsapp_messages',
      args: { reference: ref, type: 'order_status', ...unset('template', 'phone') },
    },
    { label: 'find_customer', tool: 'find_customer', args: { phone: PHONE, ...unset('recent_orders') } },
    { label: 'check_cod_availability', tool: 'check_cod_availability', args: unset('pincode', 'phone', 'amount') },
    {
      label: 'set_customer_consent',
      tool: 'set_customer_consent',
      args: { phone: PHONE, purpose: 'marketing', channel: 'email', state: run === 'nulls' ? 'withdrawn' : 'given' },
    },
  );
  return calls.map((c) => ({ ...c, label: `${c.label} (${run})` }));
}

/** Signed links differ by their expiry second; compare everything else. */
const unsign = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replace(/expires=\d+&sig=[\w-]+/g, 'SIGNED'));

const query = (args: Record<string, unknown>) => {
  const given = Object.entries(args).filter(([, v]) => v !== null && v !== undefined);
  return given.length ? `?${new URLSearchParams(given.map(([k, v]) => [k, String(v)])).toString()}` : '';
};

/**
 * The tool's answer is a success in the REST response's shape: equal to what REST answers for the same request
 * (place_order: equal to the REST repeat's order, which is the same order), or for the v1.0 flat tools, which have
 * no REST door, the documented flat shape.
 */
export async function expectRestShaped(shop: Shop, call: ToolCall, answer: unknown): Promise<void> {
  const { tool, args, label } = call;
  expect(answer, label).not.toHaveProperty('error');
  const got = unsign(answer) as Record<string, unknown>;
  const same = async (path: string) => {
    const res = await shop.rest('GET', path);
    expect(res.status, label).toBe(200);
    expect(got, label).toEqual(unsign(res.body));
  };
  switch (tool) {
    case 'list_categories':
      return same('/catalog/categories');
    case 'browse_catalog':
      return same(`/catalog/products${query(args)}`);
    case 'get_product_details':
      return same(`/catalog/products/${String(args.id)}`);
    case 'get_order':
      return same(`/orders/${String(args.reference)}${query({ phone: args.phone })}`);
    case 'get_order_whatsapp_messages':
      return same(`/orders/${String(args.reference)}/whatsapp-messages${query({ type: args.type, template: args.template, phone: args.phone })}`);
    case 'find_customer':
      return same(`/customers${query(args)}`);
    case 'check_cod_availability':
      return same(`/cod/availability${query(args)}`);
    case 'set_customer_consent': {
      // the same state again over REST changes nothing and answers the same customer
      const res = await shop.rest('POST', '/customers/consents', args);
      expect(res.status, label).toBe(200);
      expect(res.body.changed, label).toBe(false);
      expect(got, label).toEqual({ ...(unsign(res.body) as object), changed: true });
      expect(got.data, label).toMatchObject({ consents: { marketing: { email: args.state } }, may_send: { marketing: { email: args.state === 'given' } } });
      return;
    }
    case 'place_order': {
      const repeat = await shop.rest('POST', '/orders', args);
      expect(repeat.status, label).toBe(200);
      expect(repeat.body.duplicate, label).toBe(true);
      expect(got, label).toEqual({ data: repeat.body.data });
      expect(got.data, label).toMatchObject({ order_status: 'confirmed', external_reference: args.external_reference, amount: '979.75' });
      return;
    }
    case 'confirm_cod_order': {
      // the same answer again over REST answers the same order, settled once
      const res = await shop.rest('POST', `/orders/${String(args.reference)}/cod-confirmation`, { answer: args.answer });
      expect(res.status, label).toBe(200);
      expect(got, label).toEqual(unsign(res.body));
      expect(got.data, label).toMatchObject({ cod_confirmation: { status: 'confirmed', settled_by: 'buyer' } });
      return;
    }
    case 'create_checkout': {
      // the checkout as the REST binding reads it
      const res = await shop.ucp(`/checkout-sessions/${String(got.id)}`);
      expect(res.status, label).toBe(200);
      expect(got, label).toEqual(res.body);
      expect(got, label).toMatchObject({ status: 'incomplete', line_items: [{ item: { id: 'SHIRT-RED-XL', price: 79900 }, quantity: 1 }] });
      return;
    }
    case 'search_products':
      expect(got, label).toEqual({
        data: [
          { sku: 'RICE-LOOSE', name: expect.stringContaining('Basmati Rice'), price: '120.50', available: expect.any(String), in_stock: true },
          { sku: 'SHIRT-RED-XL', name: expect.stringContaining('Cotton Shirt'), price: '799.00', available: expect.any(String), in_stock: true },
        ],
        count: 2,
        total: 2,
        limit: 20,
        offset: 0,
        has_more: false,
      });
      return;
    case 'get_product':
      expect(got, label).toEqual({
        data: { sku: 'RICE-LOOSE', name: expect.stringContaining('Basmati Rice'), price: '120.50', available: expect.any(String), in_stock: true },
      });
      return;
    default:
      throw new Error(`no REST shape for ${tool}`);
  }
}

/** Parses a tool result's JSON text (`content[0]`), as every client hands it on. */
export function resultJson(result: object, label: string): unknown {
  const { isError, content } = result as { isError?: boolean; content?: { type: string; text: string }[] };
  expect(isError, `${label}: ${JSON.stringify(content)}`).toBeFalsy();
  expect(content?.[0]?.type, label).toBe('text');
  return JSON.parse(content![0].text);
}
