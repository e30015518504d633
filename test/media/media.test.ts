import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { buildTestApp, useTestApp, type TestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { addPhoto } from '../helpers/catalogue-setup.js';
import { signPath, verifyPath } from '../../src/lib/signing.js';
import { createMediaService, LINK_TTL_SECONDS } from '../../src/media/media.service.js';

const mediaDir = mkdtempSync(join(tmpdir(), 'media-route-'));
mkdirSync(join(mediaDir, 'co_1'), { recursive: true });
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
writeFileSync(join(mediaDir, 'co_1', 'shirt red.png'), PNG);
writeFileSync(join(mediaDir, 'co_1', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
writeFileSync(join(mediaDir, 'secret.txt'), 'not a photo');

const ctx = useTestApp({ MEDIA_DIR: mediaDir });
const local = (link: string) => link.replace(/^https?:\/\/[^/]+/, '');

describe('signing', () => {
  it('verifies its own signature and nothing else', () => {
    const sig = signPath('k'.repeat(32), 'a/b.png', 100);
    expect(sig).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(verifyPath('k'.repeat(32), 'a/b.png', 100, sig)).toBe(true);
    expect(verifyPath('k'.repeat(32), 'a/b.png', 101, sig)).toBe(false);
    expect(verifyPath('k'.repeat(32), 'a/c.png', 100, sig)).toBe(false);
    expect(verifyPath('j'.repeat(32), 'a/b.png', 100, sig)).toBe(false);
    expect(verifyPath('k'.repeat(32), 'a/b.png', 100, sig.slice(0, -1))).toBe(false);
  });
});

describe('GET /media/<path>', () => {
  it('serves a valid link with its bytes and content type, without an API key', async () => {
    const link = (await ctx.services.media.linker('http://localhost'))('co_1/shirt red.png');
    expect(link).toMatch(/^http:\/\/localhost\/media\/co_1\/shirt%20red\.png\?expires=\d+&sig=/);
    const res = await ctx.app.inject({ url: local(link) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.rawPayload.equals(PNG)).toBe(true);
    const svg = await ctx.app.inject({ url: local((await ctx.services.media.linker('http://x'))('co_1/logo.svg')) });
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    expect(svg.headers['content-security-policy']).toContain('sandbox');
  });

  it('links are valid for 10 minutes', async () => {
    const now = Date.now();
    const link = (await ctx.services.media.linker('http://x', now))('co_1/shirt red.png');
    expect(Number(new URL(link).searchParams.get('expires'))).toBe(Math.floor(now / 1000) + LINK_TTL_SECONDS);
    expect(LINK_TTL_SECONDS).toBe(600);
  });

  it('an expired link is 403 forbidden', async () => {
    const link = (await ctx.services.media.linker('http://x', Date.now() - 601_000))('co_1/shirt red.png');
    const res = await ctx.app.inject({ url: local(link) });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('forbidden');
  });

  it('a tampered link is 403: other path, later expiry, altered or missing signature', async () => {
    const link = new URL((await ctx.services.media.linker('http://x'))('co_1/shirt red.png'));
    const sig = link.searchParams.get('sig')!;
    const expires = Number(link.searchParams.get('expires'));
    const cases = [
      `/media/co_1/logo.svg?expires=${expires}&sig=${sig}`,
      `/media/co_1/shirt%20red.png?expires=${expires + 3600}&sig=${sig}`,
      `/media/co_1/shirt%20red.png?expires=${expires}&sig=${sig.slice(0, -2)}AA`,
      `/media/co_1/shirt%20red.png?expires=${expires}`,
      `/media/co_1/shirt%20red.png?sig=${sig}`,
      `/media/co_1/shirt%20red.png?expires=soon&sig=${sig}`,
    ];
    for (const url of cases) {
      const res = await ctx.app.inject({ url });
      expect(res.statusCode, url).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
    }
  });

  it('refuses path traversal even when signed', async () => {
    const secret = ctx.config.SIGNING_SECRET!;
    const exp = Math.floor(Date.now() / 1000) + 60;
    for (const path of ['co_1/../secret.txt', '../etc/passwd', 'co_1/./shirt red.png', 'co_1//x.png']) {
      const url = `/media/${path}?expires=${exp}&sig=${signPath(secret, path, exp)}`;
      const res = await ctx.app.inject({ url });
      expect([403, 404], url).toContain(res.statusCode);
      expect(res.body).not.toContain('not a photo');
    }
    for (const raw of ['/media/co_1/%2e%2e/secret.txt', '/media/%2Fetc%2Fpasswd', '/media/co_1/a%00.png', '/media/co_1%5c..%5csecret.txt']) {
      const decoded = decodeURIComponent(raw.slice('/media/'.length));
      const res = await ctx.app.inject({ url: `${raw}?expires=${exp}&sig=${signPath(secret, decoded, exp)}` });
      expect(res.statusCode, raw).toBe(403);
      expect(res.body).not.toContain('not a photo');
    }
  });

  it('a valid link to a missing file is 404', async () => {
    const link = (await ctx.services.media.linker('http://x'))('co_1/gone.png');
    const res = await ctx.app.inject({ url: local(link) });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
  });

  it('without SIGNING_SECRET every instance shares one generated secret from service_secrets', async () => {
    await ctx.db.query(sql`DELETE FROM service_secrets WHERE name = 'media_signing'`);
    const cfg = { ...ctx.config, SIGNING_SECRET: undefined, PUBLIC_URL: undefined, MEDIA_DIR: mediaDir };
    const one = createMediaService({ db: ctx.db, config: cfg });
    const two = createMediaService({ db: ctx.db, config: cfg });
    const [a, b] = await Promise.all([one.linker('http://x', 1_000_000), two.linker('http://x', 1_000_000)]);
    expect(a('p/q.png')).toBe(b('p/q.png'));
    const rows = await ctx.db.query<{ value: string }>(sql`SELECT value FROM service_secrets WHERE name = 'media_signing'`);
    expect(rows[0].value.length).toBeGreaterThanOrEqual(32);
    expect(a('p/q.png')).not.toBe((await ctx.services.media.linker('http://x', 1_000_000))('p/q.png'));
  });
});

describe('photo link origin', () => {
  async function companyWithPhoto(a: TestApp) {
    const co = await createCompanyWithKey(a.services);
    await addLocations(a.db, co.company.id);
    const { productId } = await addProduct(a.db, co.company.id, { sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-1', selling_price: '10', stock: '1' }] });
    await addPhoto(a.db, co.company.id, productId, `${co.company.id}/tee.png`);
    return { ...co, productId };
  }

  /** The origins of the photo links in browse, product detail and the MCP browse_catalog result, one list per door. */
  async function linkOrigins(a: TestApp, headers: Record<string, string>, remoteAddress?: string) {
    const co = await companyWithPhoto(a);
    const base = a.config.BASE_PATH;
    const all = { ...co.headers, ...headers };
    const responses = [
      await a.app.inject({ url: `${base}/catalog/products`, headers: all, remoteAddress }),
      await a.app.inject({ url: `${base}/catalog/products/${co.productId}`, headers: all, remoteAddress }),
      // A local server's MCP door answers only to its own names (DNS rebinding, src/http/origin.ts): the call is
      // addressed to localhost, the other headers as given.
      await a.app.inject({
        method: 'POST',
        url: `${base}/mcp`,
        headers: {
          ...all,
          ...(a.config.TRUST_PROXY ? {} : { host: 'localhost:3000' }),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'browse_catalog', arguments: {} } },
        remoteAddress,
      }),
    ];
    return responses.map((res) => {
      expect(res.statusCode, res.body).toBe(200);
      expect(res.body).not.toContain('evil.example');
      const origins = [...res.body.matchAll(/(https?:\/\/[^/"\\\s]+)\/media\//g)].map((m) => m[1]);
      expect(origins.length, res.body).toBeGreaterThan(0);
      return [...new Set(origins)];
    });
  }

  const hostile = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };

  it('never comes from the Host header: without PUBLIC_URL links name the address the server listens on', async () => {
    const origins = await linkOrigins(ctx, hostile);
    expect(origins).toEqual([['http://127.0.0.1:3000'], ['http://127.0.0.1:3000'], ['http://127.0.0.1:3000']]);
  });

  it('a listening server links to the address and port it was reached on, whatever Host says', async () => {
    const a = await buildTestApp(ctx.db, { MEDIA_DIR: mediaDir });
    try {
      const address = await a.app.listen({ host: '127.0.0.1', port: 0 });
      const co = await companyWithPhoto(a);
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(`${address}${a.config.BASE_PATH}/catalog/products/${co.productId}`, { headers: { ...co.headers, host: 'evil.example' } }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.end();
      });
      expect(JSON.parse(body).data.image_url.startsWith(`${address}/media/${co.company.id}/tee.png?`)).toBe(true);
      expect(body).not.toContain('evil.example');
    } finally {
      await a.app.close();
    }
  });

  it('uses PUBLIC_URL when set', async () => {
    const a = await buildTestApp(ctx.db, { MEDIA_DIR: mediaDir, PUBLIC_URL: 'https://api.example.com/' });
    try {
      expect(await linkOrigins(a, hostile)).toEqual([['https://api.example.com'], ['https://api.example.com'], ['https://api.example.com']]);
    } finally {
      await a.app.close();
    }
  });

  it('takes X-Forwarded-Proto/Host only from a trusted proxy, and only a well-formed host', async () => {
    const untrusted = await buildTestApp(ctx.db, { MEDIA_DIR: mediaDir, TRUST_PROXY: '10.0.0.1' });
    const trusted = await buildTestApp(ctx.db, { MEDIA_DIR: mediaDir, TRUST_PROXY: 'loopback' });
    try {
      // The peer (127.0.0.1) is not the proxy named.
      expect((await linkOrigins(untrusted, hostile)).flat()).toEqual(Array(3).fill('http://127.0.0.1:3000'));
      // The peer is trusted: its forwarded headers name the origin; without them, not the Host header either.
      const forwarded = { host: 'internal:3000', 'x-forwarded-host': 'shop.example.in', 'x-forwarded-proto': 'https' };
      expect((await linkOrigins(trusted, forwarded)).flat()).toEqual(Array(3).fill('https://shop.example.in'));
      expect((await linkOrigins(trusted, { host: 'evil.example' })).flat()).toEqual(Array(3).fill('http://127.0.0.1:3000'));
      const malformed = { host: 'x', 'x-forwarded-host': 'shop.example.in/evil.example?', 'x-forwarded-proto': 'https' };
      expect((await linkOrigins(trusted, malformed)).flat()).toEqual(Array(3).fill('http://127.0.0.1:3000'));
      // From an address outside the trusted list the same headers are ignored.
      expect((await linkOrigins(trusted, hostile, '203.0.113.9')).flat()).toEqual(Array(3).fill('http://127.0.0.1:3000'));
    } finally {
      await untrusted.app.close();
      await trusted.app.close();
    }
  });
});
