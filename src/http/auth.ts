import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { AppError } from '../lib/errors.js';
import type { KeyService, Tenant } from '../keys/keys.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    tenant: Tenant;
  }
}

const UNAUTHORIZED = 'missing or invalid API key: send it as X-API-KEY or Authorization: Bearer <key>';

/** The key from `X-API-KEY` or `Authorization: Bearer`, equivalent; undefined when neither is usable. */
export function extractKey(req: FastifyRequest): string | undefined {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string' && header.trim()) return header.trim();
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (match) return match[1];
  }
  return undefined;
}

/**
 * Counts failed authentications per client address in a fixed window, so keys cannot be guessed
 * at speed. In Redis when configured (shared by every instance), else in this process.
 */
export interface FailureCounter {
  /** Records one failure; answers the address's failures in the window (all instances) and ms until it resets. */
  hit(addr: string): Promise<{ count: number; resetMs: number }>;
}

export function memoryFailureCounter(windowMs: number): FailureCounter {
  const hits = new Map<string, { count: number; resetAt: number }>();
  return {
    async hit(addr) {
      const now = Date.now();
      let entry = hits.get(addr);
      if (!entry || entry.resetAt <= now) {
        if (hits.size > 100_000) hits.clear(); // bounded memory under a flood of addresses
        entry = { count: 0, resetAt: now + windowMs };
        hits.set(addr, entry);
      }
      entry.count++;
      return { count: entry.count, resetMs: entry.resetAt - now };
    },
  };
}

export function redisFailureCounter(redis: Redis, windowMs: number): FailureCounter {
  const key = (addr: string) => `commerce:authfail:${addr}`;
  return {
    async hit(addr) {
      try {
        const count = await redis.incr(key(addr));
        if (count === 1) await redis.pexpire(key(addr), windowMs);
        return { count, resetMs: count === 1 ? windowMs : Math.max(await redis.pttl(key(addr)), 0) };
      } catch {
        return { count: 0, resetMs: 0 }; // Redis down: fail open, like the request rate limit
      }
    },
  };
}

export interface AuthOptions {
  keys: KeyService;
  failures: FailureCounter;
  failureLimit: number;
}

/** onRequest hook for the API scope: sets `req.tenant` or answers 401/403 (and 429 for guessers). */
export function registerAuth(scope: FastifyInstance, { keys, failures, failureLimit }: AuthOptions): void {
  scope.decorateRequest('tenant', null as unknown as Tenant);
  // Addresses past the limit, until their window ends. Filled from the shared count each failure returns, so a
  // successful request does no I/O for this check (an instance that has not yet seen an address fail lets one
  // more attempt through, then learns the shared count).
  const blocked = new Map<string, number>();
  scope.addHook('onRequest', async (req, reply) => {
    const until = blocked.get(req.ip);
    if (until !== undefined) {
      const ms = until - Date.now();
      if (ms > 0) {
        const retryAfter = String(Math.max(1, Math.ceil(ms / 1000)));
        throw new AppError('rate_limited', `too many failed authentications from this address; retry after ${retryAfter} s`, undefined, {
          'retry-after': retryAfter,
        });
      }
      blocked.delete(req.ip);
    }
    const key = extractKey(req);
    const outcome = key ? await keys.authenticate(key) : ({ ok: false, reason: 'unauthorized' } as const);
    if (!outcome.ok) {
      if (outcome.reason === 'unauthorized') {
        const { count, resetMs } = await failures.hit(req.ip);
        if (count >= failureLimit) {
          if (blocked.size > 100_000) blocked.clear(); // bounded memory under a flood of addresses
          blocked.set(req.ip, Date.now() + resetMs);
        }
        throw new AppError('unauthorized', UNAUTHORIZED);
      }
      throw new AppError('forbidden', outcome.message);
    }
    req.tenant = outcome.tenant;
    // Every later line of this request (including "request completed") names the key's visible prefix.
    req.log = reply.log = req.log.child({ key: outcome.tenant.keyPrefix, company: outcome.tenant.companyId });
  });
}
