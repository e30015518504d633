import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Database } from '../db/index.js';
import { AppError, wireCode } from '../contract/errors.js';
import type { Services } from '../services.js';
import type { CatalogueCacheStats } from '../catalogue/catalogue-cache.js';
import { countLockWaiters, queryBacklog, type Backlog } from './metrics.queries.js';

/**
 * Prometheus metrics, served on their own port (METRICS_PORT), never on the public one. Labels are bounded
 * sets (route templates, tool names, outcomes, statuses): a company, key, order or customer is never a label value.
 * Counters and histograms are written as things happen; the pool, the outboxes and lock waits are read at each scrape.
 */
export interface Metrics {
  registry: Registry;
  /** A place_order attempt, by outcome (created, duplicate, or the error code that refused it), and its duration. */
  orderPlaced: (outcome: string, seconds: number) => void;
  /** An MCP tool call, by tool and outcome (ok or the error code). */
  toolCalled: (tool: string, outcome: string) => void;
  /** A courier booking job run by the worker: booked, skipped, retrying or failed. */
  courierOutcome: (outcome: string) => void;
  /** A webhook delivery attempt: delivered, retrying or failed. */
  webhookOutcome: (outcome: string) => void;
  /** An error inside a worker that no outcome above counts (its work is retried), by worker and stage. */
  workerError: (worker: 'courier' | 'webhooks' | 'checkouts' | 'ucp-order-events' | 'cod-confirmations' | 'retention', stage: string) => void;
  /** Rows the retention worker removed (or stripped of personal data), by rule. */
  retentionPurged: (rule: string, rows: number) => void;
  /** A fault that reached the process's last-resort handlers (src/main.ts): unhandled_rejection or uncaught_exception. */
  processError: (kind: 'unhandled_rejection' | 'uncaught_exception') => void;
  /** The catalogue read models' cache whose builds, evictions and size are reported (the app's own, once built). */
  watchCatalogueCache: (stats: () => CatalogueCacheStats) => void;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(db: Database): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // prom-client's three gauges named *_total fail `promtool check metrics` (a _total suffix is for counters); the same
  // counts stay available by type in nodejs_active_handles, nodejs_active_requests and nodejs_active_resources.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
  const counter = <L extends string>(name: string, help: string, labelNames: L[]) => new Counter<L>({ name, help, labelNames, registers: [registry] });

  const orders = counter(
    'commerce_orders_total',
    'Order placements (REST and MCP) by outcome: created, duplicate (same external_reference), or the refusing error code',
    ['outcome'],
  );
  const orderSeconds = new Histogram<'outcome'>({
    name: 'commerce_order_place_duration_seconds',
    help: 'Time to place an order, including waiting for the stock rows it reserves (row locks on hot items)',
    labelNames: ['outcome'],
    buckets: SECONDS,
    registers: [registry],
  });
  const tools = counter('commerce_mcp_tool_calls_total', 'MCP tool calls by tool and outcome (ok or the error code)', ['tool', 'outcome']);
  const courier = counter('commerce_courier_jobs_total', 'Courier booking jobs run by this instance, by outcome', ['outcome']);
  const webhooks = counter('commerce_webhook_deliveries_total', 'Webhook delivery attempts by this instance, by outcome', ['outcome']);
  const workerErrors = counter(
    'commerce_worker_errors_total',
    "Errors in a worker's own code, not counted as a job or delivery outcome (poll: finding or claiming work failed, e.g. the database away; record: a courier failure could not be written; delivery: a webhook attempt could not be made or recorded; session: an expired checkout could not be released); the work is retried",
    ['worker', 'stage'],
  );
  const retention = counter(
    'commerce_retention_rows_total',
    "Rows the retention worker removed (or stripped of the buyer's details) past a company's retention, by rule",
    ['rule'],
  );
  const processErrors = counter(
    'commerce_process_errors_total',
    'Faults that reached the last-resort handlers: unhandled_rejection (logged, the process goes on), uncaught_exception (logged, the instance drains and exits 1)',
    ['kind'],
  );
  // Every series exists from the start at 0, so an alert on its increase sees the first one.
  for (const stage of ['poll', 'record']) workerErrors.inc({ worker: 'courier', stage }, 0);
  for (const stage of ['poll', 'delivery']) workerErrors.inc({ worker: 'webhooks', stage }, 0);
  for (const stage of ['poll', 'session']) workerErrors.inc({ worker: 'checkouts', stage }, 0);
  for (const stage of ['poll', 'delivery']) workerErrors.inc({ worker: 'ucp-order-events', stage }, 0);
  for (const stage of ['poll', 'order']) workerErrors.inc({ worker: 'cod-confirmations', stage }, 0);
  for (const stage of ['poll', 'rule']) workerErrors.inc({ worker: 'retention', stage }, 0);
  for (const kind of ['unhandled_rejection', 'uncaught_exception']) processErrors.inc({ kind }, 0);

  new Gauge({
    name: 'commerce_db_pool_connections',
    help: 'Database pool of this instance: max, open (total), idle, and queries waiting for a connection (waiting)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const s = db.poolStats();
      for (const [state, n] of Object.entries(s)) this.set({ state }, n);
    },
  });

  const replica = db.replica;
  if (replica) {
    new Gauge({
      name: 'commerce_db_replica_in_use',
      help: 'Catalogue reads go to the read replica (1), or to the primary because it is down or lagging past the bound (0)',
      registers: [registry],
      collect() {
        this.set(replica.status().state === 'in_use' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'commerce_db_replica_lag_seconds',
      help: "Read replica lag at its last check: time to replay the primary's commits (NaN while it is unreachable)",
      registers: [registry],
      collect() {
        const { lagMs } = replica.status();
        this.set(lagMs === null ? NaN : lagMs / 1000);
      },
    });
  }

  // The catalogue read models held by this instance: a rising eviction count means the working set of
  // companies does not fit CATALOGUE_CACHE_MB, and every eviction is a rebuild (seconds for 100,000 products) later.
  let cacheStats: (() => CatalogueCacheStats) | undefined;
  const cacheCounter = (name: string, help: string, pick: (s: CatalogueCacheStats) => number) => {
    let reported = 0;
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        if (!cacheStats) return;
        const now = pick(cacheStats());
        if (now > reported) this.inc(now - reported);
        reported = now;
      },
    });
  };
  cacheCounter(
    'commerce_catalogue_model_builds_total',
    'Catalogue read models built by this instance (first use, catalogue changed, or rebuilt after eviction)',
    (s) => s.builds,
  );
  cacheCounter(
    'commerce_catalogue_model_evictions_total',
    'Catalogue read models dropped to stay under CATALOGUE_CACHE_MB (each is rebuilt when its company is next asked for)',
    (s) => s.evictions,
  );
  new Gauge({
    name: 'commerce_catalogue_models',
    help: 'Catalogue read models held by this instance (companies)',
    registers: [registry],
    collect() {
      if (cacheStats) this.set(cacheStats().companies);
    },
  });
  new Gauge({
    name: 'commerce_catalogue_cache_bytes',
    help: 'Estimated heap size of the catalogue read models held (used) and the cap they are kept under (cap, CATALOGUE_CACHE_MB)',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      if (!cacheStats) return;
      const s = cacheStats();
      this.set({ kind: 'used' }, s.bytes);
      this.set({ kind: 'cap' }, s.capBytes);
    },
  });

  // Read from the database once per scrape, shared by the gauges below.
  let backlog: Promise<Backlog> | undefined;
  const readBacklog = () => (backlog ??= queryBacklog(db).finally(() => setTimeout(() => (backlog = undefined), 0)));
  const backlogGauge = (name: string, help: string, pick: (b: Backlog) => Record<string, number>) =>
    new Gauge({
      name,
      help,
      labelNames: ['outbox'],
      registers: [registry],
      async collect() {
        for (const [outbox, n] of Object.entries(pick(await readBacklog()))) this.set({ outbox }, n);
      },
    });
  backlogGauge('commerce_outbox_pending', 'Pending items in each outbox (courier jobs, webhook deliveries), all companies', (b) => ({
    courier: b.jobs_pending,
    webhooks: b.deliveries_pending,
  }));
  backlogGauge('commerce_outbox_oldest_due_seconds', 'Age of the oldest pending item that is due, in each outbox (0 when none is due)', (b) => ({
    courier: b.jobs_oldest_due_s,
    webhooks: b.deliveries_oldest_due_s,
  }));
  new Gauge({
    name: 'commerce_db_lock_waiting_backends',
    help: "Backends of this database waiting for a lock now (e.g. orders queued on a hot item's stock row)",
    registers: [registry],
    async collect() {
      this.set(await lockWaiters(db));
    },
  });

  return {
    registry,
    orderPlaced: (outcome, seconds) => {
      orders.inc({ outcome });
      orderSeconds.observe({ outcome }, seconds);
    },
    toolCalled: (tool, outcome) => tools.inc({ tool, outcome }),
    courierOutcome: (outcome) => courier.inc({ outcome }),
    webhookOutcome: (outcome) => webhooks.inc({ outcome }),
    workerError: (worker, stage) => workerErrors.inc({ worker, stage }),
    retentionPurged: (rule, rows) => retention.inc({ rule }, rows),
    processError: (kind) => processErrors.inc({ kind }),
    watchCatalogueCache: (stats) => {
      cacheStats = stats;
    },
  };
}

async function lockWaiters(db: Database): Promise<number> {
  if (db.kind === 'pglite') return 0; // one connection: nothing can wait for another's lock
  return countLockWaiters(db);
}

/** The services with `orders.place` counted and timed by outcome: created, duplicate, or the refusing error code. */
export function withOrderMetrics(services: Services, metrics: Metrics): Services {
  const inner = services.orders;
  const place: Services['orders']['place'] = async (tenant, body, door) => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const result = await inner.place(tenant, body, door);
      metrics.orderPlaced(result.duplicate ? 'duplicate' : 'created', seconds());
      return result;
    } catch (err) {
      metrics.orderPlaced(err instanceof AppError ? wireCode(err.kind) : 'internal', seconds());
      throw err;
    }
  };
  return { ...services, orders: { ...inner, place } };
}

/** Request counts and latency by route template, method and status, from every request the app answers. */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  const requests = new Counter<'method' | 'route' | 'status'>({
    name: 'commerce_http_requests_total',
    help: 'HTTP requests by method, route template and status (401 authentication, 403 forbidden, 429 rate limit, 503 overload refusals)',
    labelNames: ['method', 'route', 'status'],
    registers: [metrics.registry],
  });
  const latency = new Histogram<'method' | 'route'>({
    name: 'commerce_http_request_duration_seconds',
    help: 'HTTP request latency by method and route template',
    labelNames: ['method', 'route'],
    buckets: SECONDS,
    registers: [metrics.registry],
  });
  app.addHook('onResponse', async (req, reply) => {
    // the template, never the path: /orders/:reference, not /orders/ORD-1 (an unmatched path is one label)
    const route = req.routeOptions.url ?? 'unmatched';
    requests.inc({ method: req.method, route, status: String(reply.statusCode) });
    latency.observe({ method: req.method, route }, reply.elapsedTime / 1000);
  });
}

/** GET /metrics on a port of its own (METRICS_PORT); anything else is 404. */
export async function startMetricsServer(metrics: Metrics, host: string, port: number): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${err instanceof Error ? err.message : String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, () => resolve()));
  return { server, port: (server.address() as AddressInfo).port };
}
