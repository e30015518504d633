import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRedis } from '../../src/boot.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';

const url = '/api/v1/commerce/catalog/categories';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let testDb: TestDatabase;
/** The key with its last character changed: a well-formed key that is not this one (a key ending in Z gets Y). */
const wrongKey = (key: string) => `${key.slice(0, -1)}${key.endsWith('Z') ? 'Y' : 'Z'}`;

const apps: TestApp[] = [];
const redisClients: Redis[] = [];

async function app(overrides: Record<string, string> = {}, redis?: Redis) {
  const a = await buildTestApp(testDb.db, { RATE_LIMIT_MAX: '60', ...overrides }, redis);
  apps.push(a);
  return a;
}

async function redisOrSkip(): Promise<Redis | undefined> {
  // openRedis starts without Redis (it fails open): a client that did not connect means there is none here
  const r = await openRedis(REDIS_URL, 2000);
  redisClients.push(r);
  if (r.status === 'ready') return r;
  if (process.env.TEST_REDIS_URL || process.env.CI) throw new Error(`no Redis at ${REDIS_URL}`); // CI must test the Redis store
  return undefined;
}

beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  for (const a of apps) await a.app.close();
  for (const r of redisClients) r.disconnect();
  await testDb.drop();
});

const get = (a: TestApp, headers: Record<string, string>) => a.app.inject({ url, headers });

describe('rate limit per key', () => {
  it('serves 60 requests a minute and answers the 61st with 429, Retry-After and rate-limit headers', async () => {
    const a = await app();
    const { key } = await createCompanyWithKey(a.services);
    for (let i = 1; i <= 60; i++) {
      const res = await get(a, { 'x-api-key': key });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('60');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(60 - i));
    }
    const limited = await get(a, { 'x-api-key': key });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ error: { code: 'rate_limited' } });
    expect(limited.json().error.message).toMatch(/retry after \d+ s/);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers['x-request-id']).toBeTruthy();
  });

  it('keeps separate budgets for two keys, even of one company', async () => {
    const a = await app({ RATE_LIMIT_MAX: '3' });
    const first = await createCompanyWithKey(a.services);
    const second = await a.services.keys.create(first.company.id, { kind: 'cli', name: 'test' });
    for (let i = 0; i < 3; i++) expect((await get(a, { 'x-api-key': first.key })).statusCode).toBe(200);
    expect((await get(a, { 'x-api-key': first.key })).statusCode).toBe(429);
    expect((await get(a, { authorization: `Bearer ${second.key}` })).statusCode).toBe(200);
  });

  it('spends nothing on requests that fail authentication', async () => {
    const a = await app({ RATE_LIMIT_MAX: '3' });
    const { company, key, keyRecord } = await createCompanyWithKey(a.services);
    for (let i = 0; i < 10; i++) expect((await get(a, { 'x-api-key': wrongKey(key) })).statusCode).toBe(401);
    expect((await get(a, { 'x-api-key': key })).headers['x-ratelimit-remaining']).toBe('2');
    const other = await a.services.keys.create(company.id, { kind: 'cli', name: 'test' });
    await a.services.keys.revoke(company.id, { kind: 'cli', name: 'test' }, keyRecord.id);
    for (let i = 0; i < 5; i++) expect((await get(a, { 'x-api-key': key })).statusCode).toBe(401);
    expect((await get(a, { 'x-api-key': other.key })).headers['x-ratelimit-remaining']).toBe('2');
  });
});

describe('failed authentication from one address', () => {
  it('is refused with 429 after the limit, so keys cannot be guessed at speed', async () => {
    const a = await app({ AUTH_FAILURE_LIMIT: '5' });
    const bad = `cok_${'x'.repeat(12)}_${'y'.repeat(32)}`;
    for (let i = 0; i < 5; i++) expect((await get(a, { 'x-api-key': bad })).statusCode).toBe(401);
    for (const headers of [{ 'x-api-key': bad }, { authorization: 'Bearer nonsense' }, {}] as Record<string, string>[]) {
      const blocked = await get(a, headers);
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().error.code).toBe('rate_limited');
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Another address is not affected.
    const elsewhere = await a.app.inject({ url, headers: { 'x-api-key': bad }, remoteAddress: '10.9.8.7' });
    expect(elsewhere.statusCode).toBe(401);
  });

  it('never refuses a valid key from an address that is guessing: it is served within its own budget', async () => {
    const a = await app({ AUTH_FAILURE_LIMIT: '5', RATE_LIMIT_MAX: '3' });
    const { company, key } = await createCompanyWithKey(a.services);
    const other = await a.services.keys.create(company.id, { kind: 'cli', name: 'test' });
    const bad = `cok_${'x'.repeat(12)}_${'y'.repeat(32)}`;
    for (let i = 0; i < 8; i++) await get(a, { 'x-api-key': bad });
    expect((await get(a, { 'x-api-key': bad })).statusCode).toBe(429);
    // The same address, a valid key (either header): served, and the key's own 3-a-window budget still applies.
    for (let i = 0; i < 3; i++) expect((await get(a, { 'x-api-key': key })).statusCode).toBe(200);
    const overBudget = await get(a, { authorization: `Bearer ${key}` });
    expect(overBudget.statusCode).toBe(429);
    expect(overBudget.json().error.message).toMatch(/for this key/);
    expect((await get(a, { authorization: `Bearer ${other.key}` })).statusCode).toBe(200);
    // Guessing is still throttled in between.
    expect((await get(a, { 'x-api-key': bad })).statusCode).toBe(429);
  });
});

describe('with Redis (REDIS_URL)', () => {
  it('shares one budget across two instances', async (t) => {
    const [r1, r2] = [await redisOrSkip(), await redisOrSkip()];
    if (!r1 || !r2) return t.skip();
    const a = await app({ RATE_LIMIT_MAX: '10' }, r1);
    const b = await app({ RATE_LIMIT_MAX: '10' }, r2);
    const { key } = await createCompanyWithKey(a.services);
    for (let i = 0; i < 5; i++) expect((await get(a, { 'x-api-key': key })).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await get(b, { 'x-api-key': key })).statusCode).toBe(200);
    expect((await get(a, { 'x-api-key': key })).statusCode).toBe(429);
    expect((await get(b, { 'x-api-key': key })).statusCode).toBe(429);
  });

  it('shares the failed-authentication count across instances', async (t) => {
    const [r1, r2] = [await redisOrSkip(), await redisOrSkip()];
    if (!r1 || !r2) return t.skip();
    const a = await app({ AUTH_FAILURE_LIMIT: '4' }, r1);
    const b = await app({ AUTH_FAILURE_LIMIT: '4' }, r2);
    const addr = `10.1.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    for (const inst of [a, b, a, b]) expect((await inst.app.inject({ url, remoteAddress: addr })).statusCode).toBe(401);
    expect((await b.app.inject({ url, remoteAddress: addr })).statusCode).toBe(429);
    expect((await a.app.inject({ url, remoteAddress: addr })).statusCode).toBe(429);
    // A valid key from that address is served by either instance.
    const { key } = await createCompanyWithKey(a.services);
    for (const inst of [a, b]) expect((await inst.app.inject({ url, remoteAddress: addr, headers: { 'x-api-key': key } })).statusCode).toBe(200);
  });

  it('fails open when Redis goes away: requests are served, not refused', async (t) => {
    const r = await redisOrSkip();
    if (!r) return t.skip();
    const a = await app({ RATE_LIMIT_MAX: '2' }, r);
    const { key } = await createCompanyWithKey(a.services);
    r.disconnect();
    for (let i = 0; i < 5; i++) expect((await get(a, { 'x-api-key': key })).statusCode).toBe(200);
  });
});
