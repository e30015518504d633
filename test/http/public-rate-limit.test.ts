import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRedis } from '../../src/boot.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { get, orderBody, post, shop } from '../helpers/orders.js';

/**
 * The routes outside the API (signed invoice and photo links, the catalogue feed) are limited per
 * client address and company: at the limit served, one more 429 in the API's error shape with Retry-After; another
 * address, or a link of another company, unaffected.
 */

const LIMITS = { INVOICE_LINK_RATE_LIMIT: '3', FEED_RATE_LIMIT: '2', PHOTO_LINK_RATE_LIMIT: '5' };
const mediaDir = mkdtempSync(join(tmpdir(), 'public-limits-'));
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let testDb: TestDatabase;
const apps: TestApp[] = [];
const redisClients: Redis[] = [];
async function app(overrides: Record<string, string> = {}, redis?: Redis) {
  const a = await buildTestApp(testDb.db, { MEDIA_DIR: mediaDir, PUBLIC_URL: 'https://api.example.in', ...LIMITS, ...overrides }, redis);
  apps.push(a);
  return a;
}
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  for (const a of apps) await a.app.close();
  for (const r of redisClients) r.disconnect();
  await testDb.drop();
});

const local = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** A company's three public links: its invoice, its feed, a photo. */
async function links(a: TestApp) {
  const s = await shop(a, [{ sku: 'MAT', name: 'Yoga Mat', variants: [{ sku: 'MAT-1', selling_price: '700.00', stock: '20' }] }]);
  const ref = (await post(a, s.headers, orderBody({ items: [{ product_id: 'MAT-1', quantity: 1 }] }))).body.data.order_number;
  await a.services.fulfilment.issueInvoice(s.companyId, ref);
  const invoice = local((await get(a, s.headers, `/orders/${ref}`)).body.data.invoice.url);
  const { token } = await a.services.feeds.rotate(s.companyId, { kind: 'cli', name: 'test' }, 'https://shop.example.in/p/{sku}');
  mkdirSync(join(mediaDir, s.companyId), { recursive: true });
  writeFileSync(join(mediaDir, s.companyId, 'mat.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
  const photo = local((await a.services.media.linker('https://api.example.in'))(`${s.companyId}/mat.jpg`));
  return { s, invoice, feed: `/feeds/meta/${s.companyId}/${token}.csv`, photo };
}

const from = (a: TestApp, url: string, remoteAddress: string, extra: Partial<InjectOptions> = {}) => a.app.inject({ url, remoteAddress, ...extra });

async function expectLimited(a: TestApp, url: string, address: string, limit: number) {
  for (let i = 1; i <= limit; i++) {
    const res = await from(a, url, address);
    expect(res.statusCode, `${url} #${i}`).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
    expect(res.headers['x-ratelimit-remaining']).toBe(String(limit - i));
  }
  const refused = await from(a, url, address);
  expect(refused.statusCode, `${url} #${limit + 1}`).toBe(429);
  expect(refused.json()).toEqual({
    error: { code: 'rate_limited', message: expect.stringMatching(/^more than \d+ requests per 60 s .*; retry after \d+ s$/) },
  });
  const retryAfter = Number(refused.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(refused.headers['x-request-id']).toBeTruthy();
  return refused;
}

describe('public links are rate limited per client address and company', () => {
  it('invoice, feed and photo links: served up to the limit, 429 one past it; another address and another company unaffected', async () => {
    const a = await app();
    const mine = await links(a);
    const theirs = await links(a);
    for (const [kind, limit] of [
      ['invoice', 3],
      ['feed', 2],
      ['photo', 5],
    ] as const) {
      await expectLimited(a, mine[kind], '203.0.113.7', limit);
      expect((await from(a, mine[kind], '203.0.113.8')).statusCode, `${kind} from another address`).toBe(200);
      expect((await from(a, theirs[kind], '203.0.113.7')).statusCode, `${kind} of another company`).toBe(200);
    }
    // the kinds have budgets of their own, and HEAD spends the same budget as GET
    expect((await from(a, mine.invoice, '203.0.113.7', { method: 'HEAD' })).statusCode).toBe(429);
    expect((await from(a, mine.invoice, '203.0.113.9', { method: 'HEAD' })).statusCode).toBe(200);
  });

  it('refused links spend the budget too: forging signatures is no cheaper', async () => {
    const a = await app();
    const { invoice } = await links(a);
    const forged = invoice.replace(/sig=./, (m) => (m.endsWith('A') ? 'sig=B' : 'sig=A'));
    for (let i = 0; i < 3; i++) expect((await from(a, forged, '198.51.100.4')).statusCode).toBe(403);
    expect((await from(a, invoice, '198.51.100.4')).statusCode).toBe(429);
  });

  it('an IPv6 client is its /64: another address of the same /64 shares the budget, the next /64 does not', async () => {
    const a = await app();
    const { feed } = await links(a);
    await expectLimited(a, feed, '2001:db8:1:2::1', 2);
    expect((await from(a, feed, '2001:db8:1:2::ffff')).statusCode).toBe(429);
    expect((await from(a, feed, '2001:db8:1:3::1')).statusCode).toBe(200);
  });

  it('behind TRUST_PROXY the client is the one the proxy names; without it X-Forwarded-For changes nothing', async () => {
    const proxied = await app({ TRUST_PROXY: 'loopback' });
    const p = await links(proxied);
    for (let i = 0; i < 3; i++) expect((await from(proxied, p.invoice, '127.0.0.1', { headers: { 'x-forwarded-for': '203.0.113.20' } })).statusCode).toBe(200);
    expect((await from(proxied, p.invoice, '127.0.0.1', { headers: { 'x-forwarded-for': '203.0.113.20' } })).statusCode).toBe(429);
    expect((await from(proxied, p.invoice, '127.0.0.1', { headers: { 'x-forwarded-for': '203.0.113.21' } })).statusCode).toBe(200);

    const direct = await app();
    const d = await links(direct);
    for (let i = 0; i < 3; i++)
      expect((await from(direct, d.invoice, '198.51.100.30', { headers: { 'x-forwarded-for': `203.0.113.${i}` } })).statusCode).toBe(200);
    expect((await from(direct, d.invoice, '198.51.100.30', { headers: { 'x-forwarded-for': '203.0.113.99' } })).statusCode).toBe(429);
  });

  it('with REDIS_URL the budget is shared by every instance', async () => {
    let redis: Redis;
    try {
      redis = await openRedis(REDIS_URL, 2000);
    } catch (err) {
      if (process.env.TEST_REDIS_URL || process.env.CI) throw err; // CI must test the Redis store
      return;
    }
    redisClients.push(redis);
    const one = await app({}, redis);
    const two = await app({}, redis);
    const { invoice } = await links(one);
    for (let i = 0; i < 2; i++) expect((await from(one, invoice, '192.0.2.50')).statusCode).toBe(200);
    expect((await from(two, invoice, '192.0.2.50')).statusCode).toBe(200);
    expect((await from(one, invoice, '192.0.2.50')).statusCode).toBe(429);
    expect((await from(two, invoice, '192.0.2.50')).statusCode).toBe(429);
    expect((await from(two, invoice, '192.0.2.51')).statusCode).toBe(200);
  });
});
