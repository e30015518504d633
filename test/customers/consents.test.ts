import { acrossCompanies } from '../helpers/across-companies.js';
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { writePrivacySettings } from '../../src/customers/privacy-settings.queries.js';
import { maySend, consentStates } from '../../src/customers/consents.js';
import { useTestApp } from '../helpers/app.js';
import { BASE, get, orderBody, post, shop } from '../helpers/orders.js';

/** Consent records per customer: the doors that give and withdraw, the opt-out derived from them, what may be sent. */
const ctx = useTestApp();
beforeAll(() => {
  if (ctx.testDb.url) process.env.DATABASE_URL = ctx.testDb.url;
});
const products = () => [{ sku: 'TEE', name: 'Cotton Tee', variants: [{ sku: 'TEE-M', selling_price: '10.00', stock: '1000' }] }];
const PHONE = '+91 98765 43210';

async function customerShop() {
  const s = await shop(ctx, products());
  expect((await post(ctx, s.headers, orderBody())).status).toBe(201);
  const consent = async (body: unknown, headers = s.headers) => {
    const res = await ctx.app.inject({ method: 'POST', url: `${BASE}/customers/consents`, headers, payload: body as object });
    return { status: res.statusCode, body: res.json() };
  };
  const optOut = async (messaging_opted_out: boolean) => {
    const res = await ctx.app.inject({
      method: 'PUT',
      url: `${BASE}/customers/messaging-opt-out`,
      headers: s.headers,
      payload: { phone: PHONE, messaging_opted_out },
    });
    return { status: res.statusCode, body: res.json() };
  };
  const rows = async () =>
    ctx.db.query<{ purpose: string; channel: string; state: string; source: string; actor: string | null }>(
      sql`SELECT purpose, channel, state, source, actor FROM customer_consents WHERE company_id = ${s.companyId} ORDER BY recorded_at, purpose DESC, channel DESC, id`,
    );
  const events = async (type: string) =>
    ctx.db.query<{ data: Record<string, unknown> }>(sql`SELECT data FROM events WHERE company_id = ${s.companyId} AND type = ${type} ORDER BY seq`);
  const column = async () =>
    (await ctx.db.query<{ messaging_opted_out: boolean }>(sql`SELECT messaging_opted_out FROM customers WHERE company_id = ${s.companyId}`))[0]
      .messaging_opted_out;
  return { ...s, consent, optOut, rows, events, column };
}

const NOT_ASKED = { order_updates: { messaging: 'not_asked', email: 'not_asked' }, marketing: { messaging: 'not_asked', email: 'not_asked' } };

describe('POST /customers/consents', () => {
  it('gives and withdraws with the same call; records source api and the key prefix; the same state again records nothing', async () => {
    const s = await customerShop();
    const given = await s.consent({ phone: PHONE, purpose: 'marketing', channel: 'messaging', state: 'given' });
    expect(given.status).toBe(200);
    expect(given.body.changed).toBe(true);
    expect(given.body.data).toMatchObject({
      phone: '+919876543210',
      consents: { ...NOT_ASKED, marketing: { messaging: 'given', email: 'not_asked' } },
      may_send: { order_updates: { messaging: true, email: true }, marketing: { messaging: true, email: false } },
      messaging_opted_out: false,
    });
    const again = await s.consent({ phone: '9876543210', purpose: 'marketing', channel: 'messaging', state: 'given' });
    expect(again.body.changed).toBe(false);
    expect(again.body.data).toEqual(given.body.data);
    const withdrawn = await s.consent({ phone: PHONE, purpose: 'marketing', channel: 'messaging', state: 'withdrawn' });
    expect(withdrawn.body.changed).toBe(true);
    expect(withdrawn.body.data.may_send.marketing.messaging).toBe(false);
    expect(withdrawn.body.data.consents.marketing.messaging).toBe('withdrawn');
    expect(await s.rows()).toEqual([
      { purpose: 'marketing', channel: 'messaging', state: 'given', source: 'api', actor: s.keyRecord.prefix },
      { purpose: 'marketing', channel: 'messaging', state: 'withdrawn', source: 'api', actor: s.keyRecord.prefix },
    ]);
    // one event per change, the customer as GET /customers shows it then
    const changes = await s.events('customer.consent_changed');
    expect(changes.map((e) => e.data)).toEqual([given.body.data, withdrawn.body.data]);
    expect((await get(ctx, s.headers, `/customers?phone=${encodeURIComponent(PHONE)}`)).body.data).toEqual(withdrawn.body.data);
  });

  it('withdrawing order updates on messaging opts the customer out (and giving them back opts in), in the same transaction', async () => {
    const s = await customerShop();
    const out = await s.consent({ phone: PHONE, purpose: 'order_updates', channel: 'messaging', state: 'withdrawn' });
    expect(out.body.data).toMatchObject({ messaging_opted_out: true, may_send: { order_updates: { messaging: false, email: true } } });
    expect(await s.column()).toBe(true);
    // e-mail is another channel: the opt-out stays as it is
    await s.consent({ phone: PHONE, purpose: 'order_updates', channel: 'email', state: 'withdrawn' });
    expect(await s.column()).toBe(true);
    const back = await s.consent({ phone: PHONE, purpose: 'order_updates', channel: 'messaging', state: 'given' });
    expect(back.body.data).toMatchObject({ messaging_opted_out: false, may_send: { order_updates: { messaging: true, email: false } } });
    expect(await s.column()).toBe(false);
  });

  it('refuses what is not a purpose, channel or state with 400 naming the field; an unknown phone is 404; nothing recorded', async () => {
    const s = await customerShop();
    const good = { phone: PHONE, purpose: 'marketing', channel: 'email', state: 'given' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, purpose: 'newsletters' }, 'purpose'],
      [{ ...good, purpose: 'Marketing' }, 'purpose'],
      [{ ...good, channel: 'sms' }, 'channel'],
      [{ ...good, state: 'yes' }, 'state'],
      [{ ...good, state: true }, 'state'],
      [{ ...good, state: undefined }, 'state'],
      [{ ...good, phone: 'abc' }, 'phone'],
      [{ ...good, phone: undefined }, 'phone'],
    ];
    for (const [body, path] of cases) {
      const res = await s.consent(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    const unknown = await s.consent({ ...good, phone: '+91 91234 56789' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    expect(await s.rows()).toEqual([]);
    expect(await s.events('customer.consent_changed')).toEqual([]);
  });

  it("another company's key can neither read nor change this customer's consent", async () => {
    const a = await customerShop();
    const b = await shop(ctx, products());
    const res = await a.consent({ phone: PHONE, purpose: 'marketing', channel: 'messaging', state: 'given' }, b.headers);
    expect(res.status).toBe(404);
    expect((await get(ctx, b.headers, `/customers?phone=${encodeURIComponent(PHONE)}`)).status).toBe(404);
    expect(await a.rows()).toEqual([]);
    // B's own customer with the same phone is B's alone
    expect((await post(ctx, b.headers, orderBody())).status).toBe(201);
    expect((await a.consent({ phone: PHONE, purpose: 'marketing', channel: 'messaging', state: 'given' }, b.headers)).body.changed).toBe(true);
    expect(await a.rows()).toEqual([]);
    expect((await get(ctx, a.headers, `/customers?phone=${encodeURIComponent(PHONE)}`)).body.data.may_send.marketing.messaging).toBe(false);
  });
});

describe('PUT /customers/messaging-opt-out records consent', () => {
  it('true withdraws order updates and marketing on messaging; false gives order updates back, never marketing; repeats record nothing', async () => {
    const s = await customerShop();
    await s.consent({ phone: PHONE, purpose: 'marketing', channel: 'messaging', state: 'given' });
    const out = await s.optOut(true);
    expect(out.body).toMatchObject({ changed: true, data: { messaging_opted_out: true } });
    expect(out.body.data.may_send.order_updates.messaging).toBe(false);
    expect(out.body.data.may_send.marketing.messaging).toBe(false);
    expect((await s.optOut(true)).body.changed).toBe(false);
    const back = await s.optOut(false);
    expect(back.body).toMatchObject({ changed: true, data: { messaging_opted_out: false } });
    expect(back.body.data.consents).toMatchObject({ order_updates: { messaging: 'given' }, marketing: { messaging: 'withdrawn' } });
    expect(back.body.data.may_send.marketing.messaging).toBe(false);
    expect((await s.optOut(false)).body.changed).toBe(false);
    expect((await s.rows()).filter((r) => r.source === 'opt_out')).toEqual([
      { purpose: 'order_updates', channel: 'messaging', state: 'withdrawn', source: 'opt_out', actor: s.keyRecord.prefix },
      { purpose: 'marketing', channel: 'messaging', state: 'withdrawn', source: 'opt_out', actor: s.keyRecord.prefix },
      { purpose: 'order_updates', channel: 'messaging', state: 'given', source: 'opt_out', actor: s.keyRecord.prefix },
    ]);
    expect((await s.events('customer.messaging_opt_out_changed')).map((e) => e.data)).toEqual([out.body.data, back.body.data]);
  });
});

describe('migration 0033', () => {
  it('gives a customer opted out before consent records the withdrawal it meant, once', async () => {
    const s = await customerShop();
    await ctx.db.query(sql`UPDATE customers SET messaging_opted_out = true WHERE company_id = ${s.companyId}`);
    const backfill = readFileSync(new URL('../../migrations/0033_consent_backfill.sql', import.meta.url), 'utf8').replace(/^SET LOCAL .*$/m, '');
    // as migrate() runs it: over every company at once (on Citus, the suite's multi-shard guard off for it)
    await acrossCompanies(ctx.db, sql.raw(backfill));
    await acrossCompanies(ctx.db, sql.raw(backfill));
    expect(await s.rows()).toEqual([{ purpose: 'order_updates', channel: 'messaging', state: 'withdrawn', source: 'opt_out', actor: null }]);
    // resuming is then an ordinary change
    expect((await s.optOut(false)).body).toMatchObject({ changed: true, data: { messaging_opted_out: false } });
  });
});

describe('what the flow may send', () => {
  it('order updates unless withdrawn, marketing only when given, nothing for an erased customer', () => {
    const states = consentStates([
      { purpose: 'order_updates', channel: 'email', state: 'withdrawn' },
      { purpose: 'marketing', channel: 'messaging', state: 'given' },
      { purpose: 'marketing', channel: 'email', state: 'withdrawn' },
    ]);
    expect(maySend(states, { erased: false, messagingOptedOut: false })).toEqual({
      order_updates: { messaging: true, email: false },
      marketing: { messaging: true, email: false },
    });
    expect(maySend(consentStates([]), { erased: false, messagingOptedOut: false })).toEqual({
      order_updates: { messaging: true, email: true },
      marketing: { messaging: false, email: false },
    });
    expect(maySend(states, { erased: true, messagingOptedOut: false })).toEqual({
      order_updates: { messaging: false, email: false },
      marketing: { messaging: false, email: false },
    });
    expect(maySend(consentStates([]), { erased: false, messagingOptedOut: true }).order_updates).toEqual({ messaging: false, email: true });
  });

  it('the lookup carries the privacy notice the admin set, null while none', async () => {
    const s = await customerShop();
    const lookup = async () => (await get(ctx, s.headers, `/customers?phone=${encodeURIComponent(PHONE)}`)).body.data;
    expect((await lookup()).privacy_notice_url).toBeNull();
    await writePrivacySettings(ctx.db, s.companyId, { notice_url: 'https://shop.example.in/privacy' });
    expect((await lookup()).privacy_notice_url).toBe('https://shop.example.in/privacy');
  });

  it('an erased customer (still found here by an order of theirs) may be sent nothing', async () => {
    const s = await customerShop();
    const placed = (await post(ctx, s.headers, orderBody())).body.data;
    await ctx.db.query(sql`UPDATE customers SET erased_at = now() WHERE company_id = ${s.companyId}`);
    const order = (await get(ctx, s.headers, `/orders/${placed.order_number}`)).body.data;
    expect(order.customer.may_send).toEqual({ order_updates: { messaging: false, email: false }, marketing: { messaging: false, email: false } });
  });
});

describe('admin CLI: consent show|set', () => {
  async function admin(...argv: string[]) {
    const lines: string[] = [];
    const code = await runAdmin([...argv, '--json'], (t) => lines.push(t), { db: ctx.testDb.db });
    return { code, out: lines.join('\n') };
  }

  it('set records source cli with the CLI user; show answers the state and the history; withdraw is the same command', async () => {
    const s = await customerShop();
    const slug = s.company.slug;
    const set = await admin('consent', 'set', '--company', slug, '--phone', PHONE, '--purpose', 'marketing', '--channel', 'email', '--state', 'given');
    expect(set.code).toBe(0);
    expect(JSON.parse(set.out)).toMatchObject({ changed: true, consents: { marketing: { email: 'given' } }, may_send: { marketing: { email: true } } });
    const again = await admin('consent', 'set', '--company', slug, '--phone', PHONE, '--purpose', 'marketing', '--channel', 'email', '--state', 'given');
    expect(JSON.parse(again.out).changed).toBe(false);
    await admin('consent', 'set', '--company', slug, '--phone', PHONE, '--purpose', 'marketing', '--channel', 'email', '--state', 'withdrawn');
    const shown = await admin('consent', 'show', '--company', slug, '--phone', '9876543210');
    expect(shown.code).toBe(0);
    const view = JSON.parse(shown.out);
    expect(view.consents).toEqual({ ...NOT_ASKED, marketing: { messaging: 'not_asked', email: 'withdrawn' } });
    expect(view.history.map((h: { state: string; source: string }) => [h.state, h.source])).toEqual([
      ['withdrawn', 'cli'],
      ['given', 'cli'],
    ]);
    const rows = await s.rows();
    expect(rows.every((r) => r.actor && r.actor.length > 0 && r.source === 'cli')).toBe(true);
    // `customer opt-out` is the opt-out door: source opt_out, the CLI user as actor
    expect((await admin('customer', 'opt-out', '--company', slug, '--phone', PHONE)).code).toBe(0);
    expect((await s.rows()).at(-1)).toMatchObject({ source: 'opt_out', actor: rows[0].actor });
  });

  it('a wrong or missing flag is a usage error; an unknown phone is not found', async () => {
    const s = await customerShop();
    const slug = s.company.slug;
    const base = ['consent', 'set', '--company', slug, '--phone', PHONE];
    expect((await admin(...base, '--purpose', 'spam', '--channel', 'email', '--state', 'given')).code).toBe(2);
    expect((await admin(...base, '--purpose', 'marketing', '--channel', 'fax', '--state', 'given')).code).toBe(2);
    expect((await admin(...base, '--purpose', 'marketing', '--channel', 'email', '--state', 'maybe')).code).toBe(2);
    expect((await admin(...base, '--purpose', 'marketing', '--channel', 'email')).code).toBe(2);
    expect((await admin('consent', 'show', '--company', slug)).code).toBe(2);
    expect((await admin('consent', 'show', '--company', slug, '--phone', '+91 91234 56789')).code).not.toBe(0);
    expect(await s.rows()).toEqual([]);
  });
});
