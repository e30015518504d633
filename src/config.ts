import { z } from 'zod';
import { parseTrustProxy } from './lib/trust-proxy.js';
import { parseAllowedOrigins } from './lib/origin.js';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** An on/off setting: exactly `true` or `false`, as a boolean. */
const flag = (byDefault: 'true' | 'false') =>
  z
    .enum(['true', 'false'])
    .default(byDefault)
    .transform((v) => v === 'true');

/** Every setting the service reads, with its default. `.env.example` documents the same list. */
export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  BASE_PATH: z
    .string()
    .regex(/^\/[A-Za-z0-9/_-]*[A-Za-z0-9_-]$/, 'must start with "/" and not end with "/"')
    .default('/api/v1/commerce'),
  PUBLIC_URL: optionalString.pipe(z.url().optional()),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const parsed = parseTrustProxy(raw);
      if (typeof parsed === 'object' && !Array.isArray(parsed)) {
        ctx.addIssue({ code: 'custom', message: parsed.error });
        return z.NEVER;
      }
      return parsed;
    }),
  // Browser origins allowed to call the API: a request with any other Origin header is refused with 403.
  ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const parsed = parseAllowedOrigins(raw);
      if (!Array.isArray(parsed)) {
        ctx.addIssue({ code: 'custom', message: parsed.error });
        return z.NEVER;
      }
      return parsed;
    }),
  DATABASE_URL: optionalString,
  DATA_DIR: z.string().min(1).default('./data'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(20),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
  // A streaming replica of DATABASE_URL for catalogue reads (docs/scaling.md). A read waits at most
  // DATABASE_REPLICA_MAX_LAG_MS for it to replay the primary's commits, else the primary answers; a replica down or
  // lagging past that is skipped until it recovers.
  DATABASE_REPLICA_URL: optionalString,
  DATABASE_REPLICA_MAX_LAG_MS: z.coerce.number().int().min(1).max(60_000).default(100),
  REDIS_URL: optionalString,
  RATE_LIMIT_MAX: z.coerce.number().int().min(1).default(60),
  RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(1000).default(60_000),
  AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).default(30),
  // The routes outside the API: requests per client address and company per RATE_LIMIT_WINDOW_MS to signed
  // invoice links, the catalogue feed and signed photo links (a page shows dozens of photos); past it 429.
  INVOICE_LINK_RATE_LIMIT: z.coerce.number().int().min(1).default(60),
  FEED_RATE_LIMIT: z.coerce.number().int().min(1).default(30),
  PHOTO_LINK_RATE_LIMIT: z.coerce.number().int().min(1).default(1200),
  MEDIA_DIR: z.string().min(1).default('./media'),
  // The public UCP business endpoints (/ucp/<slug>/…, /.well-known/ucp): requests per client address and company, and
  // per company from every address, per RATE_LIMIT_WINDOW_MS; past either 429. Generous: an agent's checkout is a few
  // dozen requests, the UCP conformance suite about 600 in a few minutes.
  UCP_RATE_LIMIT: z.coerce.number().int().min(1).default(600),
  UCP_COMPANY_RATE_LIMIT: z.coerce.number().int().min(1).default(6000),
  // Where the profile's dev.ucp.* spec and schema links point (https://ucp.dev in production); empty: to the minimal
  // documents this service serves under each company's endpoint, which answer without leaving the machine.
  UCP_DOCS_BASE_URL: optionalString.pipe(z.url().optional()),
  // The UCP conformance suite's payment handlers (google_pay, mock_payment_handler, shop_pay) in every profile: for a
  // conformance run only, never in production (they take no real payment).
  UCP_TEST_HANDLERS: flag('false'),
  // The conformance suite's harness (POST /ucp/<slug>/testing/simulate-shipping/<order id> with this secret in a
  // Simulation-Secret header, and PUT …/orders/<id>): served only when set, for a conformance run, never in production.
  UCP_SIMULATION_SECRET: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  // Catalogue read models held per instance: least recently used companies leave past this many MB.
  CATALOGUE_CACHE_MB: z.coerce.number().min(0).default(512),
  // A single MCP tools/call (2025 era or 2026-07-28) answered without the SDK's per-request server (docs/decisions.md);
  // false sends every MCP request through the SDK's transport.
  MCP_DIRECT_TOOL_CALLS: flag('true'),
  SIGNING_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  SEED_DEMO: flag('true'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Prometheus metrics: GET /metrics on this port of its own, never the public one; empty or 0: not served.
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  METRICS_HOST: optionalString,
  // Load shedding (docs/operations.md): past any of these bounds new work is refused with 503 and Retry-After.
  // 0 turns a bound off; event-loop delay and heap are off by default (their right values depend on the deployment).
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).default(0),
  OVERLOAD_MAX_HEAP_MB: z.coerce.number().int().min(0).default(0),
  OVERLOAD_MAX_DB_POOL_WAITING: z.coerce.number().int().min(0).default(100),
  OVERLOAD_RETRY_AFTER_S: z.coerce.number().int().min(1).max(300).default(2),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  // On SIGTERM /readyz answers 503 for this long while requests are still served, so a load balancer stops sending
  // new ones before the server stops accepting them (docs/operations.md).
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).default(2_000),
  FULFILMENT_WORKER_ENABLED: flag('true'),
  FULFILMENT_POLL_MS: z.coerce.number().int().min(10).default(2_000),
  FULFILMENT_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
  FULFILMENT_RETRY_BASE_MS: z.coerce.number().int().min(1).default(30_000),
  FULFILMENT_LEASE_MS: z.coerce.number().int().min(1000).default(120_000),
  COURIER_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  COURIER_CALLBACK_TOLERANCE_S: z.coerce.number().int().min(1).max(3600).default(300),
  COURIER_CALLBACK_RATE_LIMIT: z.coerce.number().int().min(1).default(600),
  // How often each instance looks for open checkouts past their expiry, to release their held stock.
  CHECKOUT_EXPIRY_POLL_MS: z.coerce.number().int().min(10).default(5_000),
  // Retention (README "Privacy settings"): how often each instance purges what every company's privacy settings no
  // longer keep, in batches of RETENTION_BATCH rows (each its own short transaction) with RETENTION_PAUSE_MS between
  // them so orders are never held up. RETENTION_DAY_SECONDS is the length of a retention "day": 86400 always, except
  // in the soak and tests, which shorten it to watch tables stay flat.
  RETENTION_WORKER_ENABLED: flag('true'),
  RETENTION_POLL_MS: z.coerce.number().int().min(10).default(3_600_000),
  RETENTION_BATCH: z.coerce.number().int().min(1).max(10_000).default(1_000),
  RETENTION_PAUSE_MS: z.coerce.number().int().min(0).max(60_000).default(50),
  RETENTION_DAY_SECONDS: z.coerce.number().int().min(1).max(86_400).default(86_400),
  INVOICE_DUE_DAYS: z.coerce.number().int().min(0).max(365).default(15),
  // How long a signed invoice link stays valid (a customer opens it from a chat, often later than a photo link).
  INVOICE_LINK_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86400)
    .default(86400),
  // Payment providers (Razorpay): the limit of one API call; http:// and loopback or private API addresses (a
  // simulator), for development and tests only; webhook deliveries per client address and company per window.
  PAYMENT_API_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  PAYMENT_API_ALLOW_LOCAL: flag('false'),
  PAYMENT_WEBHOOK_RATE_LIMIT: z.coerce.number().int().min(1).default(1200),
  // Catalogue import: photos named by URL (docs/catalogue-import.md). The ALLOW setting (http:// and loopback or private
  // addresses) is for development and tests only, as for webhooks.
  IMPORT_PHOTO_ALLOW_LOCAL: flag('false'),
  IMPORT_PHOTO_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  IMPORT_PHOTO_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(4),
  // Webhooks. The two ALLOW settings are for development and tests only: never in production.
  WEBHOOK_ALLOW_HTTP: flag('false'),
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: flag('false'),
  WEBHOOK_WORKER_ENABLED: flag('true'),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).default(1_000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).default(30_000),
  WEBHOOK_RETRY_MAX_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(6 * 60 * 60 * 1000),
  /** how long a delivery is retried before it is marked failed (at least 24 hours outside tests) */
  WEBHOOK_RETRY_FOR_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(26 * 60 * 60 * 1000),
  /** an endpoint failing without a single success for this long is disabled */
  WEBHOOK_DISABLE_AFTER_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(3 * 24 * 60 * 60 * 1000),
  /** how long the previous secret keeps signing after a rotation */
  WEBHOOK_ROTATION_GRACE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(24 * 60 * 60 * 1000),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

/** Parses the environment once; a bad value stops the process with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(environment)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
