/**
 * The service as benchmarked: the real app (auth, rate limiter ON with a raised limit, error handling,
 * helmet, zod) plus two baseline routes in the same process and pool, outside the API:
 *   GET /bench/bare     a bare Fastify route
 *   GET /bench/select1  SELECT 1 through the same database pool
 */
import { sql } from 'drizzle-orm';
import { startTracing } from '../src/telemetry.js';
import { serveBench } from './harness.js';

// As src/server.ts: tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set) before the modules it instruments are loaded.
const tracing = await startTracing();
const { buildApp } = await import('../src/app.js');
const { openMigratedDatabase } = await import('../src/boot.js');
const { loadConfig } = await import('../src/config.js');

const config = loadConfig({ LOG_LEVEL: 'warn', SEED_DEMO: 'false', RATE_LIMIT_MAX: '100000000', ...process.env });
const db = await openMigratedDatabase(config);
const app = await buildApp({ config, db });
app.get('/bench/bare', async () => ({ ok: true }));
app.get('/bench/select1', async () => {
  const rows = await db.query<{ one: number }>(sql`SELECT 1 AS one`, 'bench_select1');
  return { one: rows[0].one };
});
await serveBench(app, [() => db.close(), () => tracing?.shutdown()]);
