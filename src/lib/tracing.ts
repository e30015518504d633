import {
  context,
  propagation,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';

/**
 * The spans the service names itself (src/telemetry.ts starts the SDK). Without an SDK, `@opentelemetry/api` hands
 * out no-op spans, so these cost a function call.
 */
const tracer = trace.getTracer('commerce-api');

/** True once an SDK's tracer provider is registered (src/telemetry.ts); false when tracing is off. */
export function tracingActive(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegateTracer('commerce-api') !== undefined;
}

/**
 * `fn` in a span named `name`, a child of `parent` (the active context when not given). A refusal or failure marks
 * the span as an error with `error.type` = `errorType(err)`; the error's text is not recorded (it may repeat input).
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
  errorType: (err: unknown) => string,
  parent?: Context,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, parent ?? context.active(), async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      markFailed(span, errorType(err));
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Marks a span as failed with `error.type` (a wire error code or `internal`), never the error's text. */
export function markFailed(span: Span, type: string): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/** `trace_id` and `span_id` of the active span, for log lines; undefined when nothing is being traced. */
export function traceLogFields(): { trace_id: string; span_id: string } | undefined {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

const metaGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/**
 * The parent for work asked by an MCP request: the W3C `traceparent` (and `tracestate`) in the request's
 * `params._meta` when it carries one (the MCP convention for trace context), else the active context (the HTTP span).
 */
export function contextFromMeta(meta: unknown): Context {
  if (!meta || typeof meta !== 'object' || typeof (meta as Record<string, unknown>).traceparent !== 'string') return context.active();
  return propagation.extract(context.active(), meta as Record<string, unknown>, metaGetter);
}

/**
 * `fn` in a CLIENT span for an HTTP request made without fetch (webhooks use node:http, to check addresses when
 * connecting), given the W3C `traceparent`/`tracestate` headers to send. The URL's query is left out (it may hold a
 * token). With tracing off there are no headers and the span is the no-op.
 */
export function outboundRequest<T extends { status: number | null }>(
  method: string,
  url: URL,
  fn: (traceHeaders: Record<string, string>) => Promise<T>,
): Promise<T> {
  const attributes = { 'http.request.method': method, 'server.address': url.hostname, 'url.full': `${url.origin}${url.pathname}` };
  return tracer.startActiveSpan(method, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const headers: Record<string, string> = {};
    propagation.inject(context.active(), headers);
    try {
      const result = await fn(headers);
      if (result.status !== null) span.setAttribute('http.response.status_code', result.status);
      if (result.status === null || result.status >= 400) markFailed(span, result.status === null ? 'network' : String(result.status));
      return result;
    } finally {
      span.end();
    }
  });
}
