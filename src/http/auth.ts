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
  /** Current failures in the window and ms until it resets. */
  peek(addr: string): Promise<{ count: number; resetMs: number }>;
  hit(addr: string): Promise<void>;
}

export function memoryFailureCounter(windowMs: number): FailureCounter {
  const hits = new Map<string, { count: number; resetAt: number }>();
  const current = (addr: string) => {
    const now = Date.now();
    const entry = hits.get(addr);
    if (!entry || entry.resetAt <= now) return undefined;
    return entry;
  };
  return {
    async peek(addr) {
      const e = current(addr);
      return e ? { count: e.count, resetMs: e.resetAt - Date.now() } : { count: 0, resetMs: 0 };
    },
    async hit(addr) {
      const e = current(addr);
      if (e) e.count++;
      else {
        if (hits.size > 100_000) hits.clear(); // bounded memory under a flood of addresses
        hits.set(addr, { count: 1, resetAt: Date.now() + windowMs });
      }
    },
  };
}

export function redisFailureCounter(redis: Redis, windowMs: number): FailureCounter {
  const key = (addr: string) => `commerce:authfail:${addr}`;
  return {
    async peek(addr) {
      try {
        const [count, ttl] = await Promise.all([redis.get(key(addr)), redis.pttl(key(addr))]);
        return { count: Number(count ?? 0), resetMs: Math.max(ttl, 0) };
      } catch {
        return { count: 0, resetMs: 0 }; // Redis down: fail open, like the request rate limit
      }
    },
    async hit(addr) {
      try {
        const count = await redis.incr(key(addr));
        if (count === 1) await redis.pexpire(key(addr), windowMs);
      } catch {
        /* fail open */
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
  scope.addHook('onRequest', async (req, reply) => {
    const { count, resetMs } = await failures.peek(req.ip);
    if (count >= failureLimit) {
      const retryAfter = String(Math.max(1, Math.ceil(resetMs / 1000)));
      throw new AppError('rate_limited', `too many failed authentications from this address; retry after ${retryAfter} s`, undefined, {
        'retry-after': retryAfter,
      });
    }
    const key = extractKey(req);
    const outcome = key ? await keys.authenticate(key) : ({ ok: false, reason: 'unauthorized' } as const);
    if (!outcome.ok) {
      if (outcome.reason === 'unauthorized') {
        await failures.hit(req.ip);
        throw new AppError('unauthorized', UNAUTHORIZED);
      }
      throw new AppError('forbidden', outcome.message);
    }
    req.tenant = outcome.tenant;
    // Every later line of this request (including "request completed") names the key's visible prefix.
    req.log = reply.log = req.log.child({ key: outcome.tenant.keyPrefix, company: outcome.tenant.companyId });
  });
}
