import { randomBytes } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorCatalogue, wireCode, type ErrorKind } from '../../src/contract/errors.js';
import { kindsAt, type ErrorStatus } from '../../src/contract/error-responses.js';
import { buildTestApp, useTestApp } from '../helpers/app.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';

const BASE = '/api/v1/commerce';
const ctx = useTestApp();
const uid = () => randomBytes(4).toString('hex');

/** The parts of the OpenAPI 3.1 document these tests read (the validator checks the whole document). */
interface SchemaObject {
  anyOf?: SchemaObject[];
  properties?: Record<string, SchemaObject>;
  enum?: unknown[];
  maxLength?: number;
  [keyword: string]: unknown;
}
interface MediaObject {
  schema: SchemaObject;
  example?: unknown;
}
interface ResponseObject {
  description: string;
  content: Record<string, MediaObject>;
  headers?: Record<string, unknown>;
}
interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  schema: SchemaObject;
}
interface OperationObject {
  summary?: string;
  tags?: string[];
  parameters: ParameterObject[];
  requestBody: { content: Record<string, MediaObject> };
  responses: Record<string, ResponseObject>;
}
interface OpenApiDocument {
  openapi: string;
  servers: unknown[];
  paths: Record<string, Record<string, OperationObject>>;
  components: { securitySchemes: Record<string, unknown> };
  security: unknown[];
  [field: string]: unknown;
}

let doc: OpenApiDocument;
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);

/** The document's schema for one route and status, or a failure naming what is undocumented. */
function responseSchema(method: string, path: string, status: number): SchemaObject {
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${path} is not in the document`);
  const response = op.responses[String(status)];
  if (!response) throw new Error(`${method} ${path} answered ${status}, which the document does not list`);
  return response.content?.['application/json']?.schema;
}

/** Asserts a real response matches the document for its route and status. */
function expectDocumented(method: string, path: string, res: { statusCode: number; body: string }) {
  const schema = responseSchema(method, path, res.statusCode);
  const validate = ajv.compile(schema);
  const body = JSON.parse(res.body);
  const ok = validate(body);
  expect(ok ? [] : validate.errors, `${method} ${path} ${res.statusCode}: ${res.body.slice(0, 300)}`).toEqual([]);
  return body;
}

beforeAll(async () => {
  const res = await ctx.app.inject({ method: 'GET', url: `${BASE}/openapi.json` });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});

describe('OpenAPI document', () => {
  it('is served without a key and is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('is not rate limited', async () => {
    const limited = await buildTestApp(ctx.db, { RATE_LIMIT_MAX: '1' });
    try {
      for (let i = 0; i < 3; i++) expect((await limited.app.inject({ url: `${BASE}/openapi.json` })).statusCode).toBe(200);
    } finally {
      await limited.app.close();
    }
  });

  it('lists every API endpoint relative to the base path, and no ops or docs routes', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: BASE })]);
    // The public UCP paths are absolute, on a server of their own (test/http/openapi-ucp.test.ts); the API's are the rest.
    const api = Object.keys(doc.paths).filter((path) => !(doc.paths[path] as { servers?: unknown }).servers);
    expect(
      Object.keys(doc.paths)
        .filter((path) => !api.includes(path))
        .every((path) => path.startsWith('/ucp/{slug}/') || path === '/.well-known/ucp'),
    ).toBe(true);
    expect(api.sort()).toEqual(
      [
        '/catalog/categories',
        '/catalog/products',
        '/catalog/products/{id}',
        '/catalog/stock',
        '/customers',
        '/customers/messaging-opt-out',
        '/customers/consents',
        '/mcp',
        '/orders',
        '/orders/{reference}',
        '/orders/{reference}/cod-confirmation',
        '/orders/{reference}/payment-link',
        '/orders/{reference}/whatsapp-messages',
        '/webhooks',
        '/webhooks/{id}',
        '/ucp/settings',
        '/ucp/hosts',
        '/ucp/hosts/{host}',
        '/cod/settings',
        '/cod/availability',
        '/privacy/customer-data',
        '/privacy/corrections',
        '/privacy/erasures',
        '/audit',
        '/privacy/settings',
      ].sort(),
    );
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === 'servers') continue;
        expect(op.summary, `${method} ${path}: describe it in src/http/openapi.operations.ts`).toBeTruthy();
        expect(op.tags?.length, `${method} ${path} tags`).toBe(1);
      }
    }
  });

  it('declares both key schemes and requires one of them everywhere', () => {
    expect(doc.components.securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-KEY' }),
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    expect(doc.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
  });

  it('lists every error status each route answers, with the codes of the error catalogue', () => {
    const expected: Record<string, number[]> = {
      'get /catalog/products': [400, 401, 403, 429, 500, 503],
      'get /catalog/products/{id}': [400, 401, 403, 404, 429, 500, 503],
      'get /catalog/categories': [401, 403, 429, 500, 503],
      'post /orders': [400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503],
      'get /orders/{reference}': [400, 401, 403, 404, 429, 500, 503],
      'post /orders/{reference}/cod-confirmation': [400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503],
      'get /customers': [400, 401, 403, 404, 429, 500, 503],
      'post /mcp': [400, 401, 403, 413, 415, 429, 500, 503],
      'put /customers/messaging-opt-out': [400, 401, 403, 404, 413, 415, 429, 500, 503],
      'post /customers/consents': [400, 401, 403, 404, 413, 415, 429, 500, 503],
      'post /webhooks': [400, 401, 403, 413, 415, 422, 429, 500, 503],
      'get /webhooks': [401, 403, 429, 500, 503],
      'delete /webhooks/{id}': [400, 401, 403, 404, 429, 500, 503],
      'put /catalog/stock': [400, 401, 403, 413, 415, 429, 500, 503],
      'get /ucp/settings': [401, 403, 429, 500, 503],
      'put /ucp/settings': [400, 401, 403, 413, 415, 429, 500, 503],
      'get /ucp/hosts': [401, 403, 429, 500, 503],
      'post /ucp/hosts': [400, 401, 403, 409, 413, 415, 429, 500, 503],
      'delete /ucp/hosts/{host}': [400, 401, 403, 404, 429, 500, 503],
    };
    // where a status has several codes, the one each route answers
    const chosen: Record<string, ErrorKind[]> = {
      'post /orders': ['insufficient_stock'],
      'post /orders/{reference}/cod-confirmation': ['conflict'],
      'post /ucp/hosts': ['conflict'],
    };
    for (const [key, statuses] of Object.entries(expected)) {
      const [method, path] = key.split(' ');
      const responses = doc.paths[path][method].responses;
      expect(
        Object.keys(responses)
          .map(Number)
          .filter((s) => s >= 400)
          .sort(),
        key,
      ).toEqual(statuses);
      for (const status of statuses) {
        const kinds = kindsAt(status as ErrorStatus, chosen[key]);
        const schema = responses[status].content['application/json'].schema;
        const errorSchema = schema.anyOf ? schema.anyOf[0] : schema;
        expect(errorSchema.properties?.error.properties?.code.enum, `${key} ${status}`).toEqual([...new Set(kinds.map(wireCode))]);
        expect(responses[status].description, `${key} ${status}`).toEqual(
          status === 400 && path === '/mcp' ? expect.any(String) : kinds.map((k) => errorCatalogue[k].description).join('; '),
        );
      }
    }
    expect(doc.paths['/orders'].post.responses['429'].headers?.['retry-after']).toBeDefined();
  });

  it('documents parameter bounds', () => {
    const params = Object.fromEntries(doc.paths['/catalog/products'].get.parameters.map((p) => [p.name, p]));
    expect(params.limit.schema.anyOf?.[0]).toMatchObject({ type: 'integer', minimum: 1, maximum: 50 });
    expect(params.offset.schema.anyOf?.[0]).toMatchObject({ minimum: 0, maximum: 10000 });
    expect(params.search.schema.maxLength).toBe(100);
    const detail = doc.paths['/catalog/products/{id}'].get.parameters[0];
    expect(detail).toMatchObject({ in: 'path', name: 'id', required: true, schema: { maxLength: 64 } });
    const body = doc.paths['/orders'].post.requestBody.content['application/json'].schema;
    expect(body.properties?.items).toMatchObject({ minItems: 1, maxItems: 50 });
    expect(body.properties?.external_reference).toMatchObject({ minLength: 1, maxLength: 100 });
  });

  it('has examples for POST /orders that match its own schemas', () => {
    const op = doc.paths['/orders'].post;
    const request = op.requestBody.content['application/json'];
    expect(request.example).toBeDefined();
    expect(ajv.validate(request.schema, request.example), JSON.stringify(ajv.errors)).toBe(true);
    for (const status of ['201', '200', '400', '404', '409']) {
      const media = op.responses[status].content['application/json'];
      expect(media.example, `example for ${status}`).toBeDefined();
      expect(ajv.validate(media.schema, media.example), `${status}: ${JSON.stringify(ajv.errors)}`).toBe(true);
    }
  });
});

describe('real responses match the document', () => {
  let headers: Record<string, string>;
  let sku: string;
  let productSku: string;

  beforeAll(async () => {
    const co = await createCompanyWithKey(ctx.services);
    headers = co.headers;
    await addLocations(ctx.db, co.company.id);
    productSku = `TEE-${uid()}`;
    sku = `${productSku}-M`;
    const catId = `cat_${uid()}`;
    await ctx.db.query(
      sql`INSERT INTO categories (company_id, id, parent_id, name, slug) VALUES (${co.company.id}, ${catId}, ${null}, 'Tees', ${`tees-${uid()}`})`,
    );
    await addProduct(ctx.db, co.company.id, {
      sku: productSku,
      name: 'Cotton Tee',
      description: 'Soft',
      category_id: catId,
      variants: [
        { sku, attributes: { Size: 'M' }, selling_price: '499.00', mrp: '599.00', barcode: `89${Date.now()}`.slice(0, 13), stock: { WH: '5', STORE: '2' } },
        { sku: `${productSku}-L`, attributes: { Size: 'L' }, selling_price: '499.00', stock: '0' },
      ],
    });
  });

  const get = (url: string, h: Record<string, string> = headers) => ctx.app.inject({ method: 'GET', url: `${BASE}${url}`, headers: h });
  const postOrder = (body: unknown, h: Record<string, string> = headers) =>
    ctx.app.inject({ method: 'POST', url: `${BASE}/orders`, headers: h, payload: body as object });
  const order = (overrides: Record<string, unknown> = {}) => ({
    customer: { name: 'Asha Rao', phone: '+91 98765 43210', email: 'asha@example.com' },
    items: [{ product_id: sku, quantity: 1 }],
    external_reference: `ext-${uid()}`,
    delivery_address: { line1: '12 MG Road', city: 'Bengaluru', pincode: '560038' },
    payment: 'cod',
    ...overrides,
  });

  it('browse 200 and 400', async () => {
    const ok = await get('/catalog/products?in_stock=true&limit=5');
    expect(ok.statusCode).toBe(200);
    expect(expectDocumented('GET', '/catalog/products', ok).data).toHaveLength(1);
    const bad = await get('/catalog/products?limit=500');
    expect(bad.statusCode).toBe(400);
    expectDocumented('GET', '/catalog/products', bad);
  });

  it('product detail 200 and 404, categories 200', async () => {
    const ok = await get(`/catalog/products/${sku}`);
    expect(ok.statusCode).toBe(200);
    expectDocumented('GET', '/catalog/products/{id}', ok);
    const missing = await get('/catalog/products/NO-SUCH-SKU');
    expect(missing.statusCode).toBe(404);
    expectDocumented('GET', '/catalog/products/{id}', missing);
    const cats = await get('/catalog/categories');
    expect(cats.statusCode).toBe(200);
    expect(expectDocumented('GET', '/catalog/categories', cats).data.categories).toHaveLength(1);
  });

  it('POST /orders 201, 200 duplicate, 400, 404, 409, 413, 415, 422', async () => {
    const body = order();
    const created = await postOrder(body);
    expect(created.statusCode).toBe(201);
    expectDocumented('POST', '/orders', created);
    const duplicate = await postOrder(body);
    expect(duplicate.statusCode).toBe(200);
    expect(expectDocumented('POST', '/orders', duplicate).duplicate).toBe(true);

    const invalid = await postOrder(order({ customer: { name: '', phone: '12' }, items: [{ product_id: sku, quantity: 0 }] }));
    expect(invalid.statusCode).toBe(400);
    expect(expectDocumented('POST', '/orders', invalid).error.details.length).toBeGreaterThan(1);
    const unknown = await postOrder(order({ items: [{ product_id: 'NO-SUCH-SKU', quantity: 1 }] }));
    expect(unknown.statusCode).toBe(404);
    expectDocumented('POST', '/orders', unknown);
    const short = await postOrder(order({ items: [{ product_id: sku, quantity: 500 }] }));
    expect(short.statusCode).toBe(409);
    expectDocumented('POST', '/orders', short);

    const tooLarge = await postOrder(order({ notes: 'x'.repeat(40 * 1024) }));
    expect(tooLarge.statusCode).toBe(413);
    expectDocumented('POST', '/orders', tooLarge);
    const notJson = await ctx.app.inject({ method: 'POST', url: `${BASE}/orders`, headers: { ...headers, 'content-type': 'text/plain' }, payload: 'hello' });
    expect(notJson.statusCode).toBe(415);
    expectDocumented('POST', '/orders', notJson);

    const closed = await createCompanyWithKey(ctx.services);
    await addLocations(ctx.db, closed.company.id, { whActive: false, storeActive: false });
    await addProduct(ctx.db, closed.company.id, { sku: 'CAP', name: 'Cap', variants: [{ sku: 'CAP-1', selling_price: '199.00', stock: '3' }] });
    const unprocessable = await postOrder(order({ items: [{ product_id: 'CAP-1', quantity: 1 }] }), closed.headers);
    expect(unprocessable.statusCode).toBe(422);
    expectDocumented('POST', '/orders', unprocessable);
  });

  it('order lookup 200 and 404; customers 200, 400 and 404', async () => {
    const body = order({ customer: { name: 'Ravi Kumar', phone: '98450 12345' } });
    const created = JSON.parse((await postOrder(body)).body);
    const found = await get(`/orders/${created.data.order_number}?phone=${encodeURIComponent('+919845012345')}`);
    expect(found.statusCode).toBe(200);
    expectDocumented('GET', '/orders/{reference}', found);
    const missing = await get('/orders/ORD-0');
    expect(missing.statusCode).toBe(404);
    expectDocumented('GET', '/orders/{reference}', missing);

    const customer = await get(`/customers?phone=${encodeURIComponent('098450 12345')}&recent_orders=3`);
    expect(customer.statusCode).toBe(200);
    expect(expectDocumented('GET', '/customers', customer).data.recent_orders).toHaveLength(1);
    const bad = await get('/customers?phone=1');
    expect(bad.statusCode).toBe(400);
    expectDocumented('GET', '/customers', bad);
    const none = await get('/customers?phone=9000000001');
    expect(none.statusCode).toBe(404);
    expectDocumented('GET', '/customers', none);
  });

  it('UCP settings and hosts: 200, 201, 400, 403, 404 and 409 as documented', async () => {
    const one = await createCompanyWithKey(ctx.services);
    const two = await createCompanyWithKey(ctx.services);
    const key = (co: typeof one) =>
      ctx.services.keys.create(co.company.id, { kind: 'cli', name: 'test' }, 'ucp', ['ucp']).then((k) => ({ 'x-api-key': k.key }));
    const [k1, k2] = [await key(one), await key(two)];
    const send = (method: 'PUT' | 'POST' | 'DELETE', url: string, h: Record<string, string>, payload?: object) =>
      ctx.app.inject({ method, url: `${BASE}${url}`, headers: h, ...(payload ? { payload } : {}) });
    const host = `doc-${uid()}.example.in`;
    const cases: [string, string, number, Promise<{ statusCode: number; body: string }>][] = [
      ['GET', '/ucp/settings', 200, get('/ucp/settings', k1)],
      ['GET', '/ucp/settings', 403, get('/ucp/settings', one.headers)],
      ['PUT', '/ucp/settings', 200, send('PUT', '/ucp/settings', k1, { enabled: true, hold_minutes: 45 })],
      ['PUT', '/ucp/settings', 400, send('PUT', '/ucp/settings', k1, { hold_minutes: 0 })],
      ['GET', '/ucp/hosts', 200, get('/ucp/hosts', k1)],
    ];
    for (const [method, path, status, res] of cases) {
      const r = await res;
      expect(r.statusCode, `${method} ${path}`).toBe(status);
      expectDocumented(method, path, r);
    }
    const added = await send('POST', '/ucp/hosts', k1, { host });
    expect(added.statusCode).toBe(201);
    expectDocumented('POST', '/ucp/hosts', added);
    const clash = await send('POST', '/ucp/hosts', k2, { host });
    expect(clash.statusCode).toBe(409);
    expectDocumented('POST', '/ucp/hosts', clash);
    const removed = await send('DELETE', `/ucp/hosts/${host}`, k1);
    expect(removed.statusCode).toBe(200);
    expectDocumented('DELETE', '/ucp/hosts/{host}', removed);
    const gone = await send('DELETE', `/ucp/hosts/${host}`, k1);
    expect(gone.statusCode).toBe(404);
    expectDocumented('DELETE', '/ucp/hosts/{host}', gone);
  });

  it('401 and 403 on every route', async () => {
    const inactive = await createCompanyWithKey(ctx.services);
    await ctx.services.companies.update(inactive.company.id, { kind: 'cli', name: 'test' }, { status: 'inactive' });
    for (const h of [{}, { 'x-api-key': 'cok_nope' }, inactive.headers]) {
      for (const [method, url, path] of [
        ['GET', '/catalog/products', '/catalog/products'],
        ['GET', `/catalog/products/${sku}`, '/catalog/products/{id}'],
        ['GET', '/catalog/categories', '/catalog/categories'],
        ['GET', '/orders/ORD-1', '/orders/{reference}'],
        ['GET', '/customers?phone=9876543210', '/customers'],
        ['POST', '/orders', '/orders'],
        ['POST', '/mcp', '/mcp'],
      ] as const) {
        const res = await ctx.app.inject({ method, url: `${BASE}${url}`, headers: h, ...(method === 'POST' ? { payload: {} } : {}) });
        expect([401, 403]).toContain(res.statusCode);
        expectDocumented(method, path, res);
      }
    }
  });

  it('429 past the rate limit', async () => {
    const limited = await buildTestApp(ctx.db, { RATE_LIMIT_MAX: '1' });
    try {
      const co = await createCompanyWithKey(limited.services);
      await limited.app.inject({ method: 'GET', url: `${BASE}/catalog/categories`, headers: co.headers });
      for (const [url, path] of [
        ['/catalog/categories', '/catalog/categories'],
        ['/customers?phone=9876543210', '/customers'],
      ]) {
        const res = await limited.app.inject({ method: 'GET', url: `${BASE}${url}`, headers: co.headers });
        expect(res.statusCode).toBe(429);
        expect(res.headers['retry-after']).toBeDefined();
        expectDocumented('GET', path, res);
      }
    } finally {
      await limited.app.close();
    }
  });
});

describe('reference page', () => {
  it('is served without a key, with a CSP of its own that does not loosen the API', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: `${BASE}/docs` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('swagger-ui-bundle.js');
    expect(page.body).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/); // no CDN
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'(;| *;)/);
    const asset = await ctx.app.inject({ method: 'GET', url: `${BASE}/docs/static/swagger-ui-bundle.js` });
    expect(asset.statusCode).toBe(200);
    const api = await ctx.app.inject({ method: 'GET', url: `${BASE}/catalog/products` });
    expect(api.headers['content-security-policy']).toContain('upgrade-insecure-requests');
    expect(api.headers['content-security-policy']).not.toContain('connect-src');
  });
});
