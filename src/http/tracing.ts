import type { FastifyInstance } from 'fastify';
import { AppError, wireCode } from '../contract/errors.js';
import { inSpan, traceLogFields, tracingActive } from '../lib/tracing.js';
import type { Services } from '../services.js';

/** `error.type` of a span: the wire code of a refusal, `internal` for anything else. */
export const errorType = (err: unknown): string => (err instanceof AppError ? wireCode(err.kind) : 'internal');

/**
 * With tracing on (src/telemetry.ts), a request's log lines carry `trace_id` and `span_id` of its HTTP span, so a
 * trace leads to its log lines and back. Nothing is registered when tracing is off.
 */
export function registerTraceLogging(app: FastifyInstance): void {
  if (!tracingActive()) return;
  // @fastify/otel's own onRequest hook runs first (it is added as the instance is created) and makes the span active.
  app.addHook('onRequest', async (req, reply) => {
    const fields = traceLogFields();
    if (!fields) return;
    req.log = req.log.child(fields);
    reply.log = req.log;
  });
}

/** The services with `orders.place` (REST and MCP) in an `orders.place` span, the parent of its SQL statements. */
export function withOrderTracing(services: Services): Services {
  const inner = services.orders;
  const place: Services['orders']['place'] = (tenant, body, door) =>
    inSpan('orders.place', { 'order.lines': body.items.length }, () => inner.place(tenant, body, door), errorType);
  return { ...services, orders: { ...inner, place } };
}
