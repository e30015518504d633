import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { shop, uid } from '../helpers/orders.js';

/**
 * The UCP versions served side by side (docs/ucp.md "Versions"): the root profile is 2026-08-25's naming the
 * 2026-04-08 and 2026-01-11 profiles in `supported_versions`; each version has its endpoint, and a checkout bought
 * through the 2026-04-08 or 2026-08-25 endpoint answers in that version's shapes. Real HTTP (app.inject) on real
 * PostgreSQL.
 */

const ORIGIN = 'https://api.example.in';
const ctx = useTestApp({ PUBLIC_URL: ORIGIN });

const IN_ADDRESS = {
  id: 'home',
  first_name: 'Asha',
  last_name: 'Rao',
  street_address: '12 MG Road',
  address_locality: 'Bengaluru',
  address_region: 'Karnataka',
  postal_code: '560038',
  address_country: 'IN',
};
const BUYER = { first_name: 'Asha', last_name: 'Rao', email: 'asha@example.in', phone_number: '+91 98765 43210' };
const AGENT = 'profile="https://agent.example/profile.json"';

async function business() {
  const s = await shop(ctx, [{ sku: 'ROSE', name: 'Red Rose Bouquet', variants: [{ sku: 'ROSE-1', name: '12 stems', selling_price: '35.00', stock: '5' }] }], {
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
      description: 'Arrives in 3 to 5 days',
    },
  );
  await ctx.services.discountCodes.create(s.companyId, { kind: 'cli', name: 'test' }, { code: '10OFF', title: '10% Off', kind: 'percentage', value: '10' });
  const slug = s.company.slug;
  const call = async (version: string, method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown, agent = AGENT, key = uid()) => {
    const res = await ctx.app.inject({
      method,
      url: `/ucp/${slug}/${version}${path}`,
      headers: { 'ucp-agent': agent, 'idempotency-key': key, ...(payload ? { 'content-type': 'application/json' } : {}) },
      ...(payload ? { payload: JSON.stringify(payload) } : {}),
    });
    return { status: res.statusCode, body: res.json() };
  };
  return { ...s, slug, call };
}

const get = (url: string) => ctx.app.inject({ method: 'GET', url });

describe('UCP discovery across versions', () => {
  it('the root profile is 2026-08-25’s: registries keyed by name, payment handlers in ucp, keys, supported_versions naming 2026-04-08 and 2026-01-11', async () => {
    const b = await business();
    const res = await get(`/ucp/${b.slug}/.well-known/ucp`);
    expect(res.statusCode).toBe(200);
    const { ucp, keys, ...rest } = res.json();
    // 2026-08-25 publishes the signing keys as the profile's `keys` (a JWK Set); `signing_keys` is gone
    expect(rest).toEqual({});
    const endpoint = `${ORIGIN}/ucp/${b.slug}/2026-08-25`;
    expect(ucp.version).toBe('2026-08-25');
    expect(ucp.supported_versions).toEqual({
      '2026-01-11': `${ORIGIN}/ucp/${b.slug}/2026-01-11/.well-known/ucp`,
      '2026-04-08': `${ORIGIN}/ucp/${b.slug}/2026-04-08/.well-known/ucp`,
    });
    expect(ucp.services).toEqual({
      'dev.ucp.shopping': [
        {
          version: '2026-08-25',
          spec: `${endpoint}/docs/specification/overview`,
          transport: 'rest',
          endpoint,
          schema: `${endpoint}/docs/services/shopping/rest.openapi.json`,
        },
      ],
    });
    expect(Object.keys(ucp.capabilities)).toEqual([
      'dev.ucp.shopping.checkout',
      'dev.ucp.shopping.fulfillment',
      'dev.ucp.shopping.discount',
      'dev.ucp.shopping.buyer_consent',
      'dev.ucp.shopping.order',
    ]);
    // a dev.ucp.* entry declares the release's version; every business capability names its schema
    const capabilities: Record<string, { version: string; schema: string }[]> = ucp.capabilities;
    for (const entries of Object.values(capabilities)) {
      expect(entries).toHaveLength(1);
      expect(entries[0].version).toBe('2026-08-25');
      expect(entries[0].schema).toMatch(/^https:\/\//);
    }
    expect(ucp.capabilities['dev.ucp.shopping.buyer_consent']).toEqual([
      {
        version: '2026-08-25',
        spec: `${endpoint}/docs/specification/buyer-consent`,
        schema: `${endpoint}/docs/schemas/shopping/buyer_consent.json`,
        extends: 'dev.ucp.shopping.checkout',
      },
    ]);
    expect(ucp.payment_handlers).toEqual({
      'in.commerce.cash_on_delivery': [
        {
          id: 'cod',
          version: '2026-08-25',
          spec: `${endpoint}/docs/handlers/cod`,
          schema: `${endpoint}/docs/handlers/cod/config.json`,
          config: { currency: 'INR' },
        },
      ],
    });
    expect(keys).toEqual([expect.objectContaining({ kid: expect.any(String), kty: 'EC', crv: 'P-256', alg: 'ES256' })]);
    // every link answers 200 under the 2026-08-25 endpoint
    const links = [
      ...ucp.services['dev.ucp.shopping'].flatMap((s: { spec: string; schema: string }) => [s.spec, s.schema]),
      ...Object.values(ucp.capabilities).flatMap((c) => (c as { spec: string; schema: string }[]).flatMap((e) => [e.spec, e.schema])),
      ...Object.values(ucp.payment_handlers).flatMap((h) => (h as { spec: string; schema: string }[]).flatMap((e) => [e.spec, e.schema])),
    ];
    for (const link of links) expect((await get(link.slice(ORIGIN.length))).statusCode, link).toBe(200);
  });

  it('each version’s profile is a leaf under its endpoint: 2026-08-25’s is the root’s without supported_versions; 2026-04-08’s and 2026-01-11’s are theirs', async () => {
    const b = await business();
    const root = (await get(`/ucp/${b.slug}/.well-known/ucp`)).json();
    const newest = (await get(`/ucp/${b.slug}/2026-08-25/.well-known/ucp`)).json();
    const { supported_versions: _, ...rootUcp } = root.ucp;
    expect(newest).toEqual({ ...root, ucp: rootUcp });

    const middle = (await get(root.ucp.supported_versions['2026-04-08'].slice(ORIGIN.length))).json();
    expect(middle.ucp.version).toBe('2026-04-08');
    expect(middle.ucp).not.toHaveProperty('supported_versions');
    expect(middle.ucp.services['dev.ucp.shopping'][0].endpoint).toBe(`${ORIGIN}/ucp/${b.slug}/2026-04-08`);
    expect(middle.ucp.capabilities['dev.ucp.shopping.checkout']).toEqual([expect.objectContaining({ version: '2026-04-08' })]);
    expect(middle.ucp.payment_handlers['in.commerce.cash_on_delivery']).toEqual([expect.objectContaining({ id: 'cod', version: '2026-04-08' })]);
    // 2026-04-08 lists the keys as signing_keys: the same key
    expect(middle).not.toHaveProperty('keys');
    expect(middle.signing_keys).toEqual(root.keys);

    const oldest = (await get(root.ucp.supported_versions['2026-01-11'].slice(ORIGIN.length))).json();
    expect(oldest.ucp.version).toBe('2026-01-11');
    expect(oldest.ucp).not.toHaveProperty('supported_versions');
    expect(oldest.ucp.services['dev.ucp.shopping'].rest.endpoint).toBe(`${ORIGIN}/ucp/${b.slug}/2026-01-11`);
    expect(Array.isArray(oldest.ucp.capabilities)).toBe(true);
    expect(oldest.payment.handlers.map((h: { id: string }) => h.id)).toEqual(['cod']);
    expect(oldest.signing_keys).toEqual(root.keys);
    // no version we do not serve has an endpoint
    expect((await get(`/ucp/${b.slug}/2026-01-23/.well-known/ucp`)).statusCode).toBe(404);
    expect((await get(`/ucp/${b.slug}/2099-01-01/.well-known/ucp`)).statusCode).toBe(404);
  });
});

describe('a checkout in 2026-04-08', () => {
  it('is created, updated and completed with cash on delivery to an Indian address, in 2026-04-08’s shapes', async () => {
    const b = await business();
    const endpoint = `${ORIGIN}/ucp/${b.slug}/2026-04-08`;
    const created = await b.call('2026-04-08', 'POST', '/checkout-sessions', {
      line_items: [{ item: { id: 'ROSE-1' }, quantity: 2 }],
      context: { address_country: 'IN' },
    });
    expect(created.status).toBe(201);
    const checkoutUcp = {
      version: '2026-04-08',
      status: 'success',
      capabilities: {
        'dev.ucp.shopping.checkout': [{ version: '2026-04-08' }],
        'dev.ucp.shopping.fulfillment': [{ version: '2026-04-08' }],
        'dev.ucp.shopping.discount': [{ version: '2026-04-08' }],
        'dev.ucp.shopping.buyer_consent': [{ version: '2026-04-08' }],
      },
      // the handlers the checkout lists, as the profile lists them (their documents served under either endpoint)
      payment_handlers: {
        'in.commerce.cash_on_delivery': [
          {
            id: 'cod',
            version: '2026-04-08',
            spec: expect.stringMatching(/\/docs\/handlers\/cod$/),
            schema: expect.stringMatching(/\/docs\/handlers\/cod\/config\.json$/),
            config: { currency: 'INR' },
          },
        ],
      },
    };
    expect(created.body.ucp).toEqual(checkoutUcp);
    expect(created.body.payment).toEqual({ instruments: [] });
    expect(created.body.status).toBe('incomplete');
    expect(created.body.currency).toBe('INR');
    const id = created.body.id as string;

    const updated = await b.call('2026-04-08', 'PUT', `/checkout-sessions/${id}`, {
      id,
      line_items: [{ id: created.body.line_items[0].id, item: { id: 'ROSE-1' }, quantity: 3 }],
      buyer: BUYER,
      discounts: { codes: ['10OFF'] },
      fulfillment: {
        methods: [{ type: 'shipping', destinations: [IN_ADDRESS], selected_destination_id: 'home', groups: [{ selected_option_id: 'std-ship' }] }],
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.status).toBe('ready_for_complete');
    // exactly one subtotal and one total; a discount is negative in 2026-04-08
    expect(updated.body.totals).toEqual([
      { type: 'subtotal', display_text: 'Subtotal', amount: 10500 },
      { type: 'fulfillment', display_text: 'Shipping', amount: 500 },
      { type: 'discount', display_text: '10% Off', amount: -1050 },
      { type: 'total', display_text: 'Total', amount: 9950 },
    ]);
    expect(updated.body.discounts.applied).toEqual([
      { code: '10OFF', title: '10% Off', amount: 1050, allocations: [{ path: "$.totals[?(@.type=='subtotal')]", amount: 1050 }] },
    ]);
    expect(updated.body.fulfillment.methods[0].destinations[0]).toMatchObject({ id: 'home', postal_code: '560038', address_country: 'IN' });

    const read = await b.call('2026-04-08', 'GET', `/checkout-sessions/${id}`);
    expect(read.body).toEqual(updated.body);

    const complete = {
      payment: { instruments: [{ id: 'instr_cod', handler_id: 'cod', type: 'cod', selected: true }] },
      signals: { 'dev.ucp.buyer_ip': '203.0.113.42' },
    };
    const key = uid();
    const done = await b.call('2026-04-08', 'POST', `/checkout-sessions/${id}/complete`, complete, AGENT, key);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    expect(done.body.payment).toEqual({ instruments: [{ id: 'instr_cod', handler_id: 'cod', type: 'cod', selected: true }] });
    expect(done.body.order).toEqual({ id: expect.stringMatching(/^ord_/), permalink_url: expect.stringContaining(`/orders/${done.body.order.id}`) });
    // the same key and body: the same answer, byte for byte in this version
    const again = await b.call('2026-04-08', 'POST', `/checkout-sessions/${id}/complete`, complete, AGENT, key);
    expect(again).toEqual(done);

    const order = await b.call('2026-04-08', 'GET', `/orders/${done.body.order.id}`);
    expect(order.status).toBe(200);
    expect(order.body.ucp).toEqual({ version: '2026-04-08', status: 'success', capabilities: { 'dev.ucp.shopping.order': [{ version: '2026-04-08' }] } });
    expect(order.body).toMatchObject({ id: done.body.order.id, checkout_id: id, currency: 'INR', permalink_url: `${endpoint}/orders/${done.body.order.id}` });
    expect(order.body.line_items[0].quantity).toEqual({ original: 3, total: 3, fulfilled: 0 });
    expect(order.body.totals.find((t: { type: string }) => t.type === 'discount').amount).toBe(-1050);
    expect(order.body.totals.find((t: { type: string }) => t.type === 'total').amount).toBe(9950);
    expect(order.body.fulfillment.expectations[0]).toMatchObject({ method_type: 'shipping', destination: { postal_code: '560038' } });
  });

  it('answers business outcomes as 2026-04-08’s error response (HTTP 200), protocol errors as { code, content }', async () => {
    const b = await business();
    const missing = await b.call('2026-04-08', 'GET', '/checkout-sessions/chk_nope');
    expect(missing.status).toBe(200);
    expect(missing.body).toEqual({
      ucp: { version: '2026-04-08', status: 'error' },
      messages: [{ type: 'error', code: 'not_found', content: 'Checkout session not found', severity: 'unrecoverable' }],
    });
    const created = await b.call('2026-04-08', 'POST', '/checkout-sessions', { line_items: [{ item: { id: 'ROSE-1' }, quantity: 1 }], buyer: BUYER });
    const id = created.body.id as string;
    // completing without a destination: a recoverable outcome, path in 2026-04-08's names
    const early = await b.call('2026-04-08', 'POST', `/checkout-sessions/${id}/complete`, {
      payment: { instruments: [{ id: 'i1', handler_id: 'cod', type: 'cod' }] },
    });
    expect(early.status).toBe(200);
    expect(early.body.ucp).toEqual({ version: '2026-04-08', status: 'error' });
    expect(early.body.messages[0]).toMatchObject({ type: 'error', code: 'missing', severity: 'recoverable' });
    await b.call('2026-04-08', 'PUT', `/checkout-sessions/${id}`, {
      line_items: [{ item: { id: 'ROSE-1' }, quantity: 1 }],
      fulfillment: {
        methods: [{ type: 'shipping', destinations: [IN_ADDRESS], selected_destination_id: 'home', groups: [{ selected_option_id: 'std-ship' }] }],
      },
    });
    // a handler we do not offer, on the selected instrument: the path names it in 2026-04-08's body
    const wrongHandler = await b.call('2026-04-08', 'POST', `/checkout-sessions/${id}/complete`, {
      payment: {
        instruments: [
          { id: 'i0', handler_id: 'cod', type: 'cod' },
          { id: 'i1', handler_id: 'no_such', type: 'card', selected: true },
        ],
      },
    });
    expect(wrongHandler.status).toBe(200);
    expect(wrongHandler.body.messages).toEqual([
      { type: 'error', code: 'invalid_payment', content: expect.any(String), path: '$.payment.instruments[1].handler_id', severity: 'recoverable' },
    ]);
    // two instruments, none selected: the request itself is wrong
    const unclear = await b.call('2026-04-08', 'POST', `/checkout-sessions/${id}/complete`, {
      payment: {
        instruments: [
          { id: 'i0', handler_id: 'cod', type: 'cod' },
          { id: 'i1', handler_id: 'cod', type: 'cod' },
        ],
      },
    });
    expect(unclear.status).toBe(400);
    expect(unclear.body).toEqual({ code: 'invalid_request', content: '$.payment.instruments: mark the one instrument to pay with as selected' });
    // a key reused with another body: a protocol error
    const key = uid();
    await b.call('2026-04-08', 'POST', '/checkout-sessions', { line_items: [{ item: { id: 'ROSE-1' }, quantity: 1 }] }, AGENT, key);
    const reused = await b.call('2026-04-08', 'POST', '/checkout-sessions', { line_items: [{ item: { id: 'ROSE-1' }, quantity: 2 }] }, AGENT, key);
    expect(reused.status).toBe(409);
    expect(reused.body).toEqual({ code: 'idempotency_conflict', content: expect.any(String) });
  });
});

describe('a checkout in 2026-08-25', () => {
  /** The consent purposes the business advertises, at its defaults (not granted, the business's). */
  const defaults = {
    'dev.ucp.consent.analytics': { granted: false, source: 'business', description: 'Consent for analytics and performance tracking.' },
    'dev.ucp.consent.preferences': { granted: false, source: 'business', description: 'Consent for storing user preferences.' },
    'dev.ucp.consent.marketing': { granted: false, source: 'business', description: 'Consent for marketing communications.' },
    'dev.ucp.consent.sale_or_sharing': { granted: false, source: 'business', description: 'Consent for selling or sharing data with third parties.' },
  };

  it('is created, updated and completed with cash on delivery to an Indian address, in 2026-08-25’s shapes', async () => {
    const b = await business();
    const endpoint = `${ORIGIN}/ucp/${b.slug}/2026-08-25`;
    const created = await b.call('2026-08-25', 'POST', '/checkout-sessions', {
      // an explicit `each` (UN/CEFACT C62 at scale 0) is the basis we sell in
      line_items: [{ item: { id: 'ROSE-1', quantity_unit: { unit: 'C62', scale: 0 } }, quantity: 2 }],
      context: { address_country: 'IN' },
    });
    expect(created.status).toBe(201);
    expect(created.body.ucp).toEqual({
      version: '2026-08-25',
      status: 'success',
      capabilities: {
        'dev.ucp.shopping.checkout': [{ version: '2026-08-25' }],
        'dev.ucp.shopping.fulfillment': [{ version: '2026-08-25' }],
        'dev.ucp.shopping.discount': [{ version: '2026-08-25' }],
        'dev.ucp.shopping.buyer_consent': [{ version: '2026-08-25' }],
      },
      payment_handlers: {
        'in.commerce.cash_on_delivery': [
          {
            id: 'cod',
            version: '2026-08-25',
            spec: expect.stringMatching(/\/docs\/handlers\/cod$/),
            schema: expect.stringMatching(/\/docs\/handlers\/cod\/config\.json$/),
            config: { currency: 'INR' },
          },
        ],
      },
    });
    expect(created.body.payment).toEqual({ instruments: [] });
    expect(created.body.status).toBe('incomplete');
    // the business advertises every consent purpose it supports, with its defaults, before any buyer is given
    expect(created.body.buyer).toEqual({ consent: defaults });
    // the item carries no quantity_unit: `each`
    expect(created.body.line_items[0].item).toEqual({ id: 'ROSE-1', title: 'Red Rose Bouquet - 12 stems', price: 3500 });
    const id = created.body.id as string;

    const updated = await b.call('2026-08-25', 'PUT', `/checkout-sessions/${id}`, {
      id,
      line_items: [{ id: created.body.line_items[0].id, item: { id: 'ROSE-1' }, quantity: 3 }],
      buyer: {
        ...BUYER,
        // the buyer chose marketing; the rest echoed as advertised; a purpose not advertised is ignored
        consent: {
          ...defaults,
          'dev.ucp.consent.marketing': { granted: true, source: 'platform' },
          'com.example.newsletter': { granted: true, source: 'platform' },
        },
      },
      discounts: { codes: ['10OFF'] },
      fulfillment: {
        methods: [
          {
            type: 'shipping',
            destinations: [{ ...IN_ADDRESS, type: 'shipping_address' }],
            selected_destination_id: 'home',
            groups: [{ selected_option_id: 'std-ship' }],
          },
        ],
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.status).toBe('ready_for_complete');
    expect(updated.body.buyer).toEqual({
      ...BUYER,
      consent: { ...defaults, 'dev.ucp.consent.marketing': { granted: true, source: 'platform', description: 'Consent for marketing communications.' } },
    });
    expect(updated.body.totals).toEqual([
      { type: 'subtotal', display_text: 'Subtotal', amount: 10500 },
      { type: 'fulfillment', display_text: 'Shipping', amount: 500 },
      { type: 'discount', display_text: '10% Off', amount: -1050 },
      { type: 'total', display_text: 'Total', amount: 9950 },
    ]);
    const [method] = updated.body.fulfillment.methods;
    // a destination names its type; an option's description is a description object
    expect(method.destinations).toEqual([{ ...IN_ADDRESS, type: 'shipping_address' }]);
    expect(method.groups[0].options).toEqual([
      {
        id: 'std-ship',
        title: 'Standard Shipping',
        description: { plain: 'Arrives in 3 to 5 days' },
        totals: [
          { type: 'subtotal', amount: 500 },
          { type: 'total', amount: 500 },
        ],
      },
    ]);
    expect(method.groups[0].selected_option_id).toBe('std-ship');

    // the same checkout read in 2026-01-11: the consent the platform set, a destination without `type`
    const asOldest = await b.call('2026-01-11', 'GET', `/checkout-sessions/${id}`);
    expect(asOldest.body.buyer.consent).toEqual({ marketing: true });
    expect(asOldest.body.fulfillment.methods[0].destinations[0]).not.toHaveProperty('type');
    expect(asOldest.body.fulfillment.methods[0].groups[0].options[0].description).toBe('Arrives in 3 to 5 days');

    const read = await b.call('2026-08-25', 'GET', `/checkout-sessions/${id}`);
    expect(read.body).toEqual(updated.body);

    const complete = {
      payment: { instruments: [{ id: 'instr_cod', handler_id: 'cod', type: 'cod', selected: true }] },
      signals: { 'dev.ucp.buyer_ip': '203.0.113.42' },
    };
    const key = uid();
    const done = await b.call('2026-08-25', 'POST', `/checkout-sessions/${id}/complete`, complete, AGENT, key);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    expect(done.body.ucp.version).toBe('2026-08-25');
    expect(done.body.payment).toEqual({ instruments: [{ id: 'instr_cod', handler_id: 'cod', type: 'cod', selected: true }] });
    expect(done.body.order).toEqual({ id: expect.stringMatching(/^ord_/), permalink_url: expect.stringContaining(`/orders/${done.body.order.id}`) });
    const again = await b.call('2026-08-25', 'POST', `/checkout-sessions/${id}/complete`, complete, AGENT, key);
    expect(again).toEqual(done);

    const order = await b.call('2026-08-25', 'GET', `/orders/${done.body.order.id}`);
    expect(order.status).toBe(200);
    expect(order.body.ucp).toEqual({ version: '2026-08-25', status: 'success', capabilities: { 'dev.ucp.shopping.order': [{ version: '2026-08-25' }] } });
    expect(order.body).toMatchObject({ id: done.body.order.id, checkout_id: id, currency: 'INR', permalink_url: `${endpoint}/orders/${done.body.order.id}` });
    expect(order.body.line_items[0].quantity).toEqual({ original: 3, total: 3, fulfilled: 0 });
    expect(order.body.totals.find((t: { type: string }) => t.type === 'discount').amount).toBe(-1050);
    expect(order.body.fulfillment.expectations[0]).toMatchObject({ method_type: 'shipping', destination: { postal_code: '560038' } });
    expect(order.body.fulfillment.expectations[0].destination).not.toHaveProperty('type');
  });

  it('refuses a sale basis other than each, and answers outcomes and protocol errors as 2026-04-08 does', async () => {
    const b = await business();
    const byWeight = await b.call('2026-08-25', 'POST', '/checkout-sessions', {
      line_items: [{ item: { id: 'ROSE-1', quantity_unit: { unit: 'KGM', scale: 2, display_text: 'kg' } }, quantity: 150 }],
    });
    expect(byWeight.status).toBe(200);
    expect(byWeight.body).toEqual({
      ucp: { version: '2026-08-25', status: 'error' },
      messages: [
        {
          type: 'error',
          code: 'quantity_unit_mismatch',
          content: 'Item ROSE-1 is sold by the item (each); resubmit its quantity as a count of items.',
          path: '$.line_items[0].item.quantity_unit',
          severity: 'recoverable',
        },
      ],
    });
    const missing = await b.call('2026-08-25', 'GET', '/checkout-sessions/chk_nope');
    expect(missing.status).toBe(200);
    expect(missing.body).toEqual({
      ucp: { version: '2026-08-25', status: 'error' },
      messages: [{ type: 'error', code: 'not_found', content: 'Checkout session not found', severity: 'unrecoverable' }],
    });
    // a consent purpose without its source: the request itself is wrong
    const bad = await b.call('2026-08-25', 'POST', '/checkout-sessions', {
      line_items: [{ item: { id: 'ROSE-1' }, quantity: 1 }],
      buyer: { consent: { 'dev.ucp.consent.marketing': { granted: true } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ code: 'invalid_request', content: expect.stringMatching(/^\$\.buyer\.consent/) });
  });
});

describe('version negotiation', () => {
  const create = { line_items: [{ item: { id: 'ROSE-1' }, quantity: 1 }] };
  const agent = (version: string) => `${AGENT}; version="${version}"`;

  it('the 2026-04-08 endpoint serves a platform declaring 2026-04-08 or 2026-01-11 in its version, and refuses any other with 422', async () => {
    const b = await business();
    const newest = await b.call('2026-04-08', 'POST', '/checkout-sessions', create, agent('2026-04-08'));
    expect(newest.status).toBe(201);
    expect(newest.body.ucp.version).toBe('2026-04-08');
    expect(newest.body.ucp.capabilities['dev.ucp.shopping.checkout']).toEqual([{ version: '2026-04-08' }]);
    // a 2026-01-11 platform is a key of supported_versions: answered in 2026-01-11
    const older = await b.call('2026-04-08', 'POST', '/checkout-sessions', create, agent('2026-01-11'));
    expect(older.status).toBe(201);
    expect(older.body.ucp).toEqual({
      version: '2026-01-11',
      capabilities: expect.arrayContaining([{ name: 'dev.ucp.shopping.checkout', version: '2026-01-11' }]),
    });
    expect(older.body.payment.handlers.map((h: { id: string }) => h.id)).toEqual(['cod']);
    for (const version of ['2026-08-25', '2099-01-01', '2026-01-23', '2025-12-01']) {
      const refused = await b.call('2026-04-08', 'POST', '/checkout-sessions', create, agent(version));
      expect(refused.status, version).toBe(422);
      expect(refused.body, version).toEqual({
        code: 'version_unsupported',
        content: `Protocol version ${version} is not supported. This business supports versions 2026-01-11 and 2026-04-08.`,
      });
    }
    // no version declared: the endpoint's
    expect((await b.call('2026-04-08', 'GET', `/checkout-sessions/${newest.body.id}`)).body.ucp.version).toBe('2026-04-08');
  });

  it('the 2026-08-25 endpoint serves a platform declaring 2026-08-25, 2026-04-08 or 2026-01-11 in its version, and refuses any other with 422', async () => {
    const b = await business();
    const newest = await b.call('2026-08-25', 'POST', '/checkout-sessions', create, agent('2026-08-25'));
    expect(newest.status).toBe(201);
    expect(newest.body.ucp.version).toBe('2026-08-25');
    expect(newest.body.buyer.consent).toHaveProperty(['dev.ucp.consent.marketing']);
    // keys of supported_versions: answered in that version
    const middle = await b.call('2026-08-25', 'POST', '/checkout-sessions', create, agent('2026-04-08'));
    expect(middle.status).toBe(201);
    expect(middle.body.ucp.version).toBe('2026-04-08');
    expect(middle.body.ucp.capabilities['dev.ucp.shopping.checkout']).toEqual([{ version: '2026-04-08' }]);
    expect(middle.body).not.toHaveProperty('buyer');
    const oldest = await b.call('2026-08-25', 'POST', '/checkout-sessions', create, agent('2026-01-11'));
    expect(oldest.status).toBe(201);
    expect(oldest.body.ucp.version).toBe('2026-01-11');
    expect(oldest.body.payment.handlers.map((h: { id: string }) => h.id)).toEqual(['cod']);
    for (const version of ['2026-08-26', '2099-01-01', '2026-01-23', '2025-12-01']) {
      const refused = await b.call('2026-08-25', 'POST', '/checkout-sessions', create, agent(version));
      expect(refused.status, version).toBe(422);
      expect(refused.body, version).toEqual({
        code: 'version_unsupported',
        content: `Protocol version ${version} is not supported. This business supports versions 2026-01-11, 2026-04-08 and 2026-08-25.`,
      });
    }
    // no version declared: the endpoint's
    expect((await b.call('2026-08-25', 'GET', `/checkout-sessions/${newest.body.id}`)).body.ucp.version).toBe('2026-08-25');
    // the 2026-04-08 endpoint is 2026-04-08's leaf: a 2026-08-25 platform is sent to the root, not served there
    const there = await b.call('2026-04-08', 'POST', '/checkout-sessions', create, agent('2026-08-25'));
    expect(there.status).toBe(422);
    expect(there.body.code).toBe('version_unsupported');
  });

  it('the 2026-01-11 endpoint keeps 2026-01-11’s rule: not newer than 2026-01-11 is served, newer is 400', async () => {
    const b = await business();
    const ours = await b.call('2026-01-11', 'POST', '/checkout-sessions', create, agent('2026-01-11'));
    expect(ours.status).toBe(201);
    expect(ours.body.ucp.version).toBe('2026-01-11');
    expect((await b.call('2026-01-11', 'POST', '/checkout-sessions', create, agent('2025-12-01'))).status).toBe(201);
    for (const version of ['2026-04-08', '2026-08-25']) {
      const refused = await b.call('2026-01-11', 'POST', '/checkout-sessions', create, agent(version));
      expect(refused.status, version).toBe(400);
      expect(refused.body, version).toMatchObject({
        code: 'version_unsupported',
        detail: `Version ${version} is not supported. This business implements version 2026-01-11.`,
      });
    }
  });

  it('a checkout made in one version reads in the other (one checkout, two shapes)', async () => {
    const b = await business();
    const made = await b.call('2026-01-11', 'POST', '/checkout-sessions', { ...create, discounts: { codes: ['10OFF'] } });
    const asNewer = await b.call('2026-04-08', 'GET', `/checkout-sessions/${made.body.id}`);
    expect(asNewer.body.id).toBe(made.body.id);
    expect(asNewer.body.ucp.version).toBe('2026-04-08');
    expect(asNewer.body.totals.find((t: { type: string }) => t.type === 'discount').amount).toBe(-350);
    expect(made.body.totals.find((t: { type: string }) => t.type === 'discount').amount).toBe(350);
  });
});
