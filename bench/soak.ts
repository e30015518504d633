/**
 * npm run soak [-- --orders 5000 --clients 50 --instances 2 --hot 5 --cold 495 --hot-stock 200 --webhooks 0.2 --keep]
 * npm run soak -- --overload [--clients 200 --pool 4 --shed-at 8 --orders 3000]
 * npm run soak -- --retention 5 [--webhooks 0.2 --orders 20000]
 *
 * Thousands of orders from many parallel HTTP clients against listening instances of the app (two or more
 * share one PostgreSQL and, with REDIS_URL, one Redis), mixed with browse, detail and lookup traffic; then
 * the audit of bench/soak-run.ts. Uses a fresh database on the server of SOAK_DATABASE_URL / DATABASE_URL
 * (default postgres://postgres@127.0.0.1:5432/postgres), dropped at the end unless --keep. Exit code 1
 * when the audit finds anything. `--webhooks <share>`: an endpoint on a local receiver that answers 500 to that share
 * of requests, a delivery worker in every instance, and afterwards events produced vs delivered (exit 1 on a loss).
 * `--overload`: the same workload pushed past capacity (many clients, a small pool) twice in one run, first without
 * load shedding (the baseline), then with OVERLOAD_MAX_DB_POOL_WAITING=--shed-at; prints the latency of answers that
 * did work and of 503 refusals for both, and audits both (a refused order must leave nothing).
 * `--retention <seconds>`: the retention worker in every instance, a retention "day" of that many seconds
 * (RETENTION_DAY_SECONDS) and a pass every half of it, the soak company keeping events, jobs and checkouts one such day.
 * Every run prints the rows and on-disk size of the tables retention bounds (bench/soak-tables.ts) at the start, every
 * 10 s and at the end: with --retention they stay flat while the orders keep coming.
 *
 * The instances run with the service's logger at its default level (info), written to a file in the temporary folder:
 * every line must be JSON (a serializer that threw or wrote garbage is a problem), and the lines are counted by level.
 * The settings changed from the defaults are the point of the run: the rate limit (thousands of orders from one key),
 * quick webhook retries (so refused deliveries are retried within the run), and the pool and shedding of --overload.
 */
import { createWriteStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { Redis } from 'ioredis';
import { buildApp } from '../src/app.js';
import { openRedis } from '../src/boot.js';
import { configSchema } from '../src/config.js';
import { createPgDatabase, type Database } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { createServices } from '../src/services.js';
import { createServiceLogger } from '../src/lib/logger.js';
import { runSoak, seedSoakCompany } from './soak-run.js';
import { createDeliveryWorker, type DeliveryWorker } from '../src/events/delivery-worker.js';
import { failingReceiver, webhookFigures } from './soak-webhooks.js';
import { createRetentionWorker, type RetentionWorker } from '../src/privacy/retention-worker.js';
import { sizesLine, tableSizes } from './soak-tables.js';

const { values: args } = parseArgs({
  options: {
    orders: { type: 'string', default: '5000' },
    clients: { type: 'string', default: '50' },
    instances: { type: 'string', default: '1' },
    hot: { type: 'string', default: '5' },
    cold: { type: 'string', default: '495' },
    'hot-stock': { type: 'string', default: '200' },
    keep: { type: 'boolean', default: false },
    webhooks: { type: 'string' },
    overload: { type: 'boolean', default: false },
    pool: { type: 'string', default: '4' },
    'shed-at': { type: 'string', default: '8' },
    retention: { type: 'string' },
  },
});

const serverUrl = process.env.SOAK_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(sqlText: string) {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    await c.query(sqlText);
  } finally {
    await c.end();
  }
}

async function main() {
  if (args.overload) {
    const overrides = { DB_POOL_MAX: args.pool, OVERLOAD_RETRY_AFTER_S: '1' };
    console.log(
      `overload: ${args.clients} clients on a pool of ${args.pool} per instance, first without shedding, then shedding at ${args['shed-at']} waiting`,
    );
    const base = await phase('no shedding (baseline)', { ...overrides, OVERLOAD_MAX_DB_POOL_WAITING: '0' }, false);
    const shed = await phase(`shedding at ${args['shed-at']} waiting`, { ...overrides, OVERLOAD_MAX_DB_POOL_WAITING: args['shed-at'] }, true);
    console.log('\n| run | orders tried/s | created | served p50 / p99 ms | refused (503) | refused p50 / p99 ms | problems |');
    console.log('| --- | --- | --- | --- | --- | --- | --- |');
    for (const [label, r] of [
      ['no shedding', base],
      ['shedding', shed],
    ] as const) {
      const l = r.latency;
      console.log(
        `| ${label} | ${(r.ordersAttempted / r.seconds).toFixed(0)} | ${r.created} | ${l.served.p50} / ${l.served.p99} | ${l.refused.count} | ${l.refused.p50} / ${l.refused.p99} | ${r.problems.length} |`,
      );
    }
    return;
  }
  await phase('soak', {}, false);
}

async function phase(label: string, overrides: Record<string, string>, shedding: boolean) {
  const instances = Number(args.instances);
  const name = `commerce_soak_${Date.now()}`;
  const dbUrl = (() => {
    const u = new URL(serverUrl);
    u.pathname = `/${name}`;
    return u.toString();
  })();
  console.log(
    `\n${label}: ${args.orders} orders, ${args.clients} clients, ${instances} instance(s), database ${name}${process.env.REDIS_URL ? `, Redis ${process.env.REDIS_URL}` : ''}`,
  );
  await admin(`CREATE DATABASE "${name}"`);
  const dbs: Database[] = [];
  const redisClients: Redis[] = [];
  const apps: Awaited<ReturnType<typeof buildApp>>[] = [];
  const retention: RetentionWorker[] = [];
  try {
    const config = configSchema.parse({
      ...process.env,
      DATABASE_URL: dbUrl,
      SEED_DEMO: 'false',
      RATE_LIMIT_MAX: '100000000',
      AUTH_FAILURE_LIMIT: '100000',
      ...overrides,
      // with --webhooks: a receiver on this machine, quick retries so the soak's failures are retried within the run
      ...(args.webhooks === undefined
        ? { WEBHOOK_WORKER_ENABLED: 'false' }
        : {
            WEBHOOK_ALLOW_HTTP: 'true',
            WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
            WEBHOOK_POLL_MS: '100',
            WEBHOOK_RETRY_BASE_MS: '200',
            WEBHOOK_RETRY_MAX_MS: '2000',
          }),
      // with --retention: a retention "day" of that many seconds, a pass every half of it
      ...(args.retention === undefined
        ? {}
        : { RETENTION_DAY_SECONDS: args.retention, RETENTION_POLL_MS: String(Math.max(100, (Number(args.retention) * 1000) / 2)) }),
    });
    const receiver = args.webhooks === undefined ? undefined : await failingReceiver(Number(args.webhooks));
    const logFile = join(tmpdir(), `${name}.log`);
    const logStream = createWriteStream(logFile);
    const logger = createServiceLogger({ level: config.LOG_LEVEL, destination: logStream });
    const workers: DeliveryWorker[] = [];
    const bases: string[] = [];
    for (let i = 0; i < instances; i++) {
      const db = createPgDatabase({
        url: dbUrl,
        poolMax: config.DB_POOL_MAX,
        statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
        connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
      });
      dbs.push(db);
      if (i === 0) await migrate(db);
      const redis = config.REDIS_URL ? await openRedis(config.REDIS_URL) : undefined;
      if (redis) redisClients.push(redis);
      const log = logger.child({ instance: i });
      const app = await buildApp({ config, db, redis, logger: log });
      apps.push(app);
      await app.listen({ host: '127.0.0.1', port: 0 });
      bases.push(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}${config.BASE_PATH}`);
      if (receiver)
        workers.push(
          createDeliveryWorker({
            db,
            config,
            log: log.child({ component: 'webhook-worker' }),
            onOutcome: app.metrics.webhookOutcome,
            onError: (stage) => app.metrics.workerError('webhooks', stage),
          }),
        );
      if (args.retention !== undefined)
        retention.push(
          createRetentionWorker({
            db,
            config,
            log: log.child({ component: 'retention' }),
            onPurged: app.metrics.retentionPurged,
            onError: (stage) => app.metrics.workerError('retention', stage),
          }),
        );
    }
    const services = createServices({ db: dbs[0], config });
    const seed = await seedSoakCompany(dbs[0], services, { hot: Number(args.hot), cold: Number(args.cold), hotStock: Number(args['hot-stock']) });
    if (receiver) {
      await services.webhooks.create(seed.companyId, { kind: 'cli', name: 'bench' }, { url: receiver.url, events: ['order.created'], description: 'soak' });
      for (const w of workers) w.start();
      console.log(`webhooks: receiver ${receiver.url} refusing ${Number(args.webhooks) * 100} % of requests; a delivery worker per instance`);
    }
    if (args.retention !== undefined) {
      const kept = { events_retention_days: 1, jobs_retention_days: 1, checkout_sessions_retention_days: 1 };
      await services.privacySettings.set(seed.companyId, { kind: 'cli', name: 'soak' }, kept);
      for (const w of retention) w.start();
      console.log(`retention: a day of ${args.retention} s, a pass every ${config.RETENTION_POLL_MS} ms, the company keeping ${JSON.stringify(kept)} days`);
    }
    const sizes = [{ at: 0, ...(await tableSizes(dbs[0])) }];
    console.log(sizesLine('tables at the start', sizes[0]));
    const t0 = Date.now();
    const sampler = setInterval(() => {
      void tableSizes(dbs[0]).then((s) => {
        const at = Math.round((Date.now() - t0) / 1000);
        sizes.push({ at, ...s });
        console.log(sizesLine(`tables at ${at} s`, s));
      });
    }, 10_000);
    console.log(`instances: ${bases.join(', ')}; ${seed.hot.length} hot variants (${args['hot-stock']} units each), ${seed.cold.length} cold`);
    const report = await runSoak(seed, {
      db: dbs[0],
      baseUrls: bases,
      orders: Number(args.orders),
      clients: Number(args.clients),
      log: console.log,
      shedding,
    }).finally(() => clearInterval(sampler));
    const { audit, problems, ...figures } = report;
    console.log('\nfigures:', JSON.stringify(figures, null, 2));
    console.log('audit totals:', JSON.stringify(audit.totals));
    console.log(
      `audit: ${audit.stock.length} stock rows off, ${audit.partial.length} partial orders, ${audit.orphans.length} orphan reservations, ${audit.duplicates.length} duplicate references`,
    );
    if (receiver) {
      const hooks = await webhookFigures(dbs[0], seed.companyId, receiver);
      for (const w of workers) await w.stop();
      await receiver.close();
      console.log('webhooks:', JSON.stringify(hooks));
      // with retention on, delivered events are deleted as the run goes: what arrived is compared with the orders alone
      const lost =
        args.retention === undefined ? hooks.received_distinct !== hooks.events || hooks.events !== report.created : hooks.received_distinct !== report.created;
      if (lost) problems.push(`webhooks: ${report.created} orders, ${hooks.events} events, ${hooks.received_distinct} distinct events received`);
    }
    if (args.retention !== undefined) {
      // one more pass past the last order's retention, then the worker stops
      await new Promise((r) => setTimeout(r, Number(args.retention) * 1000 + config.RETENTION_POLL_MS));
      for (const w of retention) await w.stop();
    }
    const end = { at: Math.round((Date.now() - t0) / 1000), ...(await tableSizes(dbs[0])) };
    sizes.push(end);
    console.log(sizesLine('tables at the end', end));
    console.log(
      '\n| s | ' +
        Object.keys(sizes[0])
          .filter((k) => k !== 'at')
          .join(' | ') +
        ' |',
    );
    console.log('|---|' + '---|'.repeat(Object.keys(sizes[0]).length - 1));
    for (const s of sizes)
      console.log(
        `| ${s.at} | ${Object.entries(s)
          .filter(([k]) => k !== 'at')
          .map(([, v]) => {
            const t = v as { rows: number; bytes: number };
            return `${t.rows} (${Math.round(t.bytes / 1024)} kB)`;
          })
          .join(' | ')} |`,
      );
    for (const app of apps.splice(0)) await app.close();
    await new Promise((r) => logStream.end(r));
    const lines = await logLines(logFile, problems);
    console.log(`service log (info and above): ${JSON.stringify(lines)}${args.keep ? ` in ${logFile}` : ''}`);
    if (!args.keep) await rm(logFile, { force: true });
    if (problems.length) {
      console.log(`\nPROBLEMS (${problems.length}):\n${problems.slice(0, 50).join('\n')}`);
      process.exitCode = 1;
    } else console.log('\nOK: nothing lost, oversold or duplicated');
    return report;
  } finally {
    for (const w of retention) await w.stop();
    for (const app of apps) await app.close();
    for (const db of dbs) await db.close();
    for (const r of redisClients) r.disconnect();
    if (!args.keep) await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

/** The service's log lines counted by level; a line that is not JSON is a problem. */
async function logLines(file: string, problems: string[]): Promise<Record<string, number>> {
  const names: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
  const counts: Record<string, number> = {};
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    if (!line) continue;
    try {
      const level = names[(JSON.parse(line) as { level: number }).level] ?? 'other';
      counts[level] = (counts[level] ?? 0) + 1;
    } catch {
      problems.push(`service log: a line is not JSON: ${line.slice(0, 200)}`);
    }
  }
  return counts;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
