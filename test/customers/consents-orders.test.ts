import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { writePrivacySettings } from '../../src/customers/privacy-settings.queries.js';
import { useTestApp } from '../helpers/app.js';
import { get, orderBody, post, shop, uid } from '../helpers/orders.js';

/**
 * Consent at ordering: POST /orders' marketing_consent and a UCP checkout's buyer consent recorded with the order (once,
 * however often it is retried), and what may be sent in the order events, whose may_send place_order_with_event.sql
 * writes by the rule src/customers/consents.ts maySend holds (the order lookup's, its oracle here).
 */
const ctx = useTestApp({ UCP_TEST_HANDLERS: 'true' });
const products = () => [{ sku: 'TEE', name: 'Cotton Tee', variants: [{ sku: 'TEE-M', selling_price: '10.00', stock: '1000' }] }];
const PHONE = '+91 98765 43210';

const consentRows = async (companyId: string) =>
  ctx.db.query<{ purpose: string; channel: string; state: string; source: string; actor: string | null }>(
    sql`SELECT purpose, channel, state, source, actor FROM customer_consents WHERE company_id = ${companyId} ORDER BY recorded_at, channel`,
  );
const createdEvent = async (companyId: string, orderId: string) =>
  (
    await ctx.db.query<{ data: { customer: Record<string, unknown> } }>(
      sql`SELECT data FROM events WHERE company_id = ${companyId} AND type = 'order.created' AND subject_id = ${orderId}`,
    )
  )[0].data;

describe('POST /orders marketing_consent', () => {
  it('true gives, false withdraws, absent records nothing; order updates record nothing; a replay records nothing again', async () => {
    const s = await shop(ctx, products());
    const body = orderBody({ marketing_consent: { messaging: true, email: false } });
    const placed = await post(ctx, s.headers, body);
    expect(placed.status).toBe(201);
    const expected = [
      { purpose: 'marketing', channel: 'email', state: 'withdrawn', source: 'order', actor: s.keyRecord.prefix },
      { purpose: 'marketing', channel: 'messaging', state: 'given', source: 'order', actor: s.keyRecord.prefix },
    ];
    expect(await consentRows(s.companyId)).toEqual(expected);
    // the order.created event already counts the answer given with it
    expect((await createdEvent(s.companyId, placed.body.data.order_id)).customer.may_send).toEqual({
      order_updates: { messaging: true, email: true },
      marketing: { messaging: true, email: false },
    });
    const replay = await post(ctx, s.headers, body);
    expect(replay.status).toBe(200);
    expect(replay.body.duplicate).toBe(true);
    expect(await consentRows(s.companyId)).toEqual(expected);
    // the same answers with a new order change nothing; no answer records nothing
    expect((await post(ctx, s.headers, orderBody({ marketing_consent: { messaging: true, email: false } }))).status).toBe(201);
    expect((await post(ctx, s.headers, orderBody({ marketing_consent: { messaging: null } }))).status).toBe(201);
    expect((await post(ctx, s.headers, orderBody({ marketing_consent: null }))).status).toBe(201);
    expect((await post(ctx, s.headers, orderBody())).status).toBe(201);
    expect(await consentRows(s.companyId)).toEqual(expected);
    // a later "no" withdraws
    expect((await post(ctx, s.headers, orderBody({ marketing_consent: { messaging: false } }))).status).toBe(201);
    expect((await consentRows(s.companyId)).at(-1)).toMatchObject({ channel: 'messaging', state: 'withdrawn', source: 'order' });
    const customer = (await get(ctx, s.headers, `/customers?phone=${encodeURIComponent(PHONE)}`)).body.data;
    expect(customer.consents).toEqual({
      order_updates: { messaging: 'not_asked', email: 'not_asked' },
      marketing: { messaging: 'withdrawn', email: 'withdrawn' },
    });
  });

  it('refuses an answer that is not true or false, naming the field; nothing placed, nothing recorded', async () => {
    const s = await shop(ctx, products());
    const cases: [unknown, string][] = [
      [{ messaging: 'yes' }, 'marketing_consent.messaging'],
      [{ email: 1 }, 'marketing_consent.email'],
      ['yes', 'marketing_consent'],
      [true, 'marketing_consent'],
    ];
    for (const [answer, path] of cases) {
      const res = await post(ctx, s.headers, orderBody({ marketing_consent: answer }));
      expect(res.status, JSON.stringify(answer)).toBe(400);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    expect(await consentRows(s.companyId)).toEqual([]);
  });

  it("the order.created event's may_send is the order lookup's, whatever the customer's consent", async () => {
    const s = await shop(ctx, products());
    expect((await post(ctx, s.headers, orderBody())).status).toBe(201);
    const set = (purpose: string, channel: string, state: 'given' | 'withdrawn') =>
      ctx.services.customers.setConsent(s.companyId, { phone: PHONE, purpose, channel, state } as never, { source: 'api', actor: null });
    const steps: (() => Promise<unknown>)[] = [
      async () => undefined,
      () => set('marketing', 'email', 'given'),
      () => set('order_updates', 'email', 'withdrawn'),
      () => ctx.services.customers.setMessagingOptOut(s.companyId, PHONE, true),
      () => set('marketing', 'messaging', 'given'),
      () => ctx.services.customers.setMessagingOptOut(s.companyId, PHONE, false),
    ];
    const seen = new Set<string>();
    for (const step of steps) {
      await step();
      const placed = (await post(ctx, s.headers, orderBody())).body.data;
      const event = await createdEvent(s.companyId, placed.order_id);
      const lookup = (await get(ctx, s.headers, `/orders/${placed.order_number}`)).body.data;
      expect(event.customer).toEqual(lookup.customer);
      seen.add(JSON.stringify(lookup.customer.may_send));
    }
    expect(seen.size).toBeGreaterThanOrEqual(4);
  });
});

describe('a UCP checkout', () => {
  const ADDRESS = {
    id: 'home',
    street_address: '12 MG Road',
    address_locality: 'Bengaluru',
    address_region: 'Karnataka',
    postal_code: '560038',
    address_country: 'IN',
  };
  const BUYER = { first_name: 'Asha', last_name: 'Rao', phone_number: PHONE };
  const COD = { payment_data: { id: 'instr_cod', handler_id: 'cod', type: 'cod' } };

  async function business() {
    const s = await shop(ctx, [{ sku: 'ROSE', name: 'Rose', variants: [{ sku: 'ROSE-1', selling_price: '35.00', stock: '50' }] }], {
      company: { slug: `ucp-${uid()}` },
    });
    await ctx.services.ucpSettings.set(s.companyId, { kind: 'cli', name: 'test' }, { enabled: true });
    await ctx.services.shippingRates.create(
      s.companyId,
      { kind: 'cli', name: 'test' },
      { id: 'std', title: 'Standard', level: 'standard', zone_kind: 'everywhere', price: '5.00' },
    );
    const call = async (method: 'POST' | 'PUT' | 'GET', p: string, payload?: unknown, key = uid()) => {
      const res = await ctx.app.inject({
        method,
        url: `/ucp/${s.company.slug}/2026-01-11${p}`,
        headers: {
          'ucp-agent': 'profile="https://agent.example/profile.json"',
          'idempotency-key': key,
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
        ...(payload ? { payload: JSON.stringify(payload) } : {}),
      });
      return { status: res.statusCode, body: res.json() };
    };
    const ready = async (buyer: object) => {
      const created = await call('POST', '/checkout-sessions', {
        line_items: [{ item: { id: 'ROSE-1' }, quantity: 1 }],
        buyer,
        fulfillment: { methods: [{ type: 'shipping', destinations: [ADDRESS], selected_destination_id: 'home', groups: [{ selected_option_id: 'std' }] }] },
      });
      expect(created.status).toBe(201);
      return created.body as { id: string; status: string; links: { type: string; url: string }[]; buyer?: Record<string, unknown> };
    };
    return { ...s, call, ready };
  }

  it("records the buyer's marketing consent on both channels when it completes into an order, once", async () => {
    const b = await business();
    const checkout = await b.ready({ ...BUYER, consent: { marketing: true, analytics: false } });
    expect(checkout.buyer).toMatchObject({ consent: { marketing: true, analytics: false } });
    expect(await consentRows(b.companyId)).toEqual([]);
    const done = await b.call('POST', `/checkout-sessions/${checkout.id}/complete`, COD, 'complete-1');
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.status).toBe('completed');
    const expected = [
      { purpose: 'marketing', channel: 'email', state: 'given', source: 'ucp_checkout', actor: null },
      { purpose: 'marketing', channel: 'messaging', state: 'given', source: 'ucp_checkout', actor: null },
    ];
    expect(await consentRows(b.companyId)).toEqual(expected);
    // a retry (the same idempotency key) answers the same; another key finds it completed: nothing recorded again
    expect((await b.call('POST', `/checkout-sessions/${checkout.id}/complete`, COD, 'complete-1')).body).toEqual(done.body);
    expect((await b.call('POST', `/checkout-sessions/${checkout.id}/complete`, COD)).status).toBeLessThan(500);
    expect(await consentRows(b.companyId)).toEqual(expected);
    const lookup = (await get(ctx, b.headers, `/orders/${checkout.id}`)).body.data;
    expect(lookup.customer.may_send.marketing).toEqual({ messaging: true, email: true });

    // a later checkout whose buyer says no withdraws; one that says nothing records nothing
    const no = await b.ready({ ...BUYER, consent: { marketing: false } });
    expect((await b.call('POST', `/checkout-sessions/${no.id}/complete`, COD)).body.status).toBe('completed');
    const silent = await b.ready(BUYER);
    expect((await b.call('POST', `/checkout-sessions/${silent.id}/complete`, COD)).body.status).toBe('completed');
    const rows = await consentRows(b.companyId);
    expect(rows).toHaveLength(4);
    expect(rows.slice(2).map((r) => r.state)).toEqual(['withdrawn', 'withdrawn']);
  });

  it("links the company's privacy notice as privacy_policy when the UCP business has no privacy_url of its own", async () => {
    const b = await business();
    expect((await b.ready(BUYER)).links).toEqual([]);
    await writePrivacySettings(ctx.db, b.companyId, { notice_url: 'https://shop.example.in/privacy-notice' });
    expect((await b.ready(BUYER)).links).toEqual([{ type: 'privacy_policy', url: 'https://shop.example.in/privacy-notice' }]);
    await ctx.services.ucpSettings.set(b.companyId, { kind: 'cli', name: 'test' }, { privacy_url: 'https://shop.example.in/ucp-privacy' });
    expect((await b.ready(BUYER)).links).toEqual([{ type: 'privacy_policy', url: 'https://shop.example.in/ucp-privacy' }]);
  });
});
