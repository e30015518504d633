import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrubText, LOG_SERIALIZERS } from '../../src/lib/log-privacy.js';
import { maskUrl } from '../../src/lib/log-request.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { BASE } from '../helpers/security-world.js';

/**
 * Customers' phone numbers, e-mail addresses and delivery addresses are personal data (India's DPDP Act): they never
 * reach a log line, at any level, whichever door they came through.
 */

let testDb: TestDatabase;
let a: TestApp;
beforeAll(async () => {
  testDb = await createTestDatabase();
  a = await buildTestApp(testDb.db, { RATE_LIMIT_MAX: '100000', AUTH_FAILURE_LIMIT: '100000', LOG_LEVEL: 'trace' });
});
afterAll(async () => {
  await a?.app.close();
  await testDb.drop();
});

// Every way the tests below write the customer's number, and the digits a log could hold in any of them.
const PHONE = '+91 98451 23456';
const PHONE_FORMS = [PHONE, '09845123456', '9845123456', '+919845123456', '98451-23456'];
const DIGITS = ['9845123456', '98451 23456', '98451-23456', '98451%2023456'];
const OTHER_PHONE = '+91 90080 70605'; // the courier's number on the delivery address
const EMAIL = 'meera.iyer.private@example.in';
const ADDRESS = ['Flat 9C, Sunflower Residency', 'Near Gandhi Statue Lane', 'Koramangala 5th Block'];

describe('personal data never reaches the logs', () => {
  it('REST and MCP requests carrying phones, an e-mail and an address, at trace level, successes and failures', async () => {
    const co = await createCompanyWithKey(a.services);
    await addLocations(a.db, co.company.id);
    await addProduct(a.db, co.company.id, { sku: 'PD', name: 'Private item', variants: [{ sku: 'PD-1', selling_price: '10.00', stock: '5' }] });
    const headers = { 'x-api-key': co.key };
    const statuses: number[] = [];
    const send = async (opts: InjectOptions) => {
      const res = await a.app.inject(opts);
      statuses.push(res.statusCode);
      return res;
    };
    const order = (ref: string, overrides: Record<string, unknown> = {}) => ({
      customer: { name: 'Meera Iyer', phone: PHONE, email: EMAIL },
      items: [{ product_id: 'PD-1', quantity: 1 }],
      external_reference: ref,
      delivery_address: { line1: ADDRESS[0], line2: ADDRESS[1], city: ADDRESS[2], pincode: '560095', phone: OTHER_PHONE },
      ...overrides,
    });

    const placed = await send({ method: 'POST', url: `${BASE}/orders`, headers, payload: order('pd-1') });
    expect(placed.statusCode).toBe(201);
    const number = placed.json<{ data: { order_number: string } }>().data.order_number;
    // a duplicate, a short order (409), a bad e-mail (400) and a bad phone (400), each echoing nothing into the logs
    await send({ method: 'POST', url: `${BASE}/orders`, headers, payload: order('pd-1') });
    await send({ method: 'POST', url: `${BASE}/orders`, headers, payload: order('pd-2', { items: [{ product_id: 'PD-1', quantity: 99 }] }) });
    await send({
      method: 'POST',
      url: `${BASE}/orders`,
      headers,
      payload: order('pd-3', { customer: { name: 'M', phone: PHONE, email: `not-an-email ${EMAIL}x` } }),
    });
    await send({ method: 'POST', url: `${BASE}/orders`, headers, payload: order('pd-4', { customer: { name: 'M', phone: '98451234' } }) });
    for (const form of PHONE_FORMS) {
      await send({ url: `${BASE}/customers?phone=${encodeURIComponent(form)}`, headers });
      await send({ url: `${BASE}/orders/${number}?phone=${encodeURIComponent(form)}`, headers });
      await send({ url: `${BASE}/customers?recent_orders=2&phone=${encodeURIComponent(form)}&email=${encodeURIComponent(EMAIL)}`, headers });
    }
    await send({ url: `${BASE}/customers?phone=${encodeURIComponent('+91 90080 70699')}`, headers }); // 404, unknown number
    await send({ url: `${BASE}/orders/${number}?phone=${encodeURIComponent(OTHER_PHONE)}`, headers }); // another customer's number
    await send({ url: `${BASE}/customers?phone=${encodeURIComponent(PHONE)}`, headers: { 'x-api-key': `${co.key}x` } }); // 401
    const mcp = (id: number, name: string, args: Record<string, unknown>) =>
      send({
        method: 'POST',
        url: `${BASE}/mcp`,
        headers: { ...headers, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        payload: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
      });
    await mcp(1, 'find_customer', { phone: PHONE });
    await mcp(2, 'get_order', { reference: number, phone: PHONE });
    await mcp(3, 'place_order', order('pd-5'));
    await mcp(4, 'place_order', order('pd-6', { customer: { name: 'M', phone: 'abc' } }));
    // UCP's checkout tools: a buyer and a destination, completed; a second checkout refused at completion (a bad PIN)
    await a.services.ucpSettings.set(co.company.id, { kind: 'cli', name: 'test' }, { enabled: true });
    await a.services.shippingRates.create(
      co.company.id,
      { kind: 'cli', name: 'test' },
      { id: 'std', title: 'Standard', level: 'standard', zone_kind: 'everywhere', price: '5.00' },
    );
    const checkout = (pin: string) => ({
      line_items: [{ item: { id: 'PD-1' }, quantity: 1 }],
      buyer: { first_name: 'Meera', last_name: 'Iyer', email: EMAIL, phone_number: PHONE },
      fulfillment: {
        methods: [
          {
            type: 'shipping',
            destinations: [
              { id: 'home', street_address: ADDRESS[0], extended_address: ADDRESS[1], address_locality: ADDRESS[2], postal_code: pin, address_country: 'IN' },
            ],
            selected_destination_id: 'home',
            groups: [{ selected_option_id: 'std' }],
          },
        ],
      },
    });
    for (const [i, pin] of [
      [0, '560095'],
      [1, '000000'],
    ] as const) {
      const created = await mcp(10 + i, 'create_checkout', { checkout: checkout(pin) });
      const id = created.json<{ result: { structuredContent?: { id: string } } }>().result.structuredContent?.id ?? 'chk_none';
      const completed = await mcp(20 + i, 'complete_checkout', { id, payment_data: { id: 'instr_1', handler_id: 'cod' }, idempotency_key: `pd-complete-${i}` });
      const result = completed.json<{ result: { isError?: boolean; structuredContent?: { status: string } } }>().result;
      expect(result.isError ? 'refused' : result.structuredContent?.status).toBe(i === 0 ? 'completed' : 'refused');
    }
    expect(statuses.filter((s) => s === 200 || s === 201).length).toBeGreaterThanOrEqual(15);
    expect(statuses).toEqual(expect.arrayContaining([400, 401, 404, 409]));

    const logs = a.rawLogs();
    expect(logs.length).toBeGreaterThan(5000);
    for (const needle of [...DIGITS, '9008070605', '90080 70605', EMAIL, encodeURIComponent(EMAIL), ...ADDRESS])
      expect(logs.includes(needle), `the logs hold ${needle}`).toBe(false);
    // the request lines are still there, by route template, with the parameter named and its value masked
    expect(logs).toContain(`${BASE}/customers?phone=***`);
    expect(logs).toContain(`${BASE}/orders/:reference?phone=***`);
    expect(logs).toContain(`${BASE}/customers?recent_orders=2&phone=***&email=***`);
  });

  it('masks personal query parameters however they are written, and nothing else', () => {
    expect(maskUrl('/api/v1/commerce/customers?phone=%2B91%2098451%2023456&recent_orders=3')).toBe('/api/v1/commerce/customers?phone=***&recent_orders=3');
    expect(maskUrl('/x?PHONE=1&Email=a%40b.in&ph%6Fne=2&phone')).toBe('/x?PHONE=***&Email=***&phone=***&phone=***');
    expect(maskUrl('/x?search=red+kurta&limit=5')).toBe('/x?search=red+kurta&limit=5');
    expect(maskUrl('/catalog/products')).toBe('/catalog/products');
    expect(maskUrl('/x?phone=%E0%A4%A')).toBe('/x?phone=***');
  });

  it('scrubs phones and e-mails out of an error, and drops the fields where PostgreSQL repeats a row', () => {
    const err = Object.assign(new Error('duplicate key for +91 98451 23456 (meera@example.in) on 2026-11-24'), {
      code: '23505',
      detail: 'Key (company_id, phone_e164)=(co_1, +919845123456) already exists.',
      where: 'SQL statement "INSERT INTO customers …"',
    });
    const out = LOG_SERIALIZERS.err(err);
    expect(JSON.stringify(out)).not.toMatch(/9845123456|98451 23456|meera@example\.in/);
    expect(out).toMatchObject({ message: 'duplicate key for *** (***) on 2026-11-24', code: '23505' });
    expect(out).not.toHaveProperty('detail');
    expect(out).not.toHaveProperty('where');
    expect(scrubText('order ORD-000123 of co_01m87t5ntpkg79fx80e9kbeq30, AWB 12345')).toBe('order ORD-000123 of co_01m87t5ntpkg79fx80e9kbeq30, AWB 12345');
  });
});
