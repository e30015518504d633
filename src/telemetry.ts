import { register } from 'node:module';
import { MASK, requestTarget } from './lib/log-request.js';

/**
 * OpenTelemetry traces (docs/operations.md "Traces"), on only when OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. Off, nothing is loaded or registered: the tracer of `@opentelemetry/api`
 * stays its no-op. On, it must run before pg, ioredis and fastify are imported (src/server.ts imports the service
 * after it): the ESM loader hook below and require-in-the-middle only patch modules loaded after them.
 *
 * Spans: the HTTP request (@fastify/otel, which also honours an incoming W3C `traceparent`), `orders.place`
 * (src/http/tracing.ts), MCP tool calls (src/mcp/server.ts), every SQL statement (pg: the parameterised text, never
 * the values), Redis commands (the command name only) and outbound fetches (undici: the courier API), which carry
 * `traceparent` out; webhook sends are traced in src/events/sender.ts. The standard OTEL_* variables apply:
 * OTEL_SERVICE_NAME (default `commerce-api`), OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_PROTOCOL (`http/protobuf`,
 * the default, or `http/json`), OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER(_ARG), OTEL_BSP_*. `env` decides
 * whether tracing starts and with which exporter; the SDK reads the rest from process.env itself.
 */
export interface Tracing {
  /** Sends the spans still buffered and stops (at shutdown). */
  shutdown: () => Promise<void>;
}

export class TracingConfigError extends Error {}

type Env = Record<string, string | undefined>;

export function tracingWanted(env: Env = process.env): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return Boolean(endpoint) && env.OTEL_SDK_DISABLED !== 'true' && env.OTEL_TRACES_EXPORTER !== 'none';
}

export async function startTracing(env: Env = process.env): Promise<Tracing | null> {
  if (!tracingWanted(env)) return null;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new TracingConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: use http/protobuf (the default) or http/json`);
  }

  // pg and ioredis are CommonJS imported from ESM: this hook (import-in-the-middle) lets their instrumentations patch
  // them; only these modules pass through it, the rest load as before.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: ['pg', 'pg-pool', 'ioredis'] } });

  const [sdk, resources, instrumentation, exporter, { FastifyOtelInstrumentation }, pg, ioredis, undici] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation'),
    protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
    import('@fastify/otel'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-undici'),
  ]);

  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the environment detector) win over the default name.
  const resource = resources
    .resourceFromAttributes({ 'service.name': 'commerce-api' })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.NodeTracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor(new exporter.OTLPTraceExporter())],
  });
  provider.register(); // global tracer provider, AsyncLocalStorage context, W3C traceparent/tracestate propagation

  instrumentation.registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new FastifyOtelInstrumentation({
        // Added to every Fastify instance as it is created (diagnostics channel), before any other hook.
        registerOnInitialization: true,
        // The request and its handler; one span per hook would double the spans of a request for little insight.
        instrumentHooks: false,
        // The path as sent may hold a secret or a phone (a feed's secret, an order reference): the span shows the route
        // template and the masked query, as the logs do (src/lib/log-request.ts).
        requestHook: (span, request) => span.setAttribute('url.path', requestTarget(request).url ?? ''),
      }),
      // Statements of a request only (the workers' polling would be a root span every few milliseconds);
      // enhancedDatabaseReporting stays off, so parameter values are never recorded.
      new pg.PgInstrumentation({ requireParentSpan: true }),
      // The command name only: keys and arguments may hold a key id or an address.
      new ioredis.IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
      // Outbound fetches carry traceparent; their query strings (possible tokens) are left out of the span.
      new undici.UndiciInstrumentation({
        requestHook: (span, request) => {
          const [path, query] = request.path.split('?');
          span.setAttribute('url.full', `${request.origin}${path}`);
          if (query) span.setAttribute('url.query', MASK);
        },
      }),
    ],
  });

  return { shutdown: () => provider.shutdown() };
}
