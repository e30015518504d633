import type { Logger } from 'pino';
import { buildApp } from './app.js';
import { createServiceLogger } from './lib/logger.js';
import { openMigratedDatabase, openRedis } from './boot.js';
import { loadConfig } from './config.js';
import { createServices } from './services.js';
import { createCourierWorker } from './fulfilment/worker.js';
import { createDeliveryWorker } from './events/delivery-worker.js';
import { createCheckoutExpiryWorker } from './checkout/expiry-worker.js';
import { createOrderEventsWorker } from './checkout/order-events-worker.js';
import { createCodConfirmationWorker } from './cod/cod-confirmation-worker.js';
import { anonymiseInactiveCustomers } from './privacy/customer-data.service.js';
import { createRetentionWorker } from './privacy/retention-worker.js';
import { DEMO_SLUG, seedDemo } from './seed/demo.js';
import { startMetricsServer, type Metrics } from './http/metrics.js';
import { serveAdminSocket } from './cli/admin-server.js';
import type { Tracing } from './telemetry.js';

/** The service: listen, workers, graceful shutdown. Started by src/server.ts once tracing (if any) is in place. */
export async function main(tracing: Tracing | null): Promise<void> {
  const config = loadConfig();
  // Readable lines for a person at a terminal; JSON everywhere else (containers, CI, the tests, a pipe to a collector).
  const human = process.stdout.isTTY === true;
  const logger = createServiceLogger({ level: config.LOG_LEVEL, human, colour: human && !process.env.NO_COLOR });
  const db = await openMigratedDatabase(config, (msg) => logger.info(msg));
  const redis = config.REDIS_URL ? await openRedis(config.REDIS_URL, undefined, logger) : undefined;
  const services = createServices({ db, config });
  const demo = config.SEED_DEMO ? await seedDemo(db, services, (msg) => logger.info(msg)) : null;

  let draining = false;
  const app = await buildApp({ config, db, redis, logger, services, draining: () => draining });
  await app.listen({ host: config.HOST, port: config.PORT });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const baseUrl = `${config.PUBLIC_URL ?? `http://${host}:${port}`}${config.BASE_PATH}`;
  // The admin CLI cannot open the embedded database while the service holds it: it sends its commands here (before "ready").
  const origin = (config.PUBLIC_URL ?? `http://${host}:${port}`).replace(/\/+$/, '');
  const adminSocket = db.kind === 'pglite' ? await serveAdminSocket({ dataDir: config.DATA_DIR, db, services, origin, log: logger }) : null;

  const lines = [
    '',
    `Commerce API ready on ${baseUrl}  (database: ${db.kind === 'pglite' ? `embedded, ${config.DATA_DIR}` : 'PostgreSQL server'})`,
    demo
      ? `Demo company "${DEMO_SLUG}" created. Its API key, shown only this once:\n\n    ${demo.key}\n\n  Try: curl -H "X-API-KEY: ${demo.key}" ${baseUrl}/catalog/products`
      : `Demo key was printed on first start. A new one: npm run admin -- key create --company ${DEMO_SLUG}`,
    `  Reference: ${baseUrl}/docs`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  // Courier bookings (transactional outbox); several instances may run it: jobs are claimed with SKIP LOCKED.
  const worker = config.FULFILMENT_WORKER_ENABLED
    ? createCourierWorker({
        db,
        config,
        log: logger.child({ component: 'courier-worker' }),
        onOutcome: app.metrics.courierOutcome,
        onError: (stage) => app.metrics.workerError('courier', stage),
      })
    : null;
  worker?.start();
  // Webhook deliveries (the events outbox); several instances may run it: deliveries are claimed with SKIP LOCKED.
  const deliveries = config.WEBHOOK_WORKER_ENABLED
    ? createDeliveryWorker({
        db,
        config,
        log: logger.child({ component: 'webhook-worker' }),
        onOutcome: app.metrics.webhookOutcome,
        onError: (stage) => app.metrics.workerError('webhooks', stage),
      })
    : null;
  deliveries?.start();
  // Checkout expiry: open checkouts past their expiry release their held stock; several instances may run it (SKIP LOCKED).
  const expiry = createCheckoutExpiryWorker({
    db,
    config,
    log: logger.child({ component: 'checkout-expiry' }),
    onError: (stage) => app.metrics.workerError('checkouts', stage),
  });
  expiry.start();
  // COD confirmations past their time limit: declined and the order cancelled (companies that leave them to staff: listed instead).
  const codConfirmations = createCodConfirmationWorker({
    db,
    config,
    confirmations: services.codConfirmations,
    log: logger.child({ component: 'cod-confirmation' }),
    onError: (stage) => app.metrics.workerError('cod-confirmations', stage),
  });
  codConfirmations.start();
  // UCP order events to the platform that placed the order (an outbox of its own, signed with the UCP key).
  const platformEvents = config.WEBHOOK_WORKER_ENABLED
    ? createOrderEventsWorker({
        db,
        config,
        checkout: services.checkout,
        origin: () => services.media.configuredOrigin(),
        log: logger.child({ component: 'ucp-order-events' }),
        onError: (stage) => app.metrics.workerError('ucp-order-events', stage),
      })
    : null;
  platformEvents?.start();
  // Retention: what each company's privacy settings no longer keep, purged in small batches (README "Privacy settings").
  const retention = config.RETENTION_WORKER_ENABLED
    ? createRetentionWorker({
        db,
        config,
        // the inactive-customer rule (off unless a company sets inactive_customer_years)
        anonymiseInactiveCustomers,
        log: logger.child({ component: 'retention' }),
        onPurged: app.metrics.retentionPurged,
        onError: (stage) => app.metrics.workerError('retention', stage),
      })
    : null;
  retention?.start();
  // Prometheus metrics on a port of their own, never the public one (docs/operations.md).
  const metricsServer = config.METRICS_PORT ? await startMetricsServer(app.metrics, config.METRICS_HOST ?? config.HOST, config.METRICS_PORT) : null;
  if (metricsServer) logger.info({ port: metricsServer.port }, 'metrics served on GET /metrics');

  // SIGTERM: readiness fails first and requests are still served for SHUTDOWN_DRAIN_MS (a load balancer takes the
  // instance out), then the server stops accepting and finishes what is in flight while the workers finish or release
  // their jobs, then the pools close. SHUTDOWN_TIMEOUT_MS bounds it all from the signal on.
  const shutdown = async (signal: string, exitCode = 0) => {
    if (draining) return;
    draining = true;
    logger.info({ signal, drainMs: config.SHUTDOWN_DRAIN_MS }, 'shutting down: readiness fails, draining');
    const force = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    try {
      await new Promise((r) => setTimeout(r, config.SHUTDOWN_DRAIN_MS));
      logger.info('shutting down: finishing requests in flight');
      // A keep-alive connection whose request was in flight when closing began goes idle afterwards and would hold
      // close() open until its keep-alive timeout: such connections are closed as they go idle.
      const reaper = setInterval(() => app.server.closeIdleConnections(), 100);
      await Promise.all([
        worker?.stop(),
        deliveries?.stop(),
        expiry.stop(),
        codConfirmations.stop(),
        platformEvents?.stop(),
        retention?.stop(),
        app.close(),
        adminSocket?.close(),
      ]).finally(() => clearInterval(reaper));
      metricsServer?.server.close();
      await db.close();
      await redis?.quit().catch(() => {});
      await tracing?.shutdown().catch(() => {});
      logger.info('stopped');
      process.exit(exitCode);
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  lastResort(logger, app.metrics, () => void shutdown('uncaughtException', 1));
}

/**
 * What a fault at run time does, once the service is up (docs/decisions.md, docs/reliability.md). Before this point a
 * fault is a broken start (configuration, migrations, the port) and src/server.ts exits 1 with its message.
 * - An unhandled rejection is logged and counted, and the process goes on: it reports an operation that has already
 *   failed and unwound through its own `finally` blocks and transactions; nothing was cut off half-way by it.
 * - An uncaught exception is logged and counted, then the instance drains and exits 1 (readiness fails at once,
 *   requests in flight finish, workers hand back their jobs): the exception unwound a synchronous stack through
 *   code that did not expect it, so this process's memory (pools, caches, counters) can no longer be trusted, while
 *   nothing durable is at risk (PostgreSQL transactions). The supervisor starts a clean process.
 * The workers cannot reach either: every poll, booking and delivery is a promise chain that catches and retries.
 */
function lastResort(logger: Logger, metrics: Metrics, drainAndExit: () => void): void {
  process.on('unhandledRejection', (reason) => {
    metrics.processError('unhandled_rejection');
    logger.error({ err: reason }, 'unhandled rejection: logged and counted; the service goes on');
  });
  process.on('uncaughtException', (err) => {
    metrics.processError('uncaught_exception');
    logger.fatal({ err }, 'uncaught exception: the process state is no longer trusted; draining, then exiting 1 for a clean restart');
    drainAndExit();
  });
}
