import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { listAudit, type AuditRecord } from '../../src/db/audit-log.js';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { BASE, uid } from '../helpers/orders.js';
import { webhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * Every administrative action writes exactly one audit entry, over each of its doors, naming who acted: the CLI user
 * (ADMIN_USER) or the key's prefix over REST. No entry holds a secret the action made or was given.
 */
const ctx = useTestApp({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_WORKER_ENABLED: 'false' });
const USER = 'asha-admin';
const TEST_ACTOR = { kind: 'cli', name: 'test' } as const;

let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
const saved = process.env.ADMIN_USER;
beforeAll(async () => {
  process.env.ADMIN_USER = USER;
  receiver = await webhookReceiver();
});
afterAll(async () => {
  if (saved === undefined) delete process.env.ADMIN_USER;
  else process.env.ADMIN_USER = saved;
  await receiver?.close();
});

async function admin(...argv: string[]): Promise<{ code: number; json: Fields }> {
  const lines: string[] = [];
  const errors: string[] = [];
  const code = await runAdmin([...argv, '--json'], (t) => lines.push(t), { db: ctx.db, services: ctx.services, caller: { err: (t) => errors.push(t) } });
  if (code !== 0) throw new Error(`${argv.join(' ')}: exit ${code}: ${lines.join('\n')} ${errors.join('')}`);
  return { code, json: lines.length ? JSON.parse(lines.join('\n')) : null };
}

/** A command's JSON answer: the string fields these tests read (ids, prefixes, secrets, URLs). */
type Fields = Record<string, string>;

const trail = (companyId: string): Promise<AuditRecord[]> => listAudit(ctx.db, companyId, { limit: 1000 });

/** Runs `act` and expects exactly one new entry: this action, by this actor; answers the entry. */
async function oneEntry(companyId: string, act: () => Promise<unknown>, action: string, actor: { kind: string; name: string }): Promise<AuditRecord> {
  const before = (await trail(companyId)).length;
  await act();
  const after = await trail(companyId);
  const fresh = after.slice(0, after.length - before);
  expect(
    fresh.map((e) => [e.action, e.actor_kind, e.actor]),
    action,
  ).toEqual([[action, actor.kind, actor.name]]);
  return fresh[0];
}

/** The whole of the company's audit rows as text. */
async function trailText(companyId: string): Promise<string> {
  const [row] = await ctx.db.query<{ text: string }>(
    sql`SELECT coalesce(string_agg(a::text, ' '), '') AS text FROM audit_log a WHERE a.company_id = ${companyId}`,
  );
  return row.text;
}

describe('over REST, the key prefix is the actor', () => {
  it('webhook add and remove, COD settings, UCP settings, host add and remove: one entry each, no secret, no full URL', async () => {
    const co = await createCompanyWithKey(ctx.services);
    const id = co.company.id;
    const { key, record } = await ctx.services.keys.create(id, TEST_ACTOR, 'admin', ['webhooks', 'ucp', 'cod']);
    const headers = { 'x-api-key': key };
    const actor = { kind: 'key', name: record.prefix };
    const send = async (method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => {
      const withBody = body === undefined ? {} : { payload: JSON.stringify(body), headers: { ...headers, 'content-type': 'application/json' } };
      const res = await ctx.app.inject({ method, url: `${BASE}${url}`, headers, ...withBody });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
      return res.json<{ data: Fields }>();
    };
    const token = `tok${uid()}${uid()}`;
    let created = { data: {} as Fields };
    const added = await oneEntry(
      id,
      async () => (created = await send('POST', '/webhooks', { url: `${receiver.url}?token=${token}`, events: ['order.created'] })),
      'webhook.added',
      actor,
    );
    expect(added).toMatchObject({
      subject_kind: 'webhook_endpoint',
      subject_id: created.data.id,
      detail: { host: new URL(receiver.url).host, events: ['order.created'] },
    });
    await oneEntry(id, () => send('DELETE', `/webhooks/${created.data.id}`), 'webhook.removed', actor);
    const cod = await oneEntry(
      id,
      () => send('PUT', '/cod/settings', { max_order_value: '4999', blocked_pincodes: ['560038', '110001-110099'] }),
      'cod.settings_set',
      actor,
    );
    expect(cod.detail).toEqual({ fields: ['blocked_pincodes', 'max_order_value'], max_order_value: '4999.00', blocked_pincodes: 2 });
    const ucp = await oneEntry(id, () => send('PUT', '/ucp/settings', { enabled: true, hold_minutes: 30 }), 'ucp.settings_set', actor);
    expect(ucp.detail).toEqual({ fields: ['enabled', 'hold_minutes'], enabled: true, hold_minutes: 30 });
    const host = `shop-${co.company.slug}.example.in`;
    expect(await oneEntry(id, () => send('POST', '/ucp/hosts', { host }), 'ucp.host_added', actor)).toMatchObject({
      subject_kind: 'ucp_host',
      subject_id: host,
    });
    await oneEntry(id, () => send('DELETE', `/ucp/hosts/${host}`), 'ucp.host_removed', actor);

    const text = await trailText(id);
    for (const secret of [key, created.data.secret, token]) expect(text).not.toContain(secret);
  });

  it('a refused change writes nothing', async () => {
    const co = await createCompanyWithKey(ctx.services);
    const { key } = await ctx.services.keys.create(co.company.id, TEST_ACTOR, 'admin', ['cod']);
    const before = (await trail(co.company.id)).length;
    const res = await ctx.app.inject({
      method: 'PUT',
      url: `${BASE}/cod/settings`,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ rto_threshold: -1 }),
    });
    expect(res.statusCode).toBe(400);
    expect((await trail(co.company.id)).length).toBe(before);
  });
});

describe('over the CLI, the admin user is the actor', () => {
  it('every administrative command writes one entry naming ADMIN_USER, and no secret it made or was given', async () => {
    const cli = { kind: 'cli', name: USER };
    const slug = `audit-${uid()}`;
    const company = (await admin('company', 'create', '--name', 'Audit Traders', '--slug', slug)).json;
    const id: string = company.id;
    expect((await trail(id)).map((e) => [e.action, e.actor_kind, e.actor, e.detail])).toEqual([
      ['company.created', 'cli', USER, { slug, status: 'active', plan: 'commerce', auto_courier_booking: false }],
    ]);
    const co = ['--company', slug];
    const secrets: string[] = [];

    let made: Fields = {};
    const key = await oneEntry(
      id,
      async () => (made = (await admin('key', 'create', ...co, '--name', 'sync', '--permission', 'audit')).json),
      'key.created',
      cli,
    );
    secrets.push(made.key);
    expect(key).toMatchObject({ subject_kind: 'key', subject_id: made.id, detail: { prefix: made.prefix, name: 'sync', permissions: ['commerce', 'audit'] } });
    expect(await oneEntry(id, () => admin('key', 'revoke', ...co, made.prefix), 'key.revoked', cli)).toMatchObject({ detail: { prefix: made.prefix } });

    const updated = await oneEntry(id, () => admin('company', 'update', slug, '--auto-booking', 'true', '--name', 'Audit Traders LLP'), 'company.updated', cli);
    expect(updated.detail).toEqual({ fields: ['name', 'auto_courier_booking'], auto_courier_booking: true });
    const tax = ['--legal-name', 'Chai Point LLP', '--address1', '1 Anna Salai', '--city', 'Chennai', '--state', 'tamilnadu', '--pincode', '600002'];
    const taxEntry = await oneEntry(id, () => admin('company', 'tax-profile', slug, ...tax), 'tax_profile.set', cli);
    expect(taxEntry.detail).toEqual({ fields: ['legal_name', 'address_line1', 'city', 'state', 'pincode'] });

    let hook: Fields = {};
    await oneEntry(id, async () => (hook = (await admin('webhook', 'add', ...co, '--url', receiver.url, '--events', 'all')).json), 'webhook.added', cli);
    secrets.push(hook.secret);
    const rotated = await oneEntry(id, async () => secrets.push((await admin('webhook', 'rotate', ...co, hook.id)).json.secret), 'webhook.secret_rotated', cli);
    expect(rotated.subject_id).toBe(hook.id);
    await oneEntry(id, () => admin('webhook', 'enable', ...co, hook.id), 'webhook.enabled', cli);
    const tested = await oneEntry(id, () => admin('webhook', 'test', ...co, hook.id), 'webhook.tested', cli);
    expect(tested.detail).toMatchObject({ host: new URL(receiver.url).host, status: 200, event_id: expect.stringMatching(/^evt_/) });
    expect((await oneEntry(id, () => admin('webhook', 'resend', ...co, '--all-failed'), 'webhook.resent', cli)).detail).toEqual({
      all_failed: true,
      resent: 0,
    });
    await oneEntry(id, () => admin('webhook', 'remove', ...co, hook.id), 'webhook.removed', cli);

    const cod = await oneEntry(id, () => admin('cod', 'set', ...co, '--confirm-before-booking', 'on', '--rto-threshold', '2'), 'cod.settings_set', cli);
    expect(cod.detail).toEqual({ fields: ['confirm_before_booking', 'rto_threshold'], confirm_before_booking: true, rto_threshold: 2 });
    await oneEntry(id, () => admin('ucp', 'enable', ...co), 'ucp.settings_set', cli);
    await oneEntry(id, () => admin('ucp', 'set', ...co, '--hold-minutes', '20'), 'ucp.settings_set', cli);
    await oneEntry(id, () => admin('ucp', 'host', 'add', ...co, `${slug}.example.in`), 'ucp.host_added', cli);
    await oneEntry(id, () => admin('ucp', 'host', 'remove', ...co, `${slug}.example.in`), 'ucp.host_removed', cli);

    const whatsapp = await oneEntry(
      id,
      () => admin('whatsapp', 'set', ...co, '--catalog-id', '345678', '--upi-vpa', 'shop@okhdfcbank'),
      'whatsapp.settings_set',
      cli,
    );
    expect(whatsapp.detail).toEqual({ fields: ['catalog_id', 'upi_vpa'] });

    const keySecret = `rzpsecret${uid()}${uid()}`;
    const hookSecret = `rzphook${uid()}${uid()}`;
    secrets.push(keySecret, hookSecret);
    const payments = await oneEntry(
      id,
      () => admin('payments', 'configure', 'razorpay', ...co, '--key-id', 'rzp_test_AuditKey0001', '--key-secret', keySecret, '--webhook-secret', hookSecret),
      'payments.configured',
      cli,
    );
    expect(payments.detail).toEqual({ provider: 'razorpay', mode: 'test', fields: ['key_id', 'key_secret', 'webhook_secret'] });

    const courierToken = `dlv${uid()}${uid()}`;
    secrets.push(courierToken);
    let courier: Fields = {};
    const courierEntry = await oneEntry(
      id,
      async () =>
        (courier = (await admin('courier', 'configure', ...co, '--adapter', 'delhivery', '--token', courierToken, '--pickup-location', 'WH-BLR')).json),
      'courier.configured',
      cli,
    );
    secrets.push(courier.callback_secret);
    expect(courierEntry.detail).toEqual({ adapter: 'delhivery', fields: ['token', 'pickup_location'], callback_secret_made: true });

    const rate = ['std', '--title', 'Standard', '--level', 'standard', '--zone-kind', 'everywhere', '--price', '49'];
    expect(await oneEntry(id, () => admin('shipping-rate', 'add', ...co, ...rate), 'shipping_rate.added', cli)).toMatchObject({ subject_id: 'std' });
    expect((await oneEntry(id, () => admin('shipping-rate', 'update', ...co, 'std', '--price', '59'), 'shipping_rate.updated', cli)).detail).toEqual({
      fields: ['price'],
    });
    await oneEntry(id, () => admin('shipping-rate', 'remove', ...co, 'std'), 'shipping_rate.removed', cli);
    const code = ['WELCOME20', '--title', '20% Off', '--kind', 'percentage', '--value', '20'];
    expect(await oneEntry(id, () => admin('discount', 'add', ...co, ...code), 'discount.added', cli)).toMatchObject({ subject_id: 'WELCOME20' });
    await oneEntry(id, () => admin('discount', 'update', ...co, 'WELCOME20', '--value', '25'), 'discount.updated', cli);
    await oneEntry(id, () => admin('discount', 'disable', ...co, 'WELCOME20'), 'discount.disabled', cli);

    for (const [args, action] of [
      [['--template', 'https://shop.example.in/p/{sku}'], 'catalogue.feed_enabled'],
      [['--rotate'], 'catalogue.feed_rotated'],
    ] as const) {
      let feed: Fields = {};
      const entry = await oneEntry(id, async () => (feed = (await admin('catalog', 'feed', ...co, ...args)).json), action, cli);
      expect(entry).toMatchObject({ subject_kind: 'catalogue_feed', subject_id: 'meta' });
      secrets.push(String(feed.url).split('/').pop()!.replace('.csv', ''));
    }

    const dir = mkdtempSync(join(tmpdir(), 'audit-import-'));
    const file = join(dir, 'catalogue.json');
    writeFileSync(
      file,
      JSON.stringify({
        format: 'commerce-catalogue/1',
        locations: [{ code: 'WH', name: 'Warehouse', kind: 'warehouse', active: true, ships_orders: true }],
        products: [
          {
            sku: 'AUD-1',
            name: 'Audit Mug',
            unit: 'PCS',
            hsn_code: '6912',
            tax_rate: '12',
            variants: [{ sku: 'AUD-1-R', selling_price: '299.00', stock: { WH: '5' } }],
          },
        ],
      }),
    );
    const imported = await oneEntry(id, () => admin('catalog', 'import', ...co, file), 'catalogue.imported', cli);
    expect(imported.detail).toMatchObject({ format: 'json', products: 1, variants: 1, locations: 1, tax_profile: false });

    const text = await trailText(id);
    expect(secrets.length).toBe(9);
    for (const secret of secrets) expect(secret.length).toBeGreaterThan(8);
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
