import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Database } from './db/index.js';
import { AppError } from './contract/errors.js';
import { compileSerializer } from './contract/serializer.js';
import { logOptions } from './lib/log-privacy.js';
import { trustProxyFn } from './lib/trust-proxy.js';
import { memoryFailureCounter, redisFailureCounter, registerAuth } from './http/auth.js';
import { registerErrorHandling } from './http/error-handler.js';
import { clientErrorHandler, frameworkError, registerRequestEdges } from './http/client-errors.js';
import { registerOpenApi } from './http/openapi.js';
import { registerOriginCheck } from './http/origin.js';
import { registerOverload } from './http/overload.js';
import { createMetrics, registerRequestMetrics, withOrderMetrics, type Metrics } from './http/metrics.js';
import { registerTraceLogging, withOrderTracing } from './http/tracing.js';
import { createServices, type Services } from './services.js';
import { registerApiRoutes, registerPublicRoutes } from './http/routes/index.js';
import { TOOLS } from './mcp/tools.js';

export interface AppDeps {
  config: Config;
  db: Database;
  redis?: Redis;
  /** pino options or `false`; tests pass a stream to read logs. */
  logger?: FastifyServerOptions['loggerInstance'] | FastifyServerOptions['logger'];
  services?: Services;
  /** true once the process is shutting down: readiness fails (src/main.ts). */
  draining?: () => boolean;
  /** Prometheus metrics; made here when not given. src/main.ts serves them on METRICS_PORT. */
  metrics?: Metrics;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, db, redis } = deps;
  const loggerOpt =
    deps.logger && typeof deps.logger === 'object' && 'child' in deps.logger
      ? { loggerInstance: deps.logger as FastifyServerOptions['loggerInstance'] }
      : { logger: deps.logger ?? logOptions(config.LOG_LEVEL) };

  const app = Fastify({
    ...loggerOpt,
    // A caller's request id is kept when it is sane, else we make one; every response echoes it.
    // false: Fastify would otherwise take the header verbatim and skip genReqId's check.
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    bodyLimit: 32 * 1024,
    // Path parameters are length-checked by each route's schema (400 with details), not by the router's 414.
    routerOptions: { maxParamLength: 1000 },
    // Off unless TRUST_PROXY names the proxies in front: then req.ip/host/protocol come from X-Forwarded-*.
    trustProxy: trustProxyFn(config.TRUST_PROXY),
    // While closing, a request arriving on a kept-alive connection is still served (with Connection: close), not
    // refused with Fastify's own 503 body: the pools close only after every request has finished (src/main.ts).
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Refusals before routing (Node's parser, Fastify's router, Host and URL length) in our error shape: src/http/client-errors.ts.
    http: { requireHostHeader: false },
    clientErrorHandler,
    frameworkErrors: (err, req, reply) => frameworkError(err, req as FastifyRequest, reply as FastifyReply),
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // Responses are written by fast-json-stringify compiled from each route's zod schema: an allowlist, no zod parse per response.
  app.setSerializerCompiler(({ schema }) => compileSerializer(schema as z.ZodType));
  // JSON only: text/plain and anything else is 415.
  app.removeContentTypeParser(['text/plain']);
  const metrics = deps.metrics ?? createMetrics(db);
  app.decorate('metrics', metrics);
  registerRequestMetrics(app, metrics);
  registerTraceLogging(app);
  registerErrorHandling(app);
  registerRequestEdges(app);
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });

  await app.register(helmet, { global: true });
  // First of the hooks that do work: under overload a request is refused before authentication or any query.
  const overload = await registerOverload(app, {
    maxEventLoopDelayMs: config.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
    maxHeapMb: config.OVERLOAD_MAX_HEAP_MB,
    maxDbPoolWaiting: config.OVERLOAD_MAX_DB_POOL_WAITING,
    retryAfterS: config.OVERLOAD_RETRY_AFTER_S,
    poolWaiting: () => db.poolStats().waiting,
  });
  // Before every route: the OpenAPI document only sees routes registered after it.
  await registerOpenApi(app, config, TOOLS);

  // Every order placed through REST or MCP is counted and timed (metrics) and traced by wrapping the one service both call.
  const services = withOrderTracing(withOrderMetrics(deps.services ?? createServices({ db, config }), metrics));
  metrics.watchCatalogueCache(() => services.catalogueCache.stats());
  registerPublicRoutes(app, { db, services, config, redis, draining: deps.draining ?? (() => false), overload });

  await app.register(
    // Named: Fastify names the context after its plugin function (an anonymous one by its source), and traces show it.
    async function apiRoutes(api) {
      // Before the key is looked at: a page on a foreign origin learns nothing, not even whether its key is valid.
      registerOriginCheck(api, config);
      const failures = redis ? redisFailureCounter(redis, config.RATE_LIMIT_WINDOW_MS) : memoryFailureCounter(config.RATE_LIMIT_WINDOW_MS);
      registerAuth(api, { keys: services.keys, failures, failureLimit: config.AUTH_FAILURE_LIMIT });
      await api.register(rateLimit, {
        global: true,
        max: config.RATE_LIMIT_MAX,
        timeWindow: config.RATE_LIMIT_WINDOW_MS,
        keyGenerator: (req) => req.tenant.keyId,
        ...(redis ? { redis, nameSpace: 'commerce:rl:' } : {}),
        // Redis unreachable: serve without limits rather than refuse every request (docs/decisions.md).
        skipOnError: true,
        errorResponseBuilder: (_req, ctx) =>
          new AppError(
            'rate_limited',
            `rate limit of ${ctx.max} requests per ${config.RATE_LIMIT_WINDOW_MS / 1000} s exceeded for this key; retry after ${Math.max(1, Math.ceil(ctx.ttl / 1000))} s`,
          ),
      });
      await registerApiRoutes(api, services, { toolCalled: metrics.toolCalled, mcpDirectToolCalls: config.MCP_DIRECT_TOOL_CALLS });
    },
    { prefix: config.BASE_PATH },
  );

  return app;
}
