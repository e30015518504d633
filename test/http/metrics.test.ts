import { spawnSync } from 'node:child_process';
import { sql } from 'drizzle-orm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { startMetricsServer } from '../../src/http/metrics.js';
import { createCourierWorker } from '../../src/fulfilment/worker.js';
import { useTestApp } from '../helpers/app.js';
import { acrossCompanies } from '../helpers/across-companies.js';
import { BASE, listeningUrl, orderBody, uid } from '../helpers/orders.js';
import { teeShop } from '../helpers/fulfilment.js';

/**
 * Prometheus metrics: served on a port of their own, never the public one; after known traffic the counters
 * say exactly what happened (requests by route template and status, orders by outcome, MCP tools, courier jobs), the
 * gauges agree with the database (outbox backlog, pool), no company, key, order or phone is ever a label, and the
 * exposition passes `promtool check metrics` (Debian's prometheus package; .ci/run installs it).
 */

const ctx = useTestApp();
const servers: { close: () => void }[] = [];
afterAll(() => servers.forEach((s) => s.close()));

async function scrape(): Promise<string> {
  const { server, port } = await startMetricsServer(ctx.app.metrics, '127.0.0.1', 0);
  servers.push(server);
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text();
}

/** The value of one series, its labels given exactly as a set; 0 when the series is absent. */
function value(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v) && Object.keys(got).length === Object.keys(labels).length) return Number(m[3]);
  }
  return 0;
}

describe('metrics', () => {
  it('are served on their own port only: the public port has no /metrics, the metrics port nothing else', async () => {
    expect((await ctx.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    expect((await ctx.app.inject({ method: 'GET', url: `${BASE}/metrics`, headers: { 'x-api-key': 'cok_x' } })).statusCode).not.toBe(200);
    const { server, port } = await startMetricsServer(ctx.app.metrics, '127.0.0.1', 0);
    servers.push(server);
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status).toBe(404);
  });

  it('after known traffic: requests by route template and status, orders by outcome, MCP tools, courier jobs, and gauges that match the database', async () => {
    const before = await scrape();
    const s = await teeShop(ctx, '5', { auto_courier_booking: true });
    const headers = { 'x-api-key': s.key };
    const browse = (h: Record<string, string>) => ctx.app.inject({ method: 'GET', url: `${BASE}/catalog/products`, headers: h });
    const order = (body: unknown) => ctx.app.inject({ method: 'POST', url: `${BASE}/orders`, headers, payload: body as object });

    expect((await browse(headers)).statusCode).toBe(200);
    expect((await browse(headers)).statusCode).toBe(200);
    expect((await browse({ 'x-api-key': 'cok_wrong' })).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'GET', url: `${BASE}/orders/ORD-NOPE-${uid()}`, headers })).statusCode).toBe(404);
    const body = orderBody({ external_reference: `m-${uid()}` });
    expect((await order(body)).statusCode).toBe(201);
    expect((await order(body)).statusCode).toBe(200); // duplicate
    expect((await order(orderBody({ items: [{ product_id: 'TEE-M', quantity: 50 }] }))).statusCode).toBe(409);

    const url = await listeningUrl(ctx);
    const client = new Client({ name: 'vitest', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
    expect((await client.callTool({ name: 'place_order', arguments: orderBody({ external_reference: `mcp-${uid()}` }) })).isError).toBeFalsy();
    expect((await client.callTool({ name: 'no_such_tool', arguments: {} })).isError).toBe(true);
    expect((await client.callTool({ name: 'get_order', arguments: { reference: 'ORD-NONE' } })).isError).toBe(true);
    await client.close();

    // one courier job run by a worker reporting to these metrics (the manual courier books at once)
    const worker = createCourierWorker({
      db: ctx.db,
      config: { ...ctx.config, FULFILMENT_POLL_MS: 10 },
      log: ctx.workerLog('courier-worker'),
      onOutcome: ctx.app.metrics.courierOutcome,
    });
    expect(await worker.runOnce()).toBe(true);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
    const products = `${BASE}/catalog/products`;
    expect(delta('commerce_http_requests_total', { method: 'GET', route: products, status: '200' })).toBe(2);
    expect(delta('commerce_http_requests_total', { method: 'GET', route: products, status: '401' })).toBe(1);
    expect(delta('commerce_http_requests_total', { method: 'GET', route: `${BASE}/orders/:reference`, status: '404' })).toBe(1);
    expect(delta('commerce_http_requests_total', { method: 'POST', route: `${BASE}/orders`, status: '201' })).toBe(1);
    expect(delta('commerce_http_requests_total', { method: 'POST', route: `${BASE}/orders`, status: '409' })).toBe(1);
    expect(delta('commerce_http_request_duration_seconds_count', { method: 'GET', route: products })).toBe(3);
    expect(delta('commerce_orders_total', { outcome: 'created' })).toBe(2); // REST and MCP
    expect(delta('commerce_orders_total', { outcome: 'duplicate' })).toBe(1);
    expect(delta('commerce_orders_total', { outcome: 'insufficient_stock' })).toBe(1);
    expect(delta('commerce_order_place_duration_seconds_count', { outcome: 'created' })).toBe(2);
    expect(delta('commerce_mcp_tool_calls_total', { tool: 'place_order', outcome: 'ok' })).toBe(1);
    expect(delta('commerce_mcp_tool_calls_total', { tool: 'unknown', outcome: 'not_found' })).toBe(1);
    expect(delta('commerce_mcp_tool_calls_total', { tool: 'get_order', outcome: 'not_found' })).toBe(1);
    expect(delta('commerce_courier_jobs_total', { outcome: 'booked' })).toBe(1);

    // gauges read the database at the scrape: the same numbers as a direct count
    const [truth] = await acrossCompanies<{ jobs: number; deliveries: number }>(
      ctx.db,
      sql`SELECT (SELECT count(*)::int FROM jobs WHERE status = 'pending') AS jobs,
                 (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'pending') AS deliveries`,
    );
    expect(truth.jobs).toBeGreaterThan(0); // the second order's booking job is still pending
    expect(value(after, 'commerce_outbox_pending', { outbox: 'courier' })).toBe(truth.jobs);
    expect(value(after, 'commerce_outbox_pending', { outbox: 'webhooks' })).toBe(truth.deliveries);
    expect(value(after, 'commerce_outbox_oldest_due_seconds', { outbox: 'courier' })).toBeGreaterThanOrEqual(0);
    const pool = ctx.db.poolStats();
    expect(value(after, 'commerce_db_pool_connections', { state: 'max' })).toBe(pool.max);
    expect(value(after, 'commerce_db_pool_connections', { state: 'waiting' })).toBe(0);
    expect(after).toMatch(/^commerce_db_lock_waiting_backends \d+$/m);
    // the catalogue read models: the new company's model was built once (its second browse reused it) and is held
    const cache = ctx.services.catalogueCache.stats();
    expect(delta('commerce_catalogue_model_builds_total', {})).toBeGreaterThanOrEqual(1);
    expect(value(after, 'commerce_catalogue_model_builds_total')).toBe(cache.builds);
    expect(value(after, 'commerce_catalogue_model_evictions_total')).toBe(cache.evictions);
    expect(value(after, 'commerce_catalogue_models')).toBe(cache.companies);
    expect(cache.companies).toBeGreaterThanOrEqual(1);
    expect(value(after, 'commerce_catalogue_cache_bytes', { kind: 'used' })).toBe(cache.bytes);
    expect(value(after, 'commerce_catalogue_cache_bytes', { kind: 'cap' })).toBe(Number(ctx.config.CATALOGUE_CACHE_MB) * 1024 * 1024);
    expect(after).toMatch(/^process_cpu_user_seconds_total /m);
    expect(after).toMatch(/^nodejs_eventloop_lag_seconds /m);

    // nothing identifying is ever a label value
    for (const secret of [s.companyId, s.key, s.company.slug, '98765', body.external_reference, 'ORD-NOPE']) expect(after).not.toContain(secret);
  });

  it('the exposition passes promtool check metrics', async () => {
    const found = spawnSync('promtool', ['--version']);
    if (found.error) {
      // CI installs Debian's prometheus package; only a developer's machine may lack it
      expect(process.env.CI, 'promtool (Debian package prometheus) is missing in CI').toBeFalsy();
      return;
    }
    const text = await scrape();
    const checked = spawnSync('promtool', ['check', 'metrics'], { input: text });
    expect({ status: checked.status, out: `${checked.stdout.toString()}${checked.stderr.toString()}` }).toEqual({ status: 0, out: '' });
  });
});
