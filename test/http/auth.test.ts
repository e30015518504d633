import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { SPEC_ROUTES } from '../helpers/routes.js';

const ctx = useTestApp();
const base = '/api/v1/commerce';

function request(route: (typeof SPEC_ROUTES)[number], headers: Record<string, string>) {
  return ctx.app.inject({
    method: route.method,
    url: `${base}${route.url}`,
    headers: { ...headers, ...(route.body ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } : {}) },
    payload: route.body ? JSON.stringify(route.body) : undefined,
  });
}

describe.each(SPEC_ROUTES)('authentication on $method $url ($name)', (route) => {
  it('accepts the key in X-API-KEY and as Authorization: Bearer alike', async () => {
    const co = await createCompanyWithKey(ctx.services);
    const key = route.permission
      ? (await ctx.services.keys.create(co.company.id, { kind: 'cli', name: 'test' }, 'with permission', [route.permission])).key
      : co.key;
    const viaHeader = await request(route, { 'x-api-key': key });
    const viaBearer = await request(route, { authorization: `Bearer ${key}` });
    for (const res of [viaHeader, viaBearer]) {
      expect(res.statusCode, res.body).not.toBe(401);
      expect(res.statusCode, res.body).not.toBe(403);
      expect(res.statusCode, res.body).not.toBe(500);
    }
    expect(viaBearer.statusCode).toBe(viaHeader.statusCode);
  });

  it('answers 401 with one identical body for missing, malformed, unknown and revoked keys', async () => {
    const { company, key, keyRecord } = await createCompanyWithKey(ctx.services);
    await ctx.services.keys.revoke(company.id, { kind: 'cli', name: 'test' }, keyRecord.id);
    const unknown = `cok_${'A'.repeat(12)}_${'B'.repeat(32)}`;
    const cases: Record<string, Record<string, string>> = {
      missing: {},
      'empty header': { 'x-api-key': '' },
      'malformed key': { 'x-api-key': 'not-a-key' },
      'malformed bearer': { authorization: `Basic ${key}` },
      'unknown key': { 'x-api-key': unknown },
      'unknown bearer': { authorization: `Bearer ${unknown}` },
      'revoked key': { 'x-api-key': key },
      'revoked bearer': { authorization: `Bearer ${key}` },
    };
    const bodies = new Set<string>();
    for (const [name, headers] of Object.entries(cases)) {
      const res = await request(route, headers);
      expect(res.statusCode, name).toBe(401);
      expect(res.json().error.code).toBe('unauthorized');
      bodies.add(res.body);
    }
    expect(bodies.size).toBe(1);
  });

  it('answers 403 when the company is inactive or its plan excludes orders and inventory', async () => {
    const inactive = await createCompanyWithKey(ctx.services, { status: 'inactive' });
    const messaging = await createCompanyWithKey(ctx.services, { plan: 'messaging' });
    for (const { key } of [inactive, messaging]) {
      const res = await request(route, { 'x-api-key': key });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: { code: 'forbidden' } });
    }
  });
});

describe('key lifecycle', () => {
  const route = SPEC_ROUTES[2]; // categories

  it('refuses a revoked key from the very next request, on any instance', async () => {
    const { company, key, keyRecord } = await createCompanyWithKey(ctx.services);
    expect((await request(route, { 'x-api-key': key })).statusCode).toBe(200);
    await ctx.services.keys.revoke(company.id, { kind: 'cli', name: 'test' }, keyRecord.prefix);
    expect((await request(route, { 'x-api-key': key })).statusCode).toBe(401);
  });

  it('switches the API off when every key is revoked, and a new key works again', async () => {
    const { company, key, keyRecord } = await createCompanyWithKey(ctx.services);
    await ctx.services.keys.revoke(company.id, { kind: 'cli', name: 'test' }, keyRecord.id);
    expect((await request(route, { 'x-api-key': key })).statusCode).toBe(401);
    const fresh = await ctx.services.keys.create(company.id, { kind: 'cli', name: 'test' });
    expect((await request(route, { 'x-api-key': fresh.key })).statusCode).toBe(200);
  });

  it('lets a company whose status returns to active back in', async () => {
    const { company, key } = await createCompanyWithKey(ctx.services, { status: 'inactive' });
    expect((await request(route, { 'x-api-key': key })).statusCode).toBe(403);
    await ctx.services.companies.update(company.id, { kind: 'cli', name: 'test' }, { status: 'active' });
    expect((await request(route, { 'x-api-key': key })).statusCode).toBe(200);
  });

  it('allows five active keys and refuses a sixth with a clear message', async () => {
    const { company } = await createCompanyWithKey(ctx.services); // key 1
    for (let i = 2; i <= 5; i++) await ctx.services.keys.create(company.id, { kind: 'cli', name: 'test' });
    await expect(ctx.services.keys.create(company.id, { kind: 'cli', name: 'test' })).rejects.toThrow(/5 active keys/);
    const keys = await ctx.services.keys.list(company.id);
    expect(keys.filter((k) => !k.revoked_at)).toHaveLength(5);
    await ctx.services.keys.revoke(company.id, { kind: 'cli', name: 'test' }, keys[0].id);
    await expect(ctx.services.keys.create(company.id, { kind: 'cli', name: 'test' })).resolves.toHaveProperty('key');
  });

  it('never creates a sixth key under concurrent creation', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => ctx.services.keys.create(company.id, { kind: 'cli', name: 'test' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
    const [{ n }] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM api_keys WHERE company_id = ${company.id} AND revoked_at IS NULL`);
    expect(n).toBe(5);
  });

  it('stores only a hash and the visible prefix, and never logs the key', async () => {
    const { company, key, keyRecord } = await createCompanyWithKey(ctx.services);
    expect(key).toMatch(/^cok_[A-Za-z0-9]{12}_[A-Za-z0-9]{32}$/);
    expect(key.startsWith(keyRecord.prefix)).toBe(true);
    const rows = await ctx.db.query<Record<string, unknown>>(sql`SELECT * FROM api_keys WHERE company_id = ${company.id}`);
    const secret = key.split('_')[2];
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows[0].key_hash).not.toBeNull();

    await request(route, { 'x-api-key': key });
    await request(route, { authorization: `Bearer ${key}` });
    await request(route, { 'x-api-key': `${key}x` });
    expect(ctx.rawLogs()).not.toContain(secret);
    // Log lines of an authenticated request carry the visible prefix and the request id.
    expect(ctx.logs.some((l) => l.key === keyRecord.prefix && typeof l.reqId === 'string')).toBe(true);
  });

  it('ignores company identifiers in the request', async () => {
    const a = await createCompanyWithKey(ctx.services);
    const b = await createCompanyWithKey(ctx.services);
    const res = await ctx.app.inject({
      url: `${base}/catalog/categories?company_id=${b.company.id}&company=${b.company.slug}`,
      headers: { 'x-api-key': a.key, 'x-company-id': b.company.id },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ categories: [], brands: [] });
  });

  it('records when a key was last used', async () => {
    const { company, key, keyRecord } = await createCompanyWithKey(ctx.services);
    expect(keyRecord.last_used_at).toBeNull();
    await request(route, { 'x-api-key': key });
    await expect.poll(async () => (await ctx.services.keys.list(company.id))[0].last_used_at, { timeout: 5000 }).toBeInstanceOf(Date);
  });
});
