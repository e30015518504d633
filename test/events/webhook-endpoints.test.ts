import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, useTestApp, type TestApp } from '../helpers/app.js';
import { EVENT_TYPES } from '../../src/contract/webhooks.js';
import { BASE, get, orderBody, post, teeShop } from '../helpers/fulfilment.js';

/** The webhook REST doors: endpoints (the `webhooks` permission), destination checks, the limit, opt-out. */
const ctx = useTestApp({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_WORKER_ENABLED: 'false' });

/** The same database behind an app with the production destination rules (https only, no private addresses). */
let strict: TestApp;
/** …and one that allows http (development) but still refuses private addresses. */
let httpOnly: TestApp;
beforeAll(async () => {
  strict = await buildTestApp(ctx.db);
  httpOnly = await buildTestApp(ctx.db, { WEBHOOK_ALLOW_HTTP: 'true' });
});
afterAll(async () => {
  await strict?.app.close();
  await httpOnly?.app.close();
});

async function hookShop(app: TestApp = ctx) {
  const s = await teeShop(app);
  const { key } = await app.services.keys.create(s.companyId, { kind: 'cli', name: 'test' }, 'hooks', ['webhooks']);
  return { ...s, hookHeaders: { 'x-api-key': key } };
}

const call = async (app: TestApp, method: 'GET' | 'POST' | 'DELETE', path: string, headers: Record<string, string>, payload?: object) => {
  const res = await app.app.inject({ method, url: `${BASE}${path}`, headers, payload });
  return { status: res.statusCode, body: res.json() };
};
const add = (app: TestApp, headers: Record<string, string>, body: object) => call(app, 'POST', '/webhooks', headers, body);
const hook = (url: string, events = ['order.created']) => ({ url, events });

describe('webhook endpoints over REST', () => {
  it('refuses every webhook route to a key without the webhooks permission (403), and the same key keeps its commerce access', async () => {
    const s = await hookShop();
    for (const [method, path, body] of [
      ['POST', '/webhooks', hook('https://hooks.example.com/a')],
      ['GET', '/webhooks', undefined],
      ['DELETE', '/webhooks/whe_x', undefined],
    ] as const) {
      const res = await call(ctx, method, path, s.headers, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect(res.body.error.message).toContain('webhooks');
    }
    expect((await get(ctx, s.headers, '/catalog/products')).status).toBe(200);
    expect((await get(ctx, s.hookHeaders, '/catalog/products')).status).toBe(200);
    const [{ permissions }] = await ctx.db.query<{ permissions: string[] }>(
      sql`SELECT permissions FROM api_keys WHERE company_id = ${s.companyId} AND name = 'test'`,
    );
    expect(permissions).toEqual(['commerce']);
  });

  it('adds an endpoint, shows its secret once, lists it without the secret and stores the secret sealed', async () => {
    const s = await hookShop();
    const created = await add(ctx, s.hookHeaders, {
      url: 'https://hooks.example.com/orders',
      events: ['order.created', 'shipment.updated'],
      description: 'chat',
    });
    expect(created.status).toBe(201);
    const { secret, ...endpoint } = created.body.data;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^whe_/),
      url: 'https://hooks.example.com/orders',
      description: 'chat',
      events: ['order.created', 'shipment.updated'],
      status: 'active',
      disabled_reason: null,
      failing_since: null,
      created_at: expect.any(String),
    });
    const listed = await call(ctx, 'GET', '/webhooks', s.hookHeaders);
    expect(listed.body).toEqual({ data: [endpoint] });
    const [row] = await ctx.db.query<{ secret_enc: string }>(sql`SELECT secret_enc FROM webhook_endpoints WHERE company_id = ${s.companyId}`);
    expect(row.secret_enc).not.toContain(secret.slice(6));
    expect(ctx.rawLogs()).not.toContain(secret);

    const removed = await call(ctx, 'DELETE', `/webhooks/${endpoint.id}`, s.hookHeaders);
    expect(removed).toEqual({ status: 200, body: { data: { id: endpoint.id, removed: true } } });
    expect((await call(ctx, 'GET', '/webhooks', s.hookHeaders)).body).toEqual({ data: [] });
    expect((await call(ctx, 'DELETE', `/webhooks/${endpoint.id}`, s.hookHeaders)).status).toBe(404);
  });

  it('answers bad bodies with validation_failed naming the field, and writes nothing', async () => {
    const s = await hookShop();
    const cases: [object, string][] = [
      [{ events: ['order.created'] }, 'url'],
      [{ url: 'https://hooks.example.com/a' }, 'events'],
      [{ url: 'https://hooks.example.com/a', events: [] }, 'events'],
      [{ url: 'https://hooks.example.com/a', events: ['order.deleted'] }, 'events[0]'],
      [{ url: 'not a url', events: ['order.created'] }, 'url'],
      [{ url: 'ftp://hooks.example.com/a', events: ['order.created'] }, 'url'],
      [{ url: 'https://user:pw@hooks.example.com/a', events: ['order.created'] }, 'url'],
      [{ url: `https://hooks.example.com/${'a'.repeat(2048)}`, events: ['order.created'] }, 'url'],
      [{ url: 'https://hooks.example.com/a', events: ['order.created'], description: 'x'.repeat(201) }, 'description'],
    ];
    for (const [body, path] of cases) {
      const res = await add(ctx, s.hookHeaders, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    const [{ n }] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM webhook_endpoints WHERE company_id = ${s.companyId}`);
    expect(n).toBe(0);
  });

  it('refuses http:// unless the development setting allows it, naming that setting', async () => {
    const s = await hookShop(strict);
    const res = await add(strict, s.hookHeaders, hook('http://hooks.example.com/a'));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual([{ path: 'url', message: expect.stringMatching(/^must be an https:\/\/ URL; .*WEBHOOK_ALLOW_HTTP=true/) }]);
    expect(res.body.error.message).toContain('WEBHOOK_ALLOW_HTTP');
    // ftp:// is no development shortcut: no setting accepts it, so none is named
    const ftp = await add(strict, s.hookHeaders, hook('ftp://hooks.example.com/a'));
    expect(ftp.body.error.details).toEqual([{ path: 'url', message: 'must be an https:// URL' }]);
  });

  it('accepts events ["all"] as every event type, as the CLI’s --events all does', async () => {
    const s = await hookShop();
    const all = await add(ctx, s.hookHeaders, hook('https://hooks.example.com/all', ['all']));
    expect(all.status).toBe(201);
    expect(all.body.data.events).toEqual([...EVENT_TYPES]);
    const mixed = await add(ctx, s.hookHeaders, hook('https://hooks.example.com/mixed', ['order.created', 'all']));
    expect(mixed.body.data.events).toEqual([...EVENT_TYPES]);
    const bad = await add(ctx, s.hookHeaders, hook('https://hooks.example.com/bad', ['everything']));
    expect(bad.body.error.details).toEqual([{ path: 'events[0]', message: expect.stringContaining('or all') }]);
  });

  it('refuses loopback, private, link-local and metadata destinations, also behind a host name (after DNS resolution)', async () => {
    const s = await hookShop(httpOnly);
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://10.1.2.3/hook',
      'http://192.168.1.10/hook',
      'http://172.16.0.5/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://[fd00:ec2::254]/hook',
      'http://0.0.0.0/hook',
      // IPv4-compatible, NAT64 (local-use, and the well-known prefix around a private address), 6to4, Teredo, 6to4 relay
      'http://[::127.0.0.1]/hook',
      'http://[64:ff9b:1::a00:1]/hook',
      'http://[64:ff9b::10.0.0.1]/hook',
      'http://[2002:a00:1::1]/hook',
      'http://[2001::1]/hook',
      'http://192.88.99.1/hook',
    ]) {
      const res = await add(httpOnly, s.hookHeaders, hook(url));
      expect(res.status, url).toBe(400);
      expect(res.body.error.details, url).toEqual([
        {
          path: 'url',
          message: expect.stringMatching(/^must not point at a loopback, private, link-local or metadata address; .*WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true/),
        },
      ]);
    }
    const [{ n }] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM webhook_endpoints WHERE company_id = ${s.companyId}`);
    expect(n).toBe(0);
  });

  it('allows 10 endpoints per company and refuses the 11th with 422 until one is removed', async () => {
    const s = await hookShop();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await add(ctx, s.hookHeaders, hook(`https://hooks.example.com/${i}`));
      expect(res.status, `endpoint ${i + 1}`).toBe(201);
      ids.push(res.body.data.id);
    }
    const eleventh = await add(ctx, s.hookHeaders, hook('https://hooks.example.com/10'));
    expect(eleventh.status).toBe(422);
    expect(eleventh.body.error.code).toBe('unprocessable');
    expect((await call(ctx, 'DELETE', `/webhooks/${ids[0]}`, s.hookHeaders)).status).toBe(200);
    expect((await add(ctx, s.hookHeaders, hook('https://hooks.example.com/10'))).status).toBe(201);
    expect((await call(ctx, 'GET', '/webhooks', s.hookHeaders)).body.data).toHaveLength(10);
  });

  it('never shows or removes another company’s endpoints, nor lists its deliveries', async () => {
    const a = await hookShop();
    const b = await hookShop();
    const created = await add(ctx, a.hookHeaders, hook('https://hooks.example.com/a'));
    const id = created.body.data.id as string;
    expect((await call(ctx, 'GET', '/webhooks', b.hookHeaders)).body).toEqual({ data: [] });
    expect((await call(ctx, 'DELETE', `/webhooks/${id}`, b.hookHeaders)).status).toBe(404);
    expect((await post(ctx, a.headers, orderBody())).status).toBe(201);
    expect(await ctx.services.webhooks.deliveries(a.companyId)).toHaveLength(1);
    expect(await ctx.services.webhooks.deliveries(b.companyId)).toEqual([]);
    expect((await ctx.services.webhooks.resend(b.companyId, { kind: 'cli', name: 'test' }, null)).resent).toBe(0);
    await expect(ctx.services.webhooks.rotate(b.companyId, { kind: 'cli', name: 'test' }, id)).rejects.toMatchObject({ kind: 'not_found' });
    expect((await call(ctx, 'GET', '/webhooks', a.hookHeaders)).body.data.map((e: { id: string }) => e.id)).toEqual([id]);
  });
});

describe('messaging opt-out', () => {
  const put = (headers: Record<string, string>, payload: object) =>
    ctx.app.inject({ method: 'PUT', url: `${BASE}/customers/messaging-opt-out`, headers, payload });

  it('records the opt-out by phone, idempotently, and GET /customers and the order lookup show it', async () => {
    const s = await hookShop();
    const placed = await post(ctx, s.headers, orderBody());
    const first = await put(s.headers, { phone: '098765 43210', messaging_opted_out: true });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ changed: true, data: { phone: '+919876543210', messaging_opted_out: true } });
    const again = await put(s.headers, { phone: '+91 98765 43210', messaging_opted_out: true });
    expect(again.json()).toMatchObject({ changed: false, data: { messaging_opted_out: true } });
    expect((await get(ctx, s.headers, '/customers?phone=9876543210')).body.data.messaging_opted_out).toBe(true);
    expect((await get(ctx, s.headers, `/orders/${placed.body.data.order_number}`)).body.data.customer.messaging_opted_out).toBe(true);
    const events = await ctx.db.query<{ type: string }>(sql`SELECT type FROM events WHERE company_id = ${s.companyId} ORDER BY seq`);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'customer.messaging_opt_out_changed']);
    const resumed = await put(s.headers, { phone: '9876543210', messaging_opted_out: false });
    expect(resumed.json()).toMatchObject({ changed: true, data: { messaging_opted_out: false } });
  });

  it('is scoped to the key’s company: another company’s customer with the same phone is not touched', async () => {
    const a = await hookShop();
    const b = await hookShop();
    await post(ctx, a.headers, orderBody());
    await post(ctx, b.headers, orderBody());
    await put(a.headers, { phone: '9876543210', messaging_opted_out: true });
    expect((await get(ctx, b.headers, '/customers?phone=9876543210')).body.data.messaging_opted_out).toBe(false);
  });

  it('answers 404 for an unknown phone and 400 naming the field for bad input', async () => {
    const s = await hookShop();
    const unknown = await put(s.headers, { phone: '9876500000', messaging_opted_out: true });
    expect(unknown.statusCode).toBe(404);
    const bad = await put(s.headers, { phone: '12', messaging_opted_out: 'yes' });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .error.details.map((d: { path: string }) => d.path)
        .sort(),
    ).toEqual(['messaging_opted_out', 'phone']);
  });
});
