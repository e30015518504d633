import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../contract/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served under overload too: health and readiness probes (and metrics) must stay answerable. */
    overloadExempt?: boolean;
  }
}

export interface OverloadOptions {
  /** Mean event-loop delay over the last sample above which new work is refused; 0: not checked. */
  maxEventLoopDelayMs: number;
  /** V8 heap in use above which new work is refused; 0: not checked. */
  maxHeapMb: number;
  /** Requests already queued for a database connection at which new work is refused; 0: not checked. */
  maxDbPoolWaiting: number;
  retryAfterS: number;
  /** How many queries are waiting for a pool connection now. */
  poolWaiting: () => number;
}

/** What the overload guard reports: why it refuses work now, or undefined when it does not. */
export type OverloadState = () => string | undefined;

/**
 * Load shedding. Past a configured bound the service refuses new work at the door with 503 `unavailable`
 * and `Retry-After`, before authentication, validation or any query: the requests it accepts keep their latency and
 * the rest learn at once to come back, instead of every request slowing without bound. Event-loop delay and heap are
 * sampled by @fastify/under-pressure (once a second); the database pool's queue is read on every request, since it is
 * what grows first when the database is the bottleneck. Routes marked `overloadExempt` (probes) are always served;
 * readiness reports the reason so a load balancer sends new work elsewhere.
 */
export async function registerOverload(app: FastifyInstance, opts: OverloadOptions): Promise<OverloadState> {
  const refusal = (reason: string) =>
    new AppError('unavailable', `the service is overloaded (${reason}); nothing was done: retry after ${opts.retryAfterS} s`, undefined, {
      'retry-after': String(opts.retryAfterS),
    });
  const poolReason = () => {
    if (opts.maxDbPoolWaiting <= 0) return undefined;
    const waiting = opts.poolWaiting();
    return waiting >= opts.maxDbPoolWaiting ? `${waiting} queries waiting for a database connection, limit ${opts.maxDbPoolWaiting}` : undefined;
  };
  const sampledReason = () => {
    const { eventLoopDelay, heapUsed } = app.memoryUsage();
    if (opts.maxEventLoopDelayMs > 0 && eventLoopDelay > opts.maxEventLoopDelayMs)
      // no timer ran in the whole sample (under-pressure reports Infinity): the loop was blocked throughout
      return `event loop ${Number.isFinite(eventLoopDelay) ? `delay ${Math.round(eventLoopDelay)} ms` : 'blocked through the last sample'}, limit ${opts.maxEventLoopDelayMs} ms`;
    const heapMb = heapUsed / 1024 / 1024;
    if (opts.maxHeapMb > 0 && heapMb > opts.maxHeapMb) return `heap ${Math.round(heapMb)} MB in use, limit ${opts.maxHeapMb} MB`;
    return undefined;
  };

  await app.register(underPressure, {
    maxEventLoopDelay: opts.maxEventLoopDelayMs,
    maxHeapUsedBytes: opts.maxHeapMb * 1024 * 1024,
    retryAfter: opts.retryAfterS,
    pressureHandler: async (req) => {
      if (req.routeOptions.config?.overloadExempt) return;
      throw refusal(sampledReason() ?? 'under pressure');
    },
  });
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.config?.overloadExempt) return;
    const reason = poolReason();
    if (reason) throw refusal(reason);
  });
  return () => sampledReason() ?? poolReason();
}
