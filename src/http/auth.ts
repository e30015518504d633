import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { AppError } from '../contract/errors.js';
import type { KeyService, Permission, Tenant } from '../keys/keys.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    tenant: Tenant;
  }
  interface FastifyContextConfig {
    /** The key permission the route needs; `commerce` when not said. */
    permission?: Permission;
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

/**
 * onRequest hook for the API scope: sets `req.tenant` or answers 401/403, and 429 to an address that keeps
 * failing. The key is checked first, so a valid key is always served (its own rate limit aside) even from an
 * address shared with a guesser: only failed attempts spend or meet the address's failure budget.
 */
export function registerAuth(scope: FastifyInstance, { keys, failures, failureLimit }: AuthOptions): void {
  scope.decorateRequest('tenant', null as unknown as Tenant);
  // Addresses past the limit, until their window ends. Filled from the shared count each failure returns, so a
  // failure from a blocked address is refused without a Redis round trip (an instance that has not yet seen the
  // address fail asks Redis once, and learns the shared count).
  const blocked = new Map<string, number>();

  /** Charges one failure to the address; throws 429 once it is over the limit. */
  async function chargeFailure(addr: string): Promise<void> {
    let until = blocked.get(addr);
    if (until !== undefined && until <= Date.now()) {
      blocked.delete(addr);
      until = undefined;
    }
    if (until === undefined) {
      const { count, resetMs } = await failures.hit(addr);
      if (count < failureLimit) return;
      if (blocked.size > 100_000) blocked.clear(); // bounded memory under a flood of addresses
      until = Date.now() + resetMs;
      blocked.set(addr, until);
      if (count === failureLimit) return; // the attempt that reaches the limit still gets its 401
    }
    const retryAfter = String(Math.max(1, Math.ceil((until - Date.now()) / 1000)));
    throw new AppError('rate_limited', `too many failed authentications from this address; retry after ${retryAfter} s`, undefined, {
      'retry-after': retryAfter,
    });
  }

  scope.addHook('onRequest', async (req, reply) => {
    const key = extractKey(req);
    const outcome = key ? await keys.authenticate(key) : ({ ok: false, reason: 'unauthorized' } as const);
    if (!outcome.ok) {
      if (outcome.reason === 'unauthorized') {
        await chargeFailure(req.ip);
        throw new AppError('unauthorized', UNAUTHORIZED);
      }
      throw new AppError('forbidden', outcome.message);
    }
    const needed = req.routeOptions.config?.permission ?? 'commerce';
    if (!outcome.tenant.permissions.includes(needed))
      throw new AppError('forbidden', `this API key does not have the "${needed}" permission; the company admin gives it when creating a key`);
    req.tenant = outcome.tenant;
    // Every later line of this request (including "request completed") names the key's visible prefix.
    req.log = reply.log = req.log.child({ key: outcome.tenant.keyPrefix, company: outcome.tenant.companyId });
  });
}
