import { sql } from 'drizzle-orm';
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { UCP_VERSION } from '../../src/contract/ucp-wire.js';
import { registerUcpScope, ucpVersionCheck } from '../../src/http/ucp-scope.js';
import { buildTestApp, useTestApp, type TestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';

const ORIGIN = 'https://api.example.in';
const ctx = useTestApp({ PUBLIC_URL: ORIGIN });
const others: { app: FastifyInstance }[] = [];
afterAll(async () => {
  for (const o of others) await o.app.close();
});

/** Another app on this file's database, closed after the file. */
async function otherApp(overrides: Record<string, string>): Promise<TestApp> {
  const a = await buildTestApp(ctx.testDb.db, { PUBLIC_URL: ORIGIN, ...overrides });
  others.push(a);
  return a;
}

/** A company whose UCP business is on (or off, when asked). */
async function business(a: Pick<TestApp, 'services'> = ctx, enabled = true) {
  const { company } = await createCompanyWithKey(a.services);
  await a.services.ucpSettings.set(company.id, { kind: 'cli', name: 'test' }, { enabled });
  return company;
}

const get = (a: Pick<TestApp, 'app'>, url: string, extra: Partial<InjectOptions> = {}) => a.app.inject({ method: 'GET', url, ...extra });

const CAPABILITIES = [
  'dev.ucp.shopping.checkout',
  'dev.ucp.shopping.fulfillment',
  'dev.ucp.shopping.discount',
  'dev.ucp.shopping.buyer_consent',
  'dev.ucp.shopping.order',
];

interface Profile {
  ucp: {
    version: string;
    services: Record<string, { version: string; spec: string; rest: { schema: string; endpoint: string } }>;
    capabilities: { name: string; version: string; spec: string; schema: string; extends?: string }[];
  };
  payment: {
    handlers: {
      id: string;
      name: string;
      version: string;
      spec: string;
      config_schema: string;
      instrument_schemas: string[];
      config: Record<string, unknown>;
    }[];
  };
  signing_keys: Record<string, string>[];
}

/** Every link a profile holds that a platform may fetch (what the conformance suite's test_discovery_urls fetches). */
function linksOf(p: Profile): string[] {
  const service = p.ucp.services['dev.ucp.shopping'];
  return [
    service.spec,
    service.rest.schema,
    ...p.ucp.capabilities.flatMap((c) => [c.spec, c.schema]),
    ...p.payment.handlers.flatMap((h) => [h.spec, h.config_schema, ...h.instrument_schemas]),
  ];
}

describe('UCP discovery by slug', () => {
  it("answers the enabled company's 2026-01-11 profile under its 2026-01-11 endpoint", async () => {
    const co = await business();
    const res = await get(ctx, `/ucp/${co.slug}/2026-01-11/.well-known/ucp`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const profile = res.json<Profile>();
    const endpoint = `${ORIGIN}/ucp/${co.slug}/${UCP_VERSION}`;
    expect(profile.ucp.version).toBe('2026-01-11');
    expect(Object.keys(profile.ucp.services)).toEqual(['dev.ucp.shopping']);
    expect(profile.ucp.services['dev.ucp.shopping']).toEqual({
      version: '2026-01-11',
      spec: `${endpoint}/docs/specification/overview`,
      rest: { schema: `${endpoint}/docs/services/shopping/rest.openapi.json`, endpoint },
    });
    expect(profile.ucp.capabilities.map((c) => c.name)).toEqual(CAPABILITIES);
    for (const c of profile.ucp.capabilities) {
      expect(c.version).toBe('2026-01-11');
      expect(c.name).toMatch(/^[a-z][a-z0-9]*(?:\.[a-z][a-z0-9_]*)+$/);
      expect(c.extends).toBe(['dev.ucp.shopping.checkout', 'dev.ucp.shopping.order'].includes(c.name) ? undefined : 'dev.ucp.shopping.checkout');
    }
    expect(profile.ucp.capabilities[3]).toMatchObject({
      spec: `${endpoint}/docs/specification/buyer-consent`,
      schema: `${endpoint}/docs/schemas/shopping/buyer_consent.json`,
    });
    expect(profile.payment.handlers).toEqual([
      {
        id: 'cod',
        name: 'in.commerce.cash_on_delivery',
        version: '2026-01-11',
        spec: `${endpoint}/docs/handlers/cod`,
        config_schema: `${endpoint}/docs/handlers/cod/config.json`,
        instrument_schemas: [`${endpoint}/docs/handlers/cod/instrument.json`],
        config: { currency: 'INR' },
      },
    ]);
    expect(profile.signing_keys).toEqual([
      { kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), use: 'sig', alg: 'ES256' },
    ]);
    // a leaf: the root profile (2026-08-25) names it in supported_versions; it names no other version
    expect(profile.ucp).not.toHaveProperty('supported_versions');
    const root = await get(ctx, `/ucp/${co.slug}/.well-known/ucp`);
    expect(root.json().ucp.supported_versions).toMatchObject({ '2026-01-11': `${endpoint}/.well-known/ucp` });
  });

  it('signs with one key per deployment: the same kid for every company and instance, the private half sealed at rest', async () => {
    const a = await business();
    const b = await business();
    // the root profile (2026-08-25) lists its keys under `keys`
    const kid = async (app: Pick<TestApp, 'app'>, slug: string) => (await get(app, `/ucp/${slug}/.well-known/ucp`)).json().keys[0];
    const first = await kid(ctx, a.slug);
    expect(await kid(ctx, b.slug)).toEqual(first);
    expect(await kid(await otherApp({}), a.slug)).toEqual(first);
    expect(first).not.toHaveProperty('d');
    const [stored] = await ctx.db.query<{ value: string }>(sql`SELECT value FROM service_secrets WHERE name = 'ucp_signing_key'`);
    expect(stored.value).toMatch(/^v1\./);
    expect(stored.value).not.toContain('PRIVATE KEY');
  });

  it('answers one identical 404 for a business that is off, an unknown slug, an inactive company and an unknown path', async () => {
    const off = await business(ctx, false);
    const inactive = (await createCompanyWithKey(ctx.services, { status: 'inactive' })).company;
    await ctx.services.ucpSettings.set(inactive.id, { kind: 'cli', name: 'test' }, { enabled: true });
    const on = await business();
    const urls = [
      `/ucp/${off.slug}/.well-known/ucp`,
      `/ucp/${off.slug}/2026-01-11/.well-known/ucp`,
      `/ucp/${off.slug}/2026-01-11/docs/specification/checkout`,
      `/ucp/no-such-${on.slug}/.well-known/ucp`,
      `/ucp/${inactive.slug}/.well-known/ucp`,
      `/ucp/NOT_A_SLUG/.well-known/ucp`,
      `/ucp/${on.slug}/2026-01-11/docs/no-such-document.json`,
      `/ucp/${on.slug}/2026-01-11/no-such-route`,
      `/ucp/${on.slug}`,
      '/ucp',
    ];
    const bodies: string[] = [];
    for (const url of urls) {
      const res = await get(ctx, url);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^application\/json/);
      expect(res.body, url).toBe(bodies[0] ?? res.body);
      bodies.push(res.body);
    }
    expect(JSON.parse(bodies[0])).toEqual({
      detail: 'not found',
      code: 'not_found',
      messages: [{ type: 'error', code: 'not_found', content: 'not found', severity: 'recoverable' }],
    });
  });

  it('makes every link from PUBLIC_URL or the listening address, never from the Host or an untrusted forwarded host', async () => {
    const local = await otherApp({ PUBLIC_URL: '' });
    const co = await business(local);
    const res = await get(local, `/ucp/${co.slug}/2026-01-11/.well-known/ucp`, {
      headers: { host: 'evil.example.com', 'x-forwarded-host': 'evil2.example.com' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('evil');
    expect(res.json().ucp.services['dev.ucp.shopping'].rest.endpoint).toBe(`http://127.0.0.1:3000/ucp/${co.slug}/2026-01-11`);
  });
});

describe('the documents a profile links to', () => {
  /** Fetches every link through the app, as the conformance suite does: 200, no redirect, JSON or HTML. */
  async function expectEveryLinkServed(a: Pick<TestApp, 'app'>, profile: Profile) {
    const links = linksOf(profile);
    expect(links.length).toBeGreaterThanOrEqual(14);
    for (const link of links) {
      expect(link.startsWith(`${ORIGIN}/ucp/`), link).toBe(true);
      const res = await get(a, link.slice(ORIGIN.length));
      expect(res.statusCode, link).toBe(200);
      expect(res.headers.location, link).toBeUndefined();
      if (link.endsWith('.json')) {
        expect(res.headers['content-type'], link).toMatch(/^application\/json/);
        expect(typeof JSON.parse(res.body), link).toBe('object');
      } else {
        expect(res.headers['content-type'], link).toMatch(/^text\/html/);
        expect(res.body.toLowerCase(), link).toContain('<!doctype html><html');
      }
    }
  }

  it('every link of the default profile answers 200 through the app', async () => {
    const co = await business();
    await expectEveryLinkServed(ctx, (await get(ctx, `/ucp/${co.slug}/2026-01-11/.well-known/ucp`)).json());
  });

  it('every link of a profile with the conformance handlers answers 200 too', async () => {
    const test = await otherApp({ UCP_TEST_HANDLERS: 'true' });
    const co = await business(test);
    await expectEveryLinkServed(test, (await get(test, `/ucp/${co.slug}/2026-01-11/.well-known/ucp`)).json());
  });

  it('points the protocol’s own documents at UCP_DOCS_BASE_URL when set, and keeps our handler’s here', async () => {
    const pointed = await otherApp({ UCP_DOCS_BASE_URL: 'https://ucp.dev/' });
    const co = await business(pointed);
    const profile = (await get(pointed, `/ucp/${co.slug}/2026-01-11/.well-known/ucp`)).json<Profile>();
    expect(profile.ucp.services['dev.ucp.shopping'].rest).toEqual({
      schema: 'https://ucp.dev/services/shopping/rest.openapi.json',
      endpoint: `${ORIGIN}/ucp/${co.slug}/2026-01-11`,
    });
    expect(profile.ucp.capabilities[0]).toMatchObject({
      spec: 'https://ucp.dev/specification/checkout',
      schema: 'https://ucp.dev/schemas/shopping/checkout.json',
    });
    expect(profile.payment.handlers[0].spec).toBe(`${ORIGIN}/ucp/${co.slug}/2026-01-11/docs/handlers/cod`);
  });
});

describe('conformance payment handlers', () => {
  it('are absent by default, and their documents are not served', async () => {
    const co = await business();
    const profile = (await get(ctx, `/ucp/${co.slug}/2026-01-11/.well-known/ucp`)).json<Profile>();
    expect(profile.payment.handlers.map((h) => h.id)).toEqual(['cod']);
    for (const doc of ['handlers/shop_pay', 'handlers/mock/config.json', 'handlers/google_pay/card_payment_instrument.json']) {
      expect((await get(ctx, `/ucp/${co.slug}/2026-01-11/docs/${doc}`)).statusCode, doc).toBe(404);
    }
  });

  it('are listed with UCP_TEST_HANDLERS=true, in the shape the suite checks', async () => {
    const test = await otherApp({ UCP_TEST_HANDLERS: 'true' });
    const co = await business(test);
    const profile = (await get(test, `/ucp/${co.slug}/2026-01-11/.well-known/ucp`)).json<Profile>();
    expect(profile.payment.handlers.map((h) => h.id)).toEqual(['cod', 'mock_payment_handler', 'google_pay', 'shop_pay']);
    const byId = Object.fromEntries(profile.payment.handlers.map((h) => [h.id, h]));
    expect(byId.shop_pay.name).toBe('com.shopify.shop_pay');
    expect(byId.shop_pay.config).toEqual({ shop_id: `${co.slug}-test-shop` });
    expect(byId.google_pay.config).toMatchObject({ merchant_info: { merchant_name: co.name } });
    for (const h of profile.payment.handlers) {
      expect(Object.keys(h).sort(), h.id).toEqual(['config', 'config_schema', 'id', 'instrument_schemas', 'name', 'spec', 'version']);
      expect(h.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });
});

describe('UCP discovery by Host', () => {
  it("serves the company's profile on a Host it registered, and a 404 on any other", async () => {
    const a = await business();
    const b = await business();
    const off = await business(ctx, false);
    const hostA = `www.${a.slug}.example.in`;
    const hostB = `www.${b.slug}.example.in`;
    const hostOff = `www.${off.slug}.example.in`;
    await ctx.services.ucpSettings.addHost(a.id, { kind: 'cli', name: 'test' }, hostA);
    await ctx.services.ucpSettings.addHost(b.id, { kind: 'cli', name: 'test' }, `${hostB}:8443`);
    await ctx.services.ucpSettings.addHost(off.id, { kind: 'cli', name: 'test' }, hostOff);

    const asHost = (host: string) => get(ctx, '/.well-known/ucp', { headers: { host } });
    // the root profile: 2026-08-25's, its service a list of bindings
    const endpointOf = (res: { json: () => { ucp: { services: Record<string, { endpoint: string }[]> } } }) =>
      res.json().ucp.services['dev.ucp.shopping'][0].endpoint;
    const ra = await asHost(hostA.toUpperCase());
    expect(ra.statusCode).toBe(200);
    expect(endpointOf(ra)).toBe(`${ORIGIN}/ucp/${a.slug}/2026-08-25`);
    expect(ra.json()).toEqual((await get(ctx, `/ucp/${a.slug}/.well-known/ucp`)).json());
    expect(endpointOf(await asHost(`${hostB}:8443`))).toBe(`${ORIGIN}/ucp/${b.slug}/2026-08-25`);

    const notFound = new Set<string>();
    for (const host of [hostB, `${hostA}.evil.example`, hostOff, 'unregistered.example.in', 'api.example.in', '127.0.0.1:3000']) {
      const res = await asHost(host);
      expect(res.statusCode, host).toBe(404);
      expect(res.body, host).not.toContain(a.slug);
      notFound.add(res.body);
    }
    expect([...notFound]).toHaveLength(1);
    expect(JSON.parse([...notFound][0])).toMatchObject({ code: 'not_found', detail: 'not found' });
  });
});

describe('UCP budgets', () => {
  it('answer 429 in UCP’s body past the per-address limit; another address is still served', async () => {
    const limited = await otherApp({ UCP_RATE_LIMIT: '3', UCP_COMPANY_RATE_LIMIT: '1000' });
    const co = await business(limited);
    const url = `/ucp/${co.slug}/.well-known/ucp`;
    for (let i = 1; i <= 3; i++) {
      const res = await get(limited, url, { remoteAddress: '10.1.1.1' });
      expect(res.statusCode, `request ${i}`).toBe(200);
      expect(String(res.headers['x-ratelimit-remaining'])).toBe(String(3 - i));
    }
    const refused = await get(limited, url, { remoteAddress: '10.1.1.1' });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.json()).toEqual({
      detail: expect.stringContaining('more than 3 requests'),
      code: 'rate_limited',
      messages: [{ type: 'error', code: 'rate_limited', content: expect.any(String), severity: 'recoverable' }],
    });
    expect((await get(limited, url, { remoteAddress: '10.1.1.2' })).statusCode).toBe(200);
    // the budget is per company too: another company's profile from the refused address is served
    const other = await business(limited);
    expect((await get(limited, `/ucp/${other.slug}/.well-known/ucp`, { remoteAddress: '10.1.1.1' })).statusCode).toBe(200);
  });

  it('answer 429 past the per-company limit, whatever the address', async () => {
    const limited = await otherApp({ UCP_RATE_LIMIT: '1000', UCP_COMPANY_RATE_LIMIT: '4' });
    const co = await business(limited);
    const url = `/ucp/${co.slug}/.well-known/ucp`;
    for (let i = 1; i <= 4; i++) expect((await get(limited, url, { remoteAddress: `10.2.0.${i}` })).statusCode, `request ${i}`).toBe(200);
    const refused = await get(limited, url, { remoteAddress: '10.2.0.99' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().detail).toContain('for this business');
  });
});

describe('the UCP scope for the operations to come', () => {
  /** The UCP scope on a bare Fastify, with a probe operation under the endpoint as checkout's routes will be. */
  async function probeApp() {
    const app = Fastify();
    registerUcpScope(
      app,
      { config: ctx.config, ucpSettings: ctx.services.ucpSettings },
      {
        byPath: (s) =>
          void s.register(
            async (endpoint) => {
              endpoint.get('/probe', { onRequest: ucpVersionCheck }, async (req) => ({ company: req.ucpBusiness.companyId, agent: req.ucpAgent }));
              endpoint.post('/probe', { onRequest: ucpVersionCheck }, async (req) => ({ body: req.body }));
              endpoint.get('/fault', async () => {
                throw new Error('connection to 10.0.0.5 refused: secret detail');
              });
            },
            { prefix: `/:slug/${UCP_VERSION}` },
          ),
        byHost: () => {},
      },
    );
    await app.ready();
    others.push({ app });
    return app;
  }

  it('refuses a platform newer than 2026-01-11 with 400 version_unsupported; ours, older or none is served', async () => {
    const app = await probeApp();
    const co = await business();
    const probe = (agent?: string) => app.inject({ url: `/ucp/${co.slug}/2026-01-11/probe`, headers: agent === undefined ? {} : { 'ucp-agent': agent } });
    const newer = await probe('profile="http://localhost:8285/profiles/shopping-agent.json"; version="2099-01-01"');
    expect(newer.statusCode).toBe(400);
    expect(newer.json()).toEqual({
      detail: 'Version 2099-01-01 is not supported. This business implements version 2026-01-11.',
      code: 'version_unsupported',
      messages: [
        {
          type: 'error',
          code: 'version_unsupported',
          content: 'Version 2099-01-01 is not supported. This business implements version 2026-01-11.',
          severity: 'recoverable',
        },
      ],
    });
    const ours = await probe('profile="http://localhost:8285/profiles/shopping-agent.json"; version="2026-01-11"');
    expect(ours.statusCode).toBe(200);
    expect(ours.json()).toEqual({
      company: co.id,
      agent: {
        profile: 'http://localhost:8285/profiles/shopping-agent.json',
        profileUrl: 'http://localhost:8285/profiles/shopping-agent.json',
        version: '2026-01-11',
      },
    });
    expect((await probe('profile="..."; version="2025-06-01"')).statusCode).toBe(200);
    expect((await probe()).statusCode).toBe(200);
    // the company comes first: a business that is off is the same 404 whatever the version
    const off = await business(ctx, false);
    const hidden = await app.inject({ url: `/ucp/${off.slug}/2026-01-11/probe`, headers: { 'ucp-agent': 'version="2099-01-01"' } });
    expect(hidden.statusCode).toBe(404);
  });

  it('answers a fault as a 500 in UCP’s body without its details, and malformed JSON as a 400', async () => {
    const app = await probeApp();
    const co = await business();
    const fault = await app.inject({ url: `/ucp/${co.slug}/2026-01-11/fault` });
    expect(fault.statusCode).toBe(500);
    expect(fault.body).not.toContain('secret');
    expect(fault.body).not.toContain('10.0.0.5');
    expect(fault.json()).toMatchObject({
      code: 'internal',
      detail: expect.any(String),
      messages: [{ type: 'error', code: 'internal', severity: 'recoverable' }],
    });
    const bad = await app.inject({
      method: 'POST',
      url: `/ucp/${co.slug}/2026-01-11/probe`,
      headers: { 'content-type': 'application/json' },
      payload: '{"line_items": [',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'validation_failed', detail: expect.stringContaining('not valid JSON') });
    // the version is refused before the body is read
    const newer = await app.inject({
      method: 'POST',
      url: `/ucp/${co.slug}/2026-01-11/probe`,
      headers: { 'content-type': 'application/json', 'ucp-agent': 'profile="..."; version="2099-01-01"' },
      payload: '{"line_items": [',
    });
    expect(newer.statusCode).toBe(400);
    expect(newer.json().code).toBe('version_unsupported');
  });
});
