import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { AppError } from '../contract/errors.js';

/** An onRequest hook that spends one request of a budget, or refuses with 429. */
export type LimitHook = (req: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface PublicLimits {
  invoices: LimitHook;
  feeds: LimitHook;
  photos: LimitHook;
}

/** The company a public link names: `:company` of a feed, the first segment of a photo or invoice path. */
function companyOf(req: FastifyRequest): string {
  const params = req.params as Record<string, string | undefined>;
  return (params.company ?? params['*']?.split('/')[0] ?? '').slice(0, 64);
}

/**
 * Budgets of the routes outside the API (signed photo and invoice links, the catalogue feed), per client address (the
 * proxy's client under TRUST_PROXY; an IPv6 /64 counts as one) and the company the link names, per
 * RATE_LIMIT_WINDOW_MS; shared by the instances through Redis when REDIS_URL is set, as the API's (docs/decisions.md).
 * Registered in `scope` (@fastify/rate-limit is encapsulated there); a route takes its hook as `onRequest`, so its HEAD
 * twin spends the same budget.
 */
export async function registerPublicLimits(
  scope: FastifyInstance,
  { config, redis }: { config: Pick<Config, 'RATE_LIMIT_WINDOW_MS' | 'INVOICE_LINK_RATE_LIMIT' | 'FEED_RATE_LIMIT' | 'PHOTO_LINK_RATE_LIMIT'>; redis?: Redis },
): Promise<PublicLimits> {
  const window = config.RATE_LIMIT_WINDOW_MS;
  await scope.register(rateLimit, {
    global: false,
    timeWindow: window,
    ...(redis ? { redis, nameSpace: 'commerce:rl:public:' } : {}),
    // Redis unreachable: serve without limits, like the API (docs/decisions.md)
    skipOnError: true,
    errorResponseBuilder: (_req, ctx) =>
      new AppError(
        'rate_limited',
        `more than ${ctx.max} requests per ${window / 1000} s for this company's links from this address; retry after ${Math.max(1, Math.ceil(ctx.ttl / 1000))} s`,
      ),
  });
  // One store for the three: the kind leads the key.
  const limit = (kind: string, max: number): LimitHook =>
    scope.rateLimit({ max, keyGenerator: (req) => `${kind}:${normalizeIP(req.ip)}:${companyOf(req)}` }) as unknown as LimitHook;
  return {
    invoices: limit('invoice', config.INVOICE_LINK_RATE_LIMIT),
    feeds: limit('feed', config.FEED_RATE_LIMIT),
    photos: limit('photo', config.PHOTO_LINK_RATE_LIMIT),
  };
}
