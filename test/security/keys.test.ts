import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { BASE } from '../helpers/security-world.js';

let testDb: TestDatabase;
const apps: TestApp[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  for (const a of apps) await a.app.close();
  await testDb.drop();
});

async function app(overrides: Record<string, string> = {}) {
  const a = await buildTestApp(testDb.db, { RATE_LIMIT_MAX: '100000', AUTH_FAILURE_LIMIT: '100000', ...overrides });
  apps.push(a);
  return a;
}

const alnum = (n: number) => {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(n), (b) => chars[b % chars.length]).join('');
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

describe('timing of the 401 path', () => {
  it('a real key’s prefix with a wrong secret takes as long as a prefix that does not exist (both: one lookup by full hash that misses)', async () => {
    const a = await app();
    const { key } = await createCompanyWithKey(a.services);
    const realPrefix = key.split('_').slice(0, 2).join('_');
    const url = `${BASE}/catalog/categories`;
    const time = async (k: string) => {
      const t0 = process.hrtime.bigint();
      const res = await a.app.inject({ url, headers: { 'x-api-key': k } });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      expect(res.statusCode).toBe(401);
      return ms;
    };
    // warm up both paths (prepared statement, JIT)
    for (let i = 0; i < 30; i++) {
      await time(`${realPrefix}_${alnum(32)}`);
      await time(`cok_${alnum(12)}_${alnum(32)}`);
    }
    const known: number[] = [];
    const unknown: number[] = [];
    const N = 300;
    for (let i = 0; i < N; i++) {
      // interleaved, so drift in machine load hits both series alike
      known.push(await time(`${realPrefix}_${alnum(32)}`));
      unknown.push(await time(`cok_${alnum(12)}_${alnum(32)}`));
    }
    const [mk, mu] = [median(known), median(unknown)];
    console.log(`[keys] 401 median over ${N} each: existing prefix ${mk.toFixed(3)} ms, unknown prefix ${mu.toFixed(3)} ms`);
    // Generous: a per-prefix lookup (an extra query, or a bcrypt of the secret) would differ by far more.
    expect(Math.abs(mk - mu)).toBeLessThan(Math.max(0.5, 0.25 * Math.min(mk, mu)));
  });
});

describe('keys never appear in logs', () => {
  it('after successful, failed and revoked-key requests, over REST and MCP, at debug level', async () => {
    const a = await app({ LOG_LEVEL: 'trace' });
    const co = await createCompanyWithKey(a.services);
    await addLocations(a.db, co.company.id);
    await addProduct(a.db, co.company.id, { sku: 'LOG', name: 'Log item', variants: [{ sku: 'LOG-1', selling_price: '10.00', stock: '5' }] });
    const revoked = await a.services.keys.create(co.company.id, { kind: 'cli', name: 'test' }, 'to revoke');
    await a.services.keys.revoke(co.company.id, { kind: 'cli', name: 'test' }, revoked.record.id);
    const wrongSecret = `${co.key.split('_').slice(0, 2).join('_')}_${alnum(32)}`;
    const secrets = [co.key, co.key.split('_')[2], revoked.key, revoked.key.split('_')[2], wrongSecret.split('_')[2]];

    const mcp = (headers: Record<string, string>, body: unknown) =>
      a.app.inject({
        method: 'POST',
        url: `${BASE}/mcp`,
        headers: { ...headers, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        payload: body as object,
      });
    const statuses: number[] = [];
    for (const k of [co.key, wrongSecret, revoked.key]) {
      for (const headers of [{ 'x-api-key': k }, { authorization: `Bearer ${k}` }] as Record<string, string>[]) {
        statuses.push((await a.app.inject({ url: `${BASE}/catalog/products`, headers })).statusCode);
        statuses.push(
          (
            await a.app.inject({
              method: 'POST',
              url: `${BASE}/orders`,
              headers,
              payload: { customer: { name: 'L', phone: '9876543210' }, items: [{ product_id: 'LOG-1', quantity: 1 }], external_reference: `log-${alnum(6)}` },
            })
          ).statusCode,
        );
        statuses.push((await a.app.inject({ method: 'POST', url: `${BASE}/orders`, headers, payload: { bad: true } })).statusCode);
        statuses.push((await mcp(headers, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'browse_catalog', arguments: {} } })).statusCode);
        statuses.push(
          (await mcp(headers, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_order', arguments: { reference: 'nope' } } })).statusCode,
        );
      }
    }
    // a key sent where it is not accepted: a header of another name, and in the body
    statuses.push((await a.app.inject({ url: `${BASE}/catalog/products`, headers: { 'x-api-token': co.key, cookie: `key=${co.key}` } })).statusCode);
    expect(statuses.filter((s) => s === 200 || s === 201).length).toBeGreaterThanOrEqual(8);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(20);

    const logs = a.rawLogs();
    expect(logs.length).toBeGreaterThan(1000);
    for (const s of secrets) expect(logs.includes(s), `log contains ${s.slice(0, 6)}…`).toBe(false);
    // …while the visible prefix, which is safe, does name the key on authenticated lines
    expect(logs).toContain(co.key.split('_').slice(0, 2).join('_'));
  });
});

describe('brute force from one address', () => {
  it('is slowed: after AUTH_FAILURE_LIMIT failures that address gets 429 for every wrong key, while a right key is served (REST and MCP); another address is unaffected', async () => {
    const a = await app({ AUTH_FAILURE_LIMIT: '10' });
    const { key } = await createCompanyWithKey(a.services);
    const attacker = `10.66.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) {
      const res = await a.app.inject({ url: `${BASE}/catalog/categories`, headers: { 'x-api-key': `cok_${alnum(12)}_${alnum(32)}` }, remoteAddress: attacker });
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual(Array(15).fill(429));
    const wrong = await a.app.inject({ url: `${BASE}/catalog/categories`, headers: { 'x-api-key': `cok_${alnum(12)}_${alnum(32)}` }, remoteAddress: attacker });
    expect(wrong.statusCode).toBe(429);
    expect(Number(wrong.headers['retry-after'])).toBeGreaterThan(0);
    // The address may be shared (a platform's egress, a load balancer): a right key from it is served.
    const right = await a.app.inject({ url: `${BASE}/catalog/categories`, headers: { 'x-api-key': key }, remoteAddress: attacker });
    expect(right.statusCode).toBe(200);
    const mcp = (headers: Record<string, string>) =>
      a.app.inject({
        method: 'POST',
        url: `${BASE}/mcp`,
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        remoteAddress: attacker,
      });
    expect((await mcp({ 'x-api-key': key })).statusCode).toBe(200);
    expect((await mcp({ 'x-api-key': `cok_${alnum(12)}_${alnum(32)}` })).statusCode).toBe(429);
    const other = await a.app.inject({
      url: `${BASE}/catalog/categories`,
      headers: { 'x-api-key': `cok_${alnum(12)}_${alnum(32)}` },
      remoteAddress: '10.67.0.1',
    });
    expect(other.statusCode).toBe(401);
  });

  it('a revoked key still in this instance’s memory is answered as an unknown key in every state of the budget: status, body, header names (REST and MCP)', async () => {
    const a = await app({ AUTH_FAILURE_LIMIT: '3' });
    const co = await createCompanyWithKey(a.services);
    await addLocations(a.db, co.company.id);
    await addProduct(a.db, co.company.id, { sku: 'REV', name: 'Rev item', variants: [{ sku: 'REV-1', selling_price: '10.00', stock: '5' }] });
    /** A key this instance has served (so it is in memory), then revoked: its next request is checked in the statement. */
    const revokedInMemory = async () => {
      const { key, record } = await a.services.keys.create(co.company.id, { kind: 'cli', name: 'test' }, 'revoked');
      expect((await a.app.inject({ url: `${BASE}/catalog/categories`, headers: { 'x-api-key': key }, remoteAddress: '10.68.0.1' })).statusCode).toBe(200);
      await a.services.keys.revoke(co.company.id, { kind: 'cli', name: 'test' }, record.id);
      return key;
    };
    const unknownKey = async () => `cok_${alnum(12)}_${alnum(32)}`;
    const requests: [string, (key: string, from: string) => Promise<LightMyRequestResponse>][] = [
      ['GET /catalog/categories', (key, from) => a.app.inject({ url: `${BASE}/catalog/categories`, headers: { 'x-api-key': key }, remoteAddress: from })],
      [
        'POST /orders',
        (key, from) =>
          a.app.inject({
            method: 'POST',
            url: `${BASE}/orders`,
            headers: { 'x-api-key': key },
            payload: { customer: { name: 'R', phone: '9876543210' }, items: [{ product_id: 'REV-1', quantity: 1 }], external_reference: `rev-${alnum(6)}` },
            remoteAddress: from,
          }),
      ],
      [
        'POST /mcp',
        (key, from) =>
          a.app.inject({
            method: 'POST',
            url: `${BASE}/mcp`,
            headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
            payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'browse_catalog', arguments: {} } },
            remoteAddress: from,
          }),
      ],
    ];
    const seen = (res: LightMyRequestResponse) => ({
      status: res.statusCode,
      body: res.body.replace(/\d+ s\b/g, 'N s'),
      headers: Object.keys(res.headers).sort(),
    });
    for (const [name, send] of requests) {
      // The same five requests from two addresses: only unknown keys from one, revoked keys from memory mixed in from the other.
      const [plain, mixed] = [`10.69.${Math.floor(Math.random() * 250)}.1`, `10.69.${Math.floor(Math.random() * 250)}.2`];
      const keysOfMixed = [revokedInMemory, unknownKey, revokedInMemory, revokedInMemory, revokedInMemory];
      const expected: ReturnType<typeof seen>[] = [];
      const got: ReturnType<typeof seen>[] = [];
      for (const make of keysOfMixed) {
        expected.push(seen(await send(await unknownKey(), plain)));
        got.push(seen(await send(await make(), mixed)));
      }
      expect(
        expected.map((r) => r.status),
        name,
      ).toEqual([401, 401, 401, 429, 429]);
      expect(got, name).toEqual(expected);
    }
  });
});
