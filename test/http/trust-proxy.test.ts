import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { addPhoto } from '../helpers/catalogue-setup.js';

// End clients are told apart by the loopback address they connect from (all of 127.0.0.0/8 is this machine).
const CLIENT_X = '127.0.0.2';
const CLIENT_Y = '127.0.0.3';
const bad = () => `cok_${'x'.repeat(12)}_${Math.random().toString(36).slice(2).padEnd(32, 'q').slice(0, 32)}`;

let testDb: TestDatabase;
const apps: TestApp[] = [];
const proxies: ChildProcess[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  for (const p of proxies) p.kill('SIGTERM');
  for (const a of apps) await a.app.close();
  await testDb.drop();
});

/** The app listening on a free port, with these settings. */
async function listeningApp(overrides: Record<string, string>) {
  const a = await buildTestApp(testDb.db, { AUTH_FAILURE_LIMIT: '3', ...overrides });
  apps.push(a);
  const address = await a.app.listen({ host: '127.0.0.1', port: 0 });
  return { ...a, port: Number(new URL(address).port) };
}

/** A reverse proxy in its own process in front of `upstreamPort`; answers the port it listens on. */
async function startProxy(upstreamPort: number, proto = 'http'): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/reverse-proxy.ts', String(upstreamPort), proto], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  proxies.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`reverse proxy exited with ${code}`)));
  });
}

/** One HTTP request from `localAddress` to 127.0.0.1:port. */
function send(port: number, path: string, headers: Record<string, string>, localAddress: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, localAddress, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('TRUST_PROXY setting', () => {
  it('is off by default and reads a hop count, true/false or a list of addresses and CIDRs', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1,loopback' }).TRUST_PROXY).toEqual(['10.0.0.0/8', '127.0.0.1', '::1', 'loopback']);
    for (const wrong of ['yes', '10.0.0.0/33', '10.0.0.1/', 'proxy.internal', '1.2.3.4,']) {
      expect(() => loadConfig({ TRUST_PROXY: wrong }), wrong).toThrow(/TRUST_PROXY/);
    }
  });
});

describe.each([
  ['the proxy address', '127.0.0.1', false],
  ['a hop count', '1', true],
])('behind a real reverse proxy, with TRUST_PROXY set to %s', (_form, setting, directClientsCanSpoof) => {
  it('counts two end clients apart in the failure guard and logs each by its own address', async () => {
    const app = await listeningApp({ TRUST_PROXY: setting });
    const proxy = await startProxy(app.port);
    const path = `${app.config.BASE_PATH}/catalog/categories`;
    for (let i = 0; i < 3; i++) expect((await send(proxy, path, { 'x-api-key': bad() }, CLIENT_X)).status).toBe(401);
    const blocked = await send(proxy, path, { 'x-api-key': bad() }, CLIENT_X);
    expect(blocked.status).toBe(429);
    expect(JSON.parse(blocked.body).error.code).toBe('rate_limited');
    // Client X cannot escape by writing its own X-Forwarded-For: the proxy appends the address it saw.
    expect((await send(proxy, path, { 'x-api-key': bad(), 'x-forwarded-for': '198.51.100.7' }, CLIENT_X)).status).toBe(429);
    // Client Y, behind the same proxy, is not throttled by X's guessing.
    expect((await send(proxy, path, { 'x-api-key': bad() }, CLIENT_Y)).status).toBe(401);
    // Y straight to the service, past the proxy, claiming to be X: named proxy addresses do not believe it; a hop
    // count cannot tell a proxy from a client (why docs/decisions.md prefers addresses).
    const direct = await send(app.port, path, { 'x-api-key': bad(), 'x-forwarded-for': CLIENT_X }, CLIENT_Y);
    expect(direct.status).toBe(directClientsCanSpoof ? 429 : 401);
    const seen = new Set(app.logs.map((l) => (l.req as { remoteAddress?: string } | undefined)?.remoteAddress).filter(Boolean));
    expect(seen).toEqual(new Set([CLIENT_X, CLIENT_Y]));
  });

  it('links photos to the origin the proxy forwards', async () => {
    const app = await listeningApp({ TRUST_PROXY: setting });
    const proxy = await startProxy(app.port, 'https');
    const co = await createCompanyWithKey(app.services);
    await addLocations(app.db, co.company.id);
    const { productId } = await addProduct(app.db, co.company.id, { sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-1', selling_price: '10', stock: '1' }] });
    await addPhoto(app.db, co.company.id, productId, `${co.company.id}/tee.png`);
    const res = await send(proxy, `${app.config.BASE_PATH}/catalog/products/${productId}`, { ...co.headers, host: 'shop.example.in' }, CLIENT_X);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).data.image_url).toMatch(/^https:\/\/shop\.example\.in\/media\//);
  });
});

describe('without TRUST_PROXY', () => {
  it('believes no X-Forwarded-* header a client sends: rotating X-Forwarded-For does not escape the guard, nor do links follow', async () => {
    const app = await listeningApp({});
    const path = `${app.config.BASE_PATH}/catalog/categories`;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await send(app.port, path, { 'x-api-key': bad(), 'x-forwarded-for': `198.51.100.${i}` }, CLIENT_X);
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect(app.logs.some((l) => (l.req as { remoteAddress?: string } | undefined)?.remoteAddress?.startsWith('198.51.100.'))).toBe(false);

    const co = await createCompanyWithKey(app.services);
    await addLocations(app.db, co.company.id);
    const { productId } = await addProduct(app.db, co.company.id, { sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-1', selling_price: '10', stock: '1' }] });
    await addPhoto(app.db, co.company.id, productId, `${co.company.id}/tee.png`);
    const spoofed = { ...co.headers, host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };
    const res = await send(app.port, `${app.config.BASE_PATH}/catalog/products/${productId}`, spoofed, CLIENT_X);
    expect(JSON.parse(res.body).data.image_url.startsWith(`http://127.0.0.1:${app.port}/media/`)).toBe(true);
  });
});
