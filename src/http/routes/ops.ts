import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/index.js';
import { errorBody } from '../../contract/errors.js';
import type { OverloadState } from '../overload.js';

const READY_TIMEOUT_MS = 2000;

/** Unauthenticated operational routes, outside the API base path. */
export function registerOpsRoutes(app: FastifyInstance, { db, draining, overload }: { db: Database; draining: () => boolean; overload: OverloadState }): void {
  // Probes are answered under overload too (src/http/overload.ts): that is how an operator and a load balancer see it.
  // They are quiet: a health check every few seconds writes no request lines (logLevel warn: only their failures log).
  const probe = { config: { overloadExempt: true }, logLevel: 'warn' } as const;
  app.get('/healthz', probe, async () => ({ status: 'ok' }));

  app.get('/readyz', probe, async (_req, reply) => {
    // shutting down: not ready for new work, though requests already sent are still served
    if (draining()) return reply.status(503).send(errorBody('unavailable', 'shutting down'));
    // overloaded: new work is being refused here, so a load balancer should send it elsewhere for now
    const pressure = overload();
    if (pressure) return reply.status(503).send(errorBody('unavailable', `overloaded (${pressure})`));
    try {
      await Promise.race([db.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('database ping timed out')), READY_TIMEOUT_MS).unref())]);
      // a replica down or lagging leaves the instance ready: its reads go to the primary (docs/scaling.md)
      const replica = db.replica?.status().state;
      return replica ? { status: 'ok', database: 'ok', replica } : { status: 'ok', database: 'ok' };
    } catch {
      return reply.status(503).send(errorBody('unavailable', 'database unreachable'));
    }
  });
}
