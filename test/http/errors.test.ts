import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createPgDatabase } from '../../src/db/client.js';
import { AppError } from '../../src/contract/errors.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';

const ctx = useTestApp();
const base = '/api/v1/commerce';

function expectErrorShape(body: unknown, code: string) {
  expect(body).toMatchObject({ error: { code, message: expect.any(String) } });
  expect(Object.keys((body as { error: object }).error).every((k) => ['code', 'message', 'details'].includes(k))).toBe(true);
}

describe('error shapes', () => {
  it('answers unknown routes with 404 not_found, inside and outside the base path', async () => {
    for (const url of [`${base}/nope`, '/nope', `${base}/catalog/products/x/y/z`]) {
      const res = await ctx.app.inject({ url });
      expect(res.statusCode).toBe(404);
      expectErrorShape(res.json(), 'not_found');
    }
  });

  it("answers a malformed %-escape in the URL with 400 in the error shape, not Fastify's own", async () => {
    for (const url of [`${base}/catalog/products/%E0%A4%A`, '/media/%E0%A4%A.png', `${base}/orders/%zz`]) {
      const res = await ctx.app.inject({ url });
      expect(res.statusCode, url).toBe(400);
      expectErrorShape(res.json(), 'validation_failed');
      expect(res.json().error.details[0].path).toBe('(path)');
      expect(res.headers['x-request-id']).toBeTruthy();
    }
  });

  it('answers malformed JSON with 400 validation_failed pointing at the body', async () => {
    const { headers } = await createCompanyWithKey(ctx.services);
    const res = await ctx.app.inject({
      method: 'POST',
      url: `${base}/orders`,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"items": [',
    });
    expect(res.statusCode).toBe(400);
    expectErrorShape(res.json(), 'validation_failed');
    expect(res.json().error.details[0].path).toBe('(body)');
  });

  it('answers a non-JSON body with 415 validation_failed', async () => {
    const { headers } = await createCompanyWithKey(ctx.services);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await ctx.app.inject({ method: 'POST', url: `${base}/orders`, headers: { ...headers, 'content-type': type }, payload: 'a=1' });
      expect(res.statusCode, type).toBe(415);
      expectErrorShape(res.json(), 'validation_failed');
    }
  });

  it('answers a body over 32 KB with 413 validation_failed', async () => {
    const { headers } = await createCompanyWithKey(ctx.services);
    const payload = JSON.stringify({ notes: 'x'.repeat(33 * 1024) });
    const res = await ctx.app.inject({ method: 'POST', url: `${base}/orders`, headers: { ...headers, 'content-type': 'application/json' }, payload });
    expect(res.statusCode).toBe(413);
    expectErrorShape(res.json(), 'validation_failed');
  });

  it('answers an unexpected fault with 500 internal and leaks nothing', async () => {
    const db = ctx.db;
    const app = await buildApp({ config: testConfig(), db, logger: false });
    app.get('/boom', async () => {
      throw new Error('secret internals: password=hunter2 at /srv/app.ts:12');
    });
    app.get('/boom-db', async () => {
      const broken = createPgDatabase({ url: 'postgres://nobody@127.0.0.1:1/none', poolMax: 1, statementTimeoutMs: 1000, connectTimeoutMs: 500 });
      await broken.ping();
    });
    for (const url of ['/boom', '/boom-db']) {
      const res = await app.inject({ url });
      expect(res.statusCode).toBe(500);
      expectErrorShape(res.json(), 'internal');
      expect(res.body).not.toMatch(/hunter2|srv|ECONNREFUSED|127\.0\.0\.1/);
    }
    await app.close();
  });

  it('answers an AppError with the catalogue status and its details', async () => {
    const app = await buildApp({ config: testConfig(), db: ctx.db, logger: false });
    app.get('/stock', async () => {
      throw new AppError('insufficient_stock', 'short', [{ product_id: 'A', requested: '2.000', available: '1.000' }]);
    });
    const res = await app.inject({ url: '/stock' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: { code: 'insufficient_stock', message: 'short', details: [{ product_id: 'A', requested: '2.000', available: '1.000' }] },
    });
    await app.close();
  });
});

describe('every response', () => {
  it('carries a request id (echoing a sane one given) and helmet security headers', async () => {
    const given = await ctx.app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const made = await ctx.app.inject({ url: `${base}/catalog/products` });
    expect(made.statusCode).toBe(401);
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const insane = await ctx.app.inject({ url: '/healthz', headers: { 'x-request-id': 'a\u0001b'.repeat(40) } });
    expect(insane.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    for (const res of [given, made]) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['strict-transport-security']).toContain('max-age');
      expect(res.headers['content-security-policy']).toBeTruthy();
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('logs pino JSON lines with the request id', async () => {
    // an API request (the probes are quiet: they log only at warn)
    const res = await ctx.app.inject({ url: `${base}/catalog/categories`, headers: { 'x-request-id': 'log-check-1' } });
    expect(res.statusCode).toBe(401);
    expect(ctx.logs.some((l) => l.reqId === 'log-check-1' && typeof l.time === 'number')).toBe(true);
  });
});

describe('operational routes', () => {
  it('reports liveness and readiness without authentication', async () => {
    expect((await ctx.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await ctx.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ok', database: 'ok' });
  });

  it('reports 503 on /readyz when the database is unreachable', async () => {
    const down = createPgDatabase({ url: 'postgres://postgres@127.0.0.1:1/none', poolMax: 1, statementTimeoutMs: 1000, connectTimeoutMs: 500 });
    const app = await buildApp({ config: testConfig(), db: down, logger: false });
    const res = await app.inject({ url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('unavailable');
    await app.close();
    await down.close();
  });
});
