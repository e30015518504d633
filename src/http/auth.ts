import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { AppError } from '../contract/errors.js';
import { toAppError } from './error-handler.js';
import type { KeyService, Permission, Tenant } from '../keys/keys.service.js';
import { authenticateUnsettled, UNAUTHORIZED, type FullAuthentication } from '../keys/key-check.js';

declare module 'fastify' {
  interface FastifyRequest {
    tenant: Tenant;
  }
  interface FastifyContextConfig {
    /** The key permission the route needs; `commerce` when not said. */
    permission?: Permission;
    /**
     * A key this instance already knows is served from memory, its check owed (src/keys/key-check.ts), so it costs no
     * round trip of its own. `true`: the handler's first statement, read through a tenant reader, checks it; only for
     * routes that change nothing before that statement. `'per tool'`: the MCP endpoint, where each tool's definition
     * decides (src/mcp/tools.ts). A check still owed when the answer leaves is made in full first (below).
     */
    keyInFirstStatement?: true | 'per tool';
  }
}

/** Headers a refused request never carries; a refusal found late drops any a handler or hook set. */
const NOT_ON_REFUSALS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  'etag',
  'cache-control',
  'last-modified',
  'location',
];

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

  /** Why the key cannot be served: a full authentication's refusal. */
  function refusalOf(outcome: FullAuthentication): AppError | undefined {
    if (outcome.ok) return undefined;
    return outcome.reason === 'unauthorized' ? new AppError('unauthorized', UNAUTHORIZED) : new AppError('forbidden', outcome.message);
  }

  /** Why the key cannot be served on this route, or undefined when it can. */
  function refusal(outcome: Awaited<ReturnType<KeyService['authenticate']>>, needed: Permission): AppError | undefined {
    if (!outcome.ok) return refusalOf(outcome);
    if (!outcome.tenant.permissions.includes(needed))
      return new AppError('forbidden', `this API key does not have the "${needed}" permission; the company admin gives it when creating a key`);
    return undefined;
  }

  scope.addHook('onRequest', async (req, reply) => {
    const key = extractKey(req);
    const config = req.routeOptions.config;
    const outcome = key
      ? await keys.authenticate(key, { deferred: config?.keyInFirstStatement !== undefined })
      : ({ ok: false, reason: 'unauthorized' } as const);
    const refused = refusal(outcome, config?.permission ?? 'commerce');
    if (refused) {
      if (refused.kind === 'unauthorized') await chargeFailure(req.ip);
      throw refused;
    }
    const { tenant } = outcome as { tenant: Tenant };
    req.tenant = tenant;
    // Every later line of this request (including "request completed") names the key's visible prefix.
    req.log = reply.log = req.log.child({ key: tenant.keyPrefix, company: tenant.companyId });
  });

  // A key from memory whose check no statement settled (input refused before the handler, a handler that failed
  // early, or a statement that found the key refused) is authenticated in full before anything leaves (once per
  // request: a tool may have asked already): a refusal replaces the answer with the one a request with that key would
  // get from the start, alike in status, body and headers. A 401 spends the address's failure budget as in onRequest,
  // and past the limit is the same 429. The key's company and permissions never change, so its permission stands.
  scope.addHook('onSend', async (req, reply, payload) => {
    let refused: AppError | undefined;
    try {
      const outcome = await authenticateUnsettled(req.tenant);
      if (!outcome) return payload;
      refused = refusalOf(outcome);
      if (refused?.kind === 'unauthorized') await chargeFailure(req.ip);
    } catch (err) {
      // a 429 from the failure budget, or the key cannot be read (database unreachable): nothing that needed it
      // leaves, only the error every request gets
      refused = toAppError(err as Error);
      if (refused.kind === 'internal') req.log.error({ err }, 'request failed');
    }
    if (!refused) return payload;
    if (refused.kind !== 'internal') req.log.info({ code: refused.kind }, refused.message);
    for (const name of NOT_ON_REFUSALS) reply.removeHeader(name);
    if (refused.headers) reply.headers(refused.headers);
    reply.code(refused.status).header('content-type', 'application/json; charset=utf-8');
    return JSON.stringify(refused.toBody());
  });
}
