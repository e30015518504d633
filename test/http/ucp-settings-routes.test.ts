import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';

const BASE = '/api/v1/commerce';
const ctx = useTestApp({ PUBLIC_URL: 'https://api.example.in' });

/** A company with a key holding the `ucp` permission (and its plain key). */
async function ucpCompany() {
  const co = await createCompanyWithKey(ctx.services);
  const { key } = await ctx.services.keys.create(co.company.id, { kind: 'cli', name: 'test' }, 'ucp admin', ['ucp']);
  return { ...co, ucp: { 'x-api-key': key } };
}

const call = (method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, body?: unknown) =>
  ctx.app.inject({
    method,
    url: `${BASE}${url}`,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });

describe('UCP settings over REST', () => {
  it('shows the defaults, with the profile address built from PUBLIC_URL', async () => {
    const co = await ucpCompany();
    const res = await call('GET', '/ucp/settings', co.ucp);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        enabled: false,
        hold_minutes: 30,
        privacy_url: null,
        terms_url: null,
        updated_at: null,
        discovery_url: `https://api.example.in/ucp/${co.company.slug}/.well-known/ucp`,
      },
    });
  });

  it('enables and disables the business, and the profile follows from the next request', async () => {
    const co = await ucpCompany();
    const profile = () => ctx.app.inject({ url: `/ucp/${co.company.slug}/.well-known/ucp` });
    expect((await profile()).statusCode).toBe(404);
    const on = await call('PUT', '/ucp/settings', co.ucp, { enabled: true });
    expect(on.statusCode).toBe(200);
    expect(on.json().data).toMatchObject({ enabled: true, hold_minutes: 30, updated_at: expect.stringMatching(/Z$/) });
    expect((await profile()).statusCode).toBe(200);
    const off = await call('PUT', '/ucp/settings', co.ucp, { enabled: false });
    expect(off.json().data.enabled).toBe(false);
    expect((await profile()).statusCode).toBe(404);
  });

  it('takes hold_minutes 1 and 1440 and refuses 0 and 1441 with 400 on the field', async () => {
    const co = await ucpCompany();
    for (const minutes of [1, 1440]) {
      const res = await call('PUT', '/ucp/settings', co.ucp, { hold_minutes: minutes });
      expect(res.statusCode, String(minutes)).toBe(200);
      expect(res.json().data.hold_minutes).toBe(minutes);
    }
    for (const minutes of [0, 1441, '30']) {
      const res = await call('PUT', '/ucp/settings', co.ucp, { hold_minutes: minutes });
      expect(res.statusCode, String(minutes)).toBe(400);
      expect(res.json()).toEqual({
        error: { code: 'validation_failed', message: expect.any(String), details: [{ path: 'hold_minutes', message: 'must be an integer from 1 to 1440' }] },
      });
    }
    expect((await call('GET', '/ucp/settings', co.ucp)).json().data.hold_minutes).toBe(1440);
  });

  it('answers only the settings fields, whatever else is stored or sent', async () => {
    const co = await ucpCompany();
    const res = await call('PUT', '/ucp/settings', co.ucp, { enabled: true, company_id: 'co_other', privacy_url: 'https://shop.example.in/p' });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json().data).sort()).toEqual(['discovery_url', 'enabled', 'hold_minutes', 'privacy_url', 'terms_url', 'updated_at']);
  });

  it('refuses a key without the ucp permission with 403 on every route, and changes nothing', async () => {
    const co = await ucpCompany();
    const plain = co.headers;
    const hooks = { 'x-api-key': (await ctx.services.keys.create(co.company.id, { kind: 'cli', name: 'test' }, 'hooks', ['webhooks', 'catalogue'])).key };
    for (const headers of [plain, hooks]) {
      for (const [method, url, body] of [
        ['GET', '/ucp/settings'],
        ['PUT', '/ucp/settings', { enabled: true }],
        ['GET', '/ucp/hosts'],
        ['POST', '/ucp/hosts', { host: `p-${co.company.slug}.example.in` }],
        ['DELETE', `/ucp/hosts/p-${co.company.slug}.example.in`],
      ] as const) {
        const res = await call(method, url, headers, body);
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json().error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('"ucp" permission') });
      }
    }
    expect(await ctx.services.ucpSettings.get(co.company.id)).toMatchObject({ enabled: false, updated_at: null });
    expect(await ctx.services.ucpSettings.hosts(co.company.id)).toEqual([]);
  });

  it("never shows or changes another company's settings or hosts", async () => {
    const mine = await ucpCompany();
    const theirs = await ucpCompany();
    const host = `iso-${theirs.company.slug}.example.in`;
    await ctx.services.ucpSettings.set(
      theirs.company.id,
      { kind: 'cli', name: 'test' },
      { enabled: true, hold_minutes: 99, privacy_url: 'https://theirs.example.in/p' },
    );
    await ctx.services.ucpSettings.addHost(theirs.company.id, { kind: 'cli', name: 'test' }, host);

    // the key alone decides the company: whatever the request says, mine answers with mine
    const read = await ctx.app.inject({ url: `${BASE}/ucp/settings?company=${theirs.company.slug}`, headers: mine.ucp });
    expect(read.json().data).toMatchObject({ enabled: false, hold_minutes: 30, privacy_url: null });
    expect(read.json().data.discovery_url).toContain(`/ucp/${mine.company.slug}/`);
    await call('PUT', '/ucp/settings', mine.ucp, { hold_minutes: 5, enabled: true });
    expect((await call('GET', '/ucp/hosts', mine.ucp)).json()).toEqual({ data: [] });
    expect((await call('DELETE', `/ucp/hosts/${host}`, mine.ucp)).statusCode).toBe(404);

    expect(await ctx.services.ucpSettings.get(theirs.company.id)).toMatchObject({
      enabled: true,
      hold_minutes: 99,
      privacy_url: 'https://theirs.example.in/p',
    });
    expect((await ctx.services.ucpSettings.hosts(theirs.company.id)).map((h) => h.host)).toEqual([host]);
  });
});

describe('UCP hosts over REST', () => {
  it('adds (201, again unchanged), lists and removes a host', async () => {
    const co = await ucpCompany();
    const host = `rest-${co.company.slug}.example.in`;
    const added = await call('POST', '/ucp/hosts', co.ucp, { host: host.toUpperCase() });
    expect(added.statusCode).toBe(201);
    expect(added.json()).toEqual({ data: { host, created_at: expect.stringMatching(/Z$/) } });
    const again = await call('POST', '/ucp/hosts', co.ucp, { host });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(added.json());
    expect((await call('GET', '/ucp/hosts', co.ucp)).json()).toEqual({ data: [added.json().data] });
    const removed = await call('DELETE', `/ucp/hosts/${encodeURIComponent(`${host}`)}`, co.ucp);
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ data: { host, removed: true } });
    expect((await call('GET', '/ucp/hosts', co.ucp)).json()).toEqual({ data: [] });
    expect((await call('DELETE', `/ucp/hosts/${host}`, co.ucp)).statusCode).toBe(404);
  });

  it('refuses a host registered by another company with 409 conflict, and a malformed one with 400', async () => {
    const first = await ucpCompany();
    const second = await ucpCompany();
    const host = `clash-${first.company.slug}.example.in`;
    expect((await call('POST', '/ucp/hosts', first.ucp, { host })).statusCode).toBe(201);
    const clash = await call('POST', '/ucp/hosts', second.ucp, { host });
    expect(clash.statusCode).toBe(409);
    expect(clash.json()).toEqual({
      error: { code: 'conflict', message: expect.stringContaining('another company'), details: [{ path: 'host', message: 'registered for another company' }] },
    });
    expect(clash.body).not.toContain(first.company.id);
    for (const bad of ['https://x.example.in/', 'localhost', '10.0.0.1', '']) {
      const res = await call('POST', '/ucp/hosts', second.ucp, { host: bad });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().error.details[0].path).toBe('host');
    }
    expect((await call('POST', '/ucp/hosts', second.ucp, {})).statusCode).toBe(400);
  });
});
