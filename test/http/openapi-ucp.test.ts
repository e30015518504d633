import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, useTestApp } from '../helpers/app.js';
import { shop, uid } from '../helpers/orders.js';

/**
 * The public UCP surface in the OpenAPI document (src/http/openapi.ucp.ts): every public route the app registers is
 * there (the conformance harness is not), with its words, tag UCP, no security and the server's root as its server;
 * the documented request schemas take the bodies docs/ucp.md shows (which the routes take), and the documented
 * response schemas fit what the routes really answer.
 */

const BASE = '/api/v1/commerce';
const E = '/ucp/{slug}/2026-01-11';
const ctx = useTestApp();

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: object }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: object }>; headers?: Record<string, unknown> }>;
}
type PathItem = Record<string, Operation> & { servers?: { url: string }[] };
let doc: { paths: Record<string, PathItem>; tags: { name: string }[] };

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);

/** `GET /ucp/:slug/x` → `GET /ucp/{slug}/x`, as the document writes paths. */
const asDocPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Every route the app registered, as `METHOD /url` (HEAD left out), read from Fastify's route tree. */
function registeredRoutes(app: FastifyInstance): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + m[2];
    stack[depth] = path;
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim())) if (method && method !== 'HEAD') out.push(`${method} ${path}`);
  }
  return out;
}
const isUcp = (route: string) => {
  const url = route.split(' ')[1];
  return url.startsWith('/ucp/') || url === '/.well-known/ucp';
};

/** The schema the document gives a response of an operation. */
function responseSchema(method: string, path: string, status: number): object {
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${path} is not in the document`);
  const response = op.responses[String(status)];
  if (!response) throw new Error(`${method} ${path} answered ${status}, which the document does not list`);
  return response.content!['application/json'].schema;
}

/** Asserts a real answer fits the document for its operation and status; returns its body. */
function expectDocumented(method: string, path: string, res: { statusCode: number; body: string }) {
  const validate = ajv.compile(responseSchema(method, path, res.statusCode));
  const body = JSON.parse(res.body);
  expect(validate(body) ? [] : validate.errors, `${method} ${path} ${res.statusCode}: ${res.body.slice(0, 300)}`).toEqual([]);
  return body;
}

beforeAll(async () => {
  const res = await ctx.app.inject({ method: 'GET', url: `${BASE}/openapi.json` });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});

/** The error statuses each documented UCP operation lists. */
const STATUSES: Record<string, number[]> = {
  'get /ucp/{slug}/.well-known/ucp': [200, 404, 429, 500, 503],
  [`get ${E}/.well-known/ucp`]: [200, 404, 429, 500, 503],
  'get /.well-known/ucp': [200, 404, 429, 500, 503],
  [`post ${E}/checkout-sessions`]: [201, 400, 404, 409, 413, 415, 429, 500, 503],
  [`get ${E}/checkout-sessions/{id}`]: [200, 400, 404, 429, 500, 503],
  [`put ${E}/checkout-sessions/{id}`]: [200, 400, 404, 409, 413, 415, 429, 500, 503],
  [`post ${E}/checkout-sessions/{id}/complete`]: [200, 400, 402, 404, 409, 413, 415, 429, 500, 503],
  [`post ${E}/checkout-sessions/{id}/cancel`]: [200, 400, 404, 409, 413, 415, 429, 500, 503],
  [`get ${E}/orders/{id}`]: [200, 400, 404, 429, 500, 503],
  'get /ucp/{slug}/orders/{id}': [200, 400, 404, 429, 500, 503],
  'get /ucp/{slug}/pay/{id}': [200, 404, 429, 500, 503],
};

describe('the UCP surface in the OpenAPI document', () => {
  it('documents every public UCP route the app registers, and nothing else of the surface', () => {
    const routes = registeredRoutes(ctx.app).filter(isUcp);
    // the docs route serves the profile's linked documents (a wildcard path): not an operation; the newer versions'
    // endpoints serve the same operations in their shapes, documented by the root profile's words and docs/ucp.md
    const newer = routes.filter((r) => /^\S+ \/ucp\/:slug\/\d{4}-\d{2}-\d{2}\//.test(r) && !r.includes('/2026-01-11/'));
    expect(newer.length).toBeGreaterThanOrEqual(7);
    const operations = routes.filter((r) => !r.includes('/docs/') && !newer.includes(r));
    const documented = Object.entries(doc.paths)
      // the keyed API's /ucp/settings and /ucp/hosts are relative to the base path; every public path is under /ucp/{slug}/
      .filter(([path]) => path.startsWith('/ucp/{slug}/') || path === '/.well-known/ucp')
      .flatMap(([path, item]) => Object.keys(item).flatMap((m) => (m === 'servers' ? [] : [`${m.toUpperCase()} ${path}`])));
    expect(operations.length).toBeGreaterThanOrEqual(11);
    expect(documented.sort()).toEqual(operations.map((r) => `${r.split(' ')[0]} ${asDocPath(r.split(' ')[1])}`).sort());
    expect(Object.keys(STATUSES).sort()).toEqual(documented.map((r) => `${r.split(' ')[0].toLowerCase()} ${r.split(' ')[1]}`).sort());
  });

  it('gives each UCP operation its words, tag UCP, no security, the server root and the statuses the route answers', () => {
    expect(doc.tags.map((t) => t.name)).toContain('UCP');
    const ids = new Set<string>();
    for (const [key, statuses] of Object.entries(STATUSES)) {
      const [method, path] = key.split(' ');
      const item = doc.paths[path];
      const op = item[method];
      expect(op.summary, key).toBeTruthy();
      expect(op.description, key).toBeTruthy();
      expect(op.tags, key).toEqual(['UCP']);
      expect(op.security, key).toEqual([]);
      expect(item.servers, key).toEqual([expect.objectContaining({ url: '/' })]);
      expect(ids.has(op.operationId!), `${key}: operationId ${op.operationId} used twice`).toBe(false);
      ids.add(op.operationId!);
      expect(Object.keys(op.responses).map(Number).sort(), key).toEqual(statuses);
      const names = (op.parameters ?? []).map((p) => `${p.in} ${p.name}`);
      if (path.includes('{slug}')) expect(names, key).toContain('path slug');
      if (path.includes('{id}')) expect(names, key).toContain('path id');
      if (path.startsWith(E) && !path.endsWith('/.well-known/ucp'))
        expect(names, key).toEqual(expect.arrayContaining(['header UCP-Agent', 'header Request-Id']));
      if (method !== 'get') expect(names, key).toContain('header Idempotency-Key');
      else expect(names, key).not.toContain('header Idempotency-Key');
      for (const [status, response] of Object.entries(op.responses)) {
        expect(response.description, `${key} ${status}`).toBeTruthy();
        if (Number(status) >= 400) {
          const schema = response.content!['application/json'].schema as { required?: string[] };
          expect(schema.required, `${key} ${status}: UCP's error body`).toEqual(['detail', 'code', 'messages']);
        }
      }
      expect(op.responses['429'].headers?.['retry-after'], key).toBeDefined();
    }
    expect(doc.paths['/ucp/{slug}/pay/{id}'].get.responses['200'].content).toHaveProperty('text/html');
    // the keyed API's UCP settings stay on the document's server (the base path), with the key
    for (const path of ['/ucp/settings', '/ucp/hosts', '/ucp/hosts/{host}']) {
      expect(doc.paths[path].servers, path).toBeUndefined();
      for (const op of Object.values(doc.paths[path])) expect((op as Operation).security, path).toBeUndefined();
    }
  });

  it('lists the codes the checkout operations refuse with', () => {
    const codes = (method: string, path: string, status: number) =>
      (responseSchema(method, path, status) as { properties: { code: { enum?: string[]; const?: string } } }).properties.code;
    const complete = `${E}/checkout-sessions/{id}/complete`;
    expect(codes('POST', complete, 400).enum).toEqual(expect.arrayContaining(['invalid_request', 'missing', 'invalid_address', 'invalid_payment']));
    expect(codes('POST', complete, 402)).toMatchObject({ enum: ['payment_declined'] });
    expect(codes('POST', complete, 409).enum).toEqual(
      expect.arrayContaining(['checkout_not_modifiable', 'checkout_expired', 'checkout_changed', 'out_of_stock', 'idempotency_conflict']),
    );
    expect(codes('POST', `${E}/checkout-sessions`, 404)).toMatchObject({ enum: ['not_found'] });
    expect(codes('POST', `${E}/checkout-sessions`, 429)).toMatchObject({ enum: ['rate_limited'] });
  });

  it('leaves the conformance harness out when it exists', async () => {
    const withHarness = await buildTestApp(ctx.db, { UCP_SIMULATION_SECRET: 'harness-secret-0123456789' });
    try {
      const routes = registeredRoutes(withHarness.app);
      expect(routes).toEqual(expect.arrayContaining(['POST /ucp/:slug/testing/simulate-shipping/:id', 'PUT /ucp/:slug/orders/:id']));
      const harnessDoc = (await withHarness.app.inject({ url: `${BASE}/openapi.json` })).json<typeof doc>();
      expect(Object.keys(harnessDoc.paths).filter((p) => p.includes('testing'))).toEqual([]);
      expect(Object.keys(harnessDoc.paths['/ucp/{slug}/orders/{id}'])).toEqual(['servers', 'get']);
      expect(Object.keys(harnessDoc.paths[`${E}/orders/{id}`])).toEqual(['servers', 'get']);
    } finally {
      await withHarness.app.close();
    }
  });
});

describe('real UCP requests and answers match the document', () => {
  // docs/ucp.md's example, as written there
  const createExample = {
    line_items: [{ item: { id: 'CHAI-250' }, quantity: 2 }],
    buyer: { first_name: 'Asha', last_name: 'Rao', phone_number: '+91 98765 43210' },
    discounts: { codes: ['DIWALI10'] },
    fulfillment: {
      methods: [
        {
          type: 'shipping',
          destinations: [
            {
              id: 'home',
              street_address: '12 MG Road',
              address_locality: 'Bengaluru',
              address_region: 'Karnataka',
              postal_code: '560038',
              address_country: 'IN',
            },
          ],
          selected_destination_id: 'home',
          groups: [{ selected_option_id: 'std' }],
        },
      ],
    },
  };
  const completeExample = { payment_data: { id: 'instr_1', handler_id: 'cod' } };
  const requestSchema = (method: string, path: string) => doc.paths[path][method].requestBody!.content['application/json'].schema;

  let slug: string;
  const url = (p: string) => `/ucp/${slug}/2026-01-11${p}`;
  const send = (method: 'GET' | 'POST' | 'PUT', target: string, payload?: unknown, headers: Record<string, string> = {}) =>
    ctx.app.inject({
      method,
      url: target,
      headers: {
        'ucp-agent': 'profile="https://agent.example/profile.json"',
        ...(method === 'GET' ? {} : { 'idempotency-key': uid() }),
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(payload !== undefined ? { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) } : {}),
    });

  beforeAll(async () => {
    const s = await shop(ctx, [{ sku: 'CHAI', name: 'Masala Chai', variants: [{ sku: 'CHAI-250', name: '250 g', selling_price: '240.00', stock: '20' }] }], {
      company: { slug: `doc-${uid()}` },
    });
    slug = s.company.slug;
    await ctx.services.ucpSettings.set(s.companyId, { kind: 'cli', name: 'test' }, { enabled: true });
    await ctx.services.shippingRates.create(
      s.companyId,
      { kind: 'cli', name: 'test' },
      { id: 'std', title: 'Standard', level: 'standard', zone_kind: 'everywhere', price: '49.00' },
    );
    await ctx.services.discountCodes.create(
      s.companyId,
      { kind: 'cli', name: 'test' },
      { code: 'DIWALI10', title: '10% off', kind: 'percentage', value: '10' },
    );
  });

  it("the documented request schemas take docs/ucp.md's bodies, and so do the routes", async () => {
    for (const [method, path, body] of [
      ['post', `${E}/checkout-sessions`, createExample],
      ['put', `${E}/checkout-sessions/{id}`, createExample],
      ['post', `${E}/checkout-sessions/{id}/complete`, completeExample],
    ] as const) {
      expect(ajv.validate(requestSchema(method, path), body), `${method} ${path}: ${JSON.stringify(ajv.errors)}`).toBe(true);
    }
    expect(ajv.validate(requestSchema('post', `${E}/checkout-sessions`), { line_items: [] }), 'an empty cart is refused').toBe(false);
    expect(ajv.validate(requestSchema('post', `${E}/checkout-sessions/{id}/complete`), {}), 'payment_data is required').toBe(false);

    const created = await send('POST', url('/checkout-sessions'), createExample);
    expect(created.statusCode).toBe(201);
    const checkout = expectDocumented('POST', `${E}/checkout-sessions`, created);
    expect(checkout.status).toBe('ready_for_complete');

    const read = await send('GET', url(`/checkout-sessions/${checkout.id}`));
    expect(read.statusCode).toBe(200);
    expectDocumented('GET', `${E}/checkout-sessions/{id}`, read);
    const updated = await send('PUT', url(`/checkout-sessions/${checkout.id}`), createExample);
    expect(updated.statusCode).toBe(200);
    expectDocumented('PUT', `${E}/checkout-sessions/{id}`, updated);

    const completed = await send('POST', url(`/checkout-sessions/${checkout.id}/complete`), completeExample);
    expect(completed.statusCode).toBe(200);
    const done = expectDocumented('POST', `${E}/checkout-sessions/{id}/complete`, completed);
    expect(done.status).toBe('completed');

    for (const [target, path] of [
      [url(`/orders/${done.order.id}`), `${E}/orders/{id}`],
      [`/ucp/${slug}/orders/${done.order.id}`, '/ucp/{slug}/orders/{id}'],
    ]) {
      const order = await send('GET', target);
      expect(order.statusCode, target).toBe(200);
      expect(expectDocumented('GET', path, order).checkout_id).toBe(checkout.id);
    }

    // refusals: a completed checkout cannot be changed, completed again or canceled
    const again = await send('PUT', url(`/checkout-sessions/${checkout.id}`), createExample);
    expect(again.statusCode).toBe(409);
    expectDocumented('PUT', `${E}/checkout-sessions/{id}`, again);
    const cancelDone = await send('POST', url(`/checkout-sessions/${checkout.id}/cancel`));
    expect(cancelDone.statusCode).toBe(409);
    expect(expectDocumented('POST', `${E}/checkout-sessions/{id}/cancel`, cancelDone).code).toBe('checkout_not_modifiable');
  });

  it('cancel 200; 400, 404, 409 idempotency_conflict and 415 in UCP’s error body as documented', async () => {
    const created = await send('POST', url('/checkout-sessions'), createExample);
    const { id } = JSON.parse(created.body) as { id: string };
    const canceled = await send('POST', url(`/checkout-sessions/${id}/cancel`));
    expect(canceled.statusCode).toBe(200);
    expect(expectDocumented('POST', `${E}/checkout-sessions/{id}/cancel`, canceled).status).toBe('canceled');

    const create = `${E}/checkout-sessions`;
    const cases: [string, string, Promise<{ statusCode: number; body: string }>, number, string][] = [
      ['POST', create, send('POST', url('/checkout-sessions'), { line_items: [] }), 400, 'invalid_request'],
      ['POST', create, send('POST', url('/checkout-sessions'), '{"line_items":'), 400, 'validation_failed'],
      [
        'POST',
        create,
        send('POST', url('/checkout-sessions'), createExample, { 'ucp-agent': 'profile="x"; version="2099-01-01"' }),
        400,
        'version_unsupported',
      ],
      ['POST', create, send('POST', url('/checkout-sessions'), { line_items: [{ item: { id: 'NO-SUCH' }, quantity: 1 }] }), 400, 'not_found'],
      ['POST', create, send('POST', url('/checkout-sessions'), 'hello', { 'content-type': 'text/plain' }), 415, 'validation_failed'],
      ['POST', create, send('POST', `/ucp/no-such-${uid()}/2026-01-11/checkout-sessions`, createExample), 404, 'not_found'],
      ['GET', `${E}/checkout-sessions/{id}`, send('GET', url('/checkout-sessions/chk_nope')), 404, 'not_found'],
      ['GET', `${E}/orders/{id}`, send('GET', url('/orders/ord_nope')), 404, 'not_found'],
      ['GET', `${E}/.well-known/ucp`, send('GET', `/ucp/no-such-${uid()}/2026-01-11/.well-known/ucp`), 404, 'not_found'],
      ['POST', `${E}/checkout-sessions/{id}/complete`, send('POST', url(`/checkout-sessions/${id}/complete`), {}), 400, 'invalid_request'],
    ];
    for (const [method, path, res, status, code] of cases) {
      const r = await res;
      expect(r.statusCode, `${method} ${path} ${r.body}`).toBe(status);
      expect(expectDocumented(method, path, r).code).toBe(code);
    }

    const key = uid();
    const first = await send('POST', url('/checkout-sessions'), createExample, { 'idempotency-key': key });
    expect(first.statusCode).toBe(201);
    const conflict = await send('POST', url('/checkout-sessions'), { ...createExample, discounts: { codes: [] } }, { 'idempotency-key': key });
    expect(conflict.statusCode).toBe(409);
    expect(expectDocumented('POST', create, conflict).code).toBe('idempotency_conflict');
  });

  it('completion refusals: 400 missing and invalid_payment, 402 payment_declined', async () => {
    const complete = `${E}/checkout-sessions/{id}/complete`;
    const bare = JSON.parse((await send('POST', url('/checkout-sessions'), { line_items: [{ item: { id: 'CHAI-250' }, quantity: 1 }] })).body) as {
      id: string;
    };
    const missing = await send('POST', url(`/checkout-sessions/${bare.id}/complete`), completeExample);
    expect(missing.statusCode).toBe(400);
    expect(expectDocumented('POST', complete, missing).code).toBe('missing');
    const ready = JSON.parse((await send('POST', url('/checkout-sessions'), createExample)).body) as { id: string };
    const badHandler = await send('POST', url(`/checkout-sessions/${ready.id}/complete`), { payment_data: { id: 'instr_1', handler_id: 'no_such_handler' } });
    expect(badHandler.statusCode).toBe(400);
    expect(expectDocumented('POST', complete, badHandler).code).toBe('invalid_payment');

    // the conformance suite's card handler declines any token but its success token
    const withTestHandlers = await buildTestApp(ctx.db, { UCP_TEST_HANDLERS: 'true' });
    try {
      const declined = await withTestHandlers.app.inject({
        method: 'POST',
        url: url(`/checkout-sessions/${ready.id}/complete`),
        headers: { 'content-type': 'application/json', 'idempotency-key': uid() },
        payload: JSON.stringify({
          payment_data: { id: 'instr_1', handler_id: 'mock_payment_handler', type: 'card', credential: { type: 'token', token: 'fail_token' } },
        }),
      });
      expect(declined.statusCode).toBe(402);
      expect(expectDocumented('POST', complete, declined).code).toBe('payment_declined');
    } finally {
      await withTestHandlers.app.close();
    }
  });

  it('the profile at the root, under the endpoint and on a registered host', async () => {
    for (const [target, path] of [
      [`/ucp/${slug}/.well-known/ucp`, '/ucp/{slug}/.well-known/ucp'],
      [url('/.well-known/ucp'), `${E}/.well-known/ucp`],
    ]) {
      const res = await send('GET', target);
      expect(res.statusCode, target).toBe(200);
      expectDocumented('GET', path, res);
    }
    const host = `doc-${uid()}.example.in`;
    const business = await ctx.services.ucpSettings.bySlug(slug);
    await ctx.services.ucpSettings.addHost(business!.companyId, { kind: 'cli', name: 'test' }, host);
    const byHost = await ctx.app.inject({ method: 'GET', url: '/.well-known/ucp', headers: { host } });
    expect(byHost.statusCode).toBe(200);
    expectDocumented('GET', '/.well-known/ucp', byHost);
    const unknownHost = await ctx.app.inject({ method: 'GET', url: '/.well-known/ucp', headers: { host: `nobody-${uid()}.example.in` } });
    expect(unknownHost.statusCode).toBe(404);
    expectDocumented('GET', '/.well-known/ucp', unknownHost);
  });

  it('429 past the UCP budget', async () => {
    const limited = await buildTestApp(ctx.db, { UCP_RATE_LIMIT: '1' });
    try {
      const target = `/ucp/${slug}/2026-01-11/checkout-sessions/chk_nope`;
      await limited.app.inject({ method: 'GET', url: target });
      const res = await limited.app.inject({ method: 'GET', url: target });
      expect(res.statusCode).toBe(429);
      expect(res.headers['retry-after']).toBeDefined();
      expectDocumented('GET', `${E}/checkout-sessions/{id}`, res);
    } finally {
      await limited.app.close();
    }
  });
});
