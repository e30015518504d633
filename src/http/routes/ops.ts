import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/index.js';
import { errorBody } from '../../contract/errors.js';

const READY_TIMEOUT_MS = 2000;

/** Unauthenticated operational routes, outside the API base path. */
export function registerOpsRoutes(app: FastifyInstance, { db, draining }: { db: Database; draining: () => boolean }): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_req, reply) => {
    // shutting down: not ready for new work, though requests already sent are still served
    if (draining()) return reply.status(503).send(errorBody('unavailable', 'shutting down'));
    try {
      await Promise.race([db.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('database ping timed out')), READY_TIMEOUT_MS).unref())]);
      return { status: 'ok', database: 'ok' };
    } catch {
      return reply.status(503).send(errorBody('unavailable', 'database unreachable'));
    }
  });
}
