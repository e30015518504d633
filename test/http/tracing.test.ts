import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { createServices } from '../../src/services.js';
import { tracingActive } from '../../src/lib/tracing.js';
import { startTracing, tracingWanted } from '../../src/telemetry.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { serverProcesses } from '../helpers/server-process.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';

/**
 * Traces: the service as a real process exporting OTLP/HTTP (JSON) to a receiver in this test. One
 * POST /orders with a W3C traceparent gives one trace: the HTTP span, `orders.place` under it and the SQL under that;
 * its log lines carry the trace id; no span holds the customer's phone. An MCP tools/call with `_meta.traceparent`
 * joins that trace. With no endpoint set, nothing is registered.
 */

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpSpan {
  /** the instrumentation scope's name, added by the receiver */
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
}
interface OtlpExport {
  resourceSpans: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans: { scope?: { name: string }; spans: Omit<OtlpSpan, 'scope'>[] }[];
  }[];
}

/** An OTLP/HTTP receiver (JSON protocol): keeps every span and the raw bodies. */
async function otlpReceiver() {
  const spans: OtlpSpan[] = [];
  const bodies: string[] = [];
  /** traceparent headers of the webhook deliveries received on /hook */
  const hooks: (string | undefined)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      if (req.method === 'POST' && req.url === '/v1/traces') {
        bodies.push(raw);
        const body = JSON.parse(raw) as OtlpExport;
        for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ ...s, scope: ss.scope?.name ?? '' });
      }
      if (req.url === '/hook') hooks.push(req.headers.traceparent as string | undefined);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, spans, bodies, hooks, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const attr = (span: OtlpSpan, key: string) => {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  return v?.stringValue ?? v?.intValue ?? v?.boolValue ?? v?.doubleValue;
};
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** On embedded PGlite (no PostgreSQL server) the process part is skipped: a PGlite folder belongs to one process. */
const SERVER = inject('testDb') !== null;
const config = testConfig({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' });
let testDb: TestDatabase;
let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
const servers = serverProcesses();
let base: string;
let logs = '';
let headers: Record<string, string>;

beforeAll(async () => {
  if (!SERVER) return;
  testDb = await createTestDatabase();
  if (!testDb.url) throw new Error('needs a PostgreSQL server (TEST_DATABASE_URL)');
  receiver = await otlpReceiver();
  const services = createServices({ db: testDb.db, config });
  const co = await createCompanyWithKey(services);
  headers = co.headers;
  await addLocations(testDb.db, co.company.id);
  await addProduct(testDb.db, co.company.id, { sku: 'T', name: 'Traced tee', variants: [{ sku: 'T-M', selling_price: '499.00', stock: '100' }] });
  await services.webhooks.create(co.company.id, { kind: 'cli', name: 'test' }, { url: `${receiver.url}/hook`, events: ['order.created'], description: null });
  const started = await servers.start(testDb.url, {
    SIGNING_SECRET: config.SIGNING_SECRET,
    FULFILMENT_WORKER_ENABLED: 'false',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
    WEBHOOK_POLL_MS: '50',
    LOG_LEVEL: 'info',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_SERVICE_NAME: 'commerce-api-test',
  });
  base = started.base;
  started.child.stdout?.on('data', (c: Buffer) => (logs += c.toString()));
});
afterAll(async () => {
  servers.killAll();
  await receiver?.close();
  await testDb?.drop();
});

/** The spans of one trace, once `until` holds for them (the batch processor exports every 100 ms). */
async function spansOf(traceId: string, until: (spans: OtlpSpan[]) => boolean): Promise<OtlpSpan[]> {
  for (let i = 0; i < 100; i++) {
    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    if (until(spans)) return spans;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`trace ${traceId} incomplete: ${JSON.stringify(receiver.spans.filter((s) => s.traceId === traceId).map((s) => s.name))}`);
}

/** True when `span` descends from the span with id `ancestor`. */
function descends(spans: OtlpSpan[], span: OtlpSpan, ancestor: string): boolean {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let p = span.parentSpanId; p; p = byId.get(p)?.parentSpanId) if (p === ancestor) return true;
  return false;
}

const PHONE = '+91 98123 45678';
const PHONE_DIGITS = ['9812345678', '98123 45678', '98123'];

describe.skipIf(!SERVER)('traces exported over OTLP (a real process)', () => {
  it('one POST /orders with a traceparent is one trace: HTTP span, orders.place, its SQL; log lines carry the trace id', async () => {
    const traceId = hex(16);
    const callerSpan = hex(8);
    const res = await fetch(`${base}/orders`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', traceparent: `00-${traceId}-${callerSpan}-01` },
      body: JSON.stringify({ customer: { name: 'Meera Iyer', phone: PHONE }, items: [{ product_id: 'T-M', quantity: 1 }], external_reference: `tr-${hex(4)}` }),
    });
    expect(res.status).toBe(201);

    const spans = await spansOf(traceId, (s) => s.some((x) => x.name === 'orders.place') && s.some((x) => x.scope === '@fastify/otel' && x.kind === 2));
    const http = spans.find((s) => s.scope === '@fastify/otel' && s.kind === 2)!; // SERVER
    expect(http.parentSpanId).toBe(callerSpan); // the caller's span is the parent: traceparent honoured
    expect(attr(http, 'http.route')).toBe('/api/v1/commerce/orders');
    expect(attr(http, 'http.response.status_code')).toBe(201);
    // the handler span is named after the plugin context: short, not an anonymous function's source
    expect(spans.find((s) => s.name.startsWith('handler'))?.name).toBe('handler - apiRoutes -> @fastify/rate-limit');
    const place = spans.find((s) => s.name === 'orders.place')!;
    expect(descends(spans, place, http.spanId)).toBe(true);
    const sql = spans.filter((s) => s.scope.includes('instrumentation-pg') && attr(s, 'db.query.text') !== undefined);
    expect(sql.filter((s) => descends(spans, s, place.spanId)).length).toBeGreaterThan(0);
    expect(sql.some((s) => String(attr(s, 'db.query.text')).includes('place_order'))).toBe(true);
    // every span of the request is in the caller's trace, and that trace holds nothing else
    expect(spans.every((s) => s.spanId === http.spanId || descends(spans, s, http.spanId))).toBe(true);
    expect(receiver.spans.filter((s) => s.spanId === place.spanId)).toHaveLength(1);

    // The request's log lines (the completion line at least) carry its trace and span ids.
    await new Promise((r) => setTimeout(r, 50));
    const lines = logs
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const completed = lines.find((l) => l.msg === 'request completed' && l.trace_id === traceId);
    expect(completed).toMatchObject({ trace_id: traceId, span_id: http.spanId });

    // Nothing of the customer's phone in any span (SQL is parameterised; the values are not recorded).
    const exported = receiver.bodies.join('\n');
    for (const digits of PHONE_DIGITS) expect(exported).not.toContain(digits);
    expect((JSON.parse(receiver.bodies[0]) as OtlpExport).resourceSpans[0].resource?.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: 'commerce-api-test' },
    });
  });

  it('a phone in the query string is masked in the HTTP span, as in the logs', async () => {
    const traceId = hex(16);
    const res = await fetch(`${base}/customers?phone=${encodeURIComponent(PHONE)}`, { headers: { ...headers, traceparent: `00-${traceId}-${hex(8)}-01` } });
    expect(res.status).toBeLessThan(500);
    const spans = await spansOf(traceId, (s) => s.some((x) => x.scope === '@fastify/otel' && x.kind === 2));
    const http = spans.find((s) => s.scope === '@fastify/otel' && s.kind === 2)!;
    expect(attr(http, 'url.path')).toBe('/api/v1/commerce/customers?phone=***');
    const text = JSON.stringify(spans);
    for (const digits of [...PHONE_DIGITS, '%2B91', '98123%20']) expect(text).not.toContain(digits);
  });

  it('a phone in an order reference and a feed secret in a path: the HTTP span shows the route template, not the path', async () => {
    const secret = `mfd_${hex(16)}`;
    for (const [path, template] of [
      [`${base}/orders/wa-919812345678-1`, '/api/v1/commerce/orders/:reference'],
      [`${new URL(base).origin}/feeds/meta/co_unknown/${secret}.csv`, '/feeds/meta/:company/:file'],
    ]) {
      const traceId = hex(16);
      const res = await fetch(path, { headers: { ...headers, traceparent: `00-${traceId}-${hex(8)}-01` } });
      expect(res.status).toBe(404);
      const spans = await spansOf(traceId, (s) => s.some((x) => x.scope === '@fastify/otel' && x.kind === 2));
      const http = spans.find((s) => s.scope === '@fastify/otel' && s.kind === 2)!;
      expect(attr(http, 'url.path')).toBe(template);
      expect(attr(http, 'http.route')).toBe(template);
      const text = JSON.stringify(spans);
      for (const leak of [...PHONE_DIGITS, secret]) expect(text).not.toContain(leak);
    }
  });

  it('an MCP tools/call with _meta.traceparent is traced in the caller’s trace, its SQL under the tool span', async () => {
    const traceId = hex(16);
    const callerSpan = hex(8);
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'place_order',
          arguments: { customer: { name: 'Meera Iyer', phone: PHONE }, items: [{ product_id: 'T-M', quantity: 1 }], external_reference: `mcp-${hex(4)}` },
          _meta: { traceparent: `00-${traceId}-${callerSpan}-01` },
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result: { isError?: boolean } }).result.isError).toBeFalsy();
    const spans = await spansOf(traceId, (s) => s.some((x) => x.name === 'orders.place'));
    const tool = spans.find((s) => s.name === 'tools/call place_order')!;
    expect(tool.parentSpanId).toBe(callerSpan);
    expect(attr(tool, 'gen_ai.tool.name')).toBe('place_order');
    const place = spans.find((s) => s.name === 'orders.place')!;
    expect(place.parentSpanId).toBe(tool.spanId);
    expect(spans.some((s) => s.scope.includes('instrumentation-pg') && descends(spans, s, place.spanId))).toBe(true);
    for (const digits of PHONE_DIGITS) expect(JSON.stringify(spans)).not.toContain(digits);
  });

  it('in revision 2026-07-28 too: the traceparent beside the protocol fields in _meta parents the tool span', async () => {
    const traceId = hex(16);
    const callerSpan = hex(8);
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'browse_catalog',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'browse_catalog',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            traceparent: `00-${traceId}-${callerSpan}-01`,
          },
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result: { isError?: boolean } }).result.isError).toBeFalsy();
    const spans = await spansOf(traceId, (s) => s.some((x) => x.name === 'tools/call browse_catalog'));
    expect(spans.find((s) => s.name === 'tools/call browse_catalog')!.parentSpanId).toBe(callerSpan);
  });

  it('a webhook delivery carries traceparent out, and its CLIENT span is exported', async () => {
    for (let i = 0; i < 100 && receiver.hooks.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    const traceparent = receiver.hooks[0];
    const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(traceparent ?? '');
    expect(m, `traceparent ${traceparent}`).not.toBeNull();
    const [, traceId, spanId] = m!;
    const spans = await spansOf(traceId, (s) => s.some((x) => x.spanId === spanId));
    const client = spans.find((s) => s.spanId === spanId)!;
    expect(client).toMatchObject({ name: 'POST', kind: 3 }); // CLIENT
    expect(attr(client, 'url.full')).toBe(`${receiver.url}/hook`);
    expect(attr(client, 'http.response.status_code')).toBe(200);
  });
});

describe('tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it('registers nothing: the API keeps its no-op provider and spans record nothing', async () => {
    const env = { OTEL_SERVICE_NAME: 'x' };
    expect(tracingWanted(env)).toBe(false);
    expect(await startTracing(env)).toBeNull();
    expect(tracingActive()).toBe(false);
    const span = trace.getTracer('t').startSpan('s');
    expect(span.isRecording()).toBe(false);
    span.end();
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
  });
});
