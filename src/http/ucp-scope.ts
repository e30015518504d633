import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { UcpBusiness, UcpSettingsService } from '../checkout/ucp-settings.service.js';
import { AppError, wireCode, type FieldIssue } from '../contract/errors.js';
import {
  negotiateVersion,
  parseUcpAgent,
  UCP_VERSION,
  ucpErrorBody,
  UcpError,
  type UcpAgent,
  type UcpErrorBody,
  type UcpVersion,
} from '../contract/ucp-wire.js';
import { refusalFor } from '../checkout/ucp-output.js';
import { scrubText } from '../lib/log-privacy.js';
import { toAppError } from './error-handler.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The company a public UCP request is served for: set before any body is read, or the request is a 404. */
    ucpBusiness: UcpBusiness;
    /** What the platform said of itself in UCP-Agent; set by ucpVersionCheck. */
    ucpAgent: UcpAgent;
    /** The UCP version the request is answered in, once negotiated (ucpVersionCheck); unset, 2026-01-11's shapes. */
    ucpVersion: UcpVersion | null;
  }
  interface FastifyContextConfig {
    /** A route's path-rewriting for 2026-04-08 refusals (a complete's `$.payment_data` is `$.payment.instruments[i]`). */
    ucpRenamePath?: (req: FastifyRequest, path: string) => string;
  }
}

/** The one answer for an unknown slug, a business that is off, an inactive company and an unknown path alike. */
export const UCP_NOT_FOUND = 'not found';

/** `items[0].quantity` → `$.items[0].quantity`; a placeholder such as `(body)` names no field. */
const jsonPath = (path: string) => (path.startsWith('(') ? undefined : `$.${path}`);

/** Anything thrown on the UCP surface as UCP's error body: never a stack, never the REST API's shape. */
function ucpRefusal(err: Error, bodyLimit?: number): { status: number; body: UcpErrorBody; headers?: Record<string, string>; fault: boolean } {
  if (err instanceof UcpError) return { status: err.status, body: ucpErrorBody(err.code, err.message, err.path), fault: false };
  const refusal = toAppError(err, bodyLimit);
  const code = wireCode(refusal.kind);
  const body = ucpErrorBody(code, refusal.message);
  if (Array.isArray(refusal.details) && refusal.details.length) {
    body.messages = (refusal.details as FieldIssue[]).map((d) => ucpErrorBody(code, d.message, jsonPath(d.path)).messages[0]);
  }
  return { status: refusal.status, body, headers: refusal.headers, fault: refusal.kind === 'internal' };
}

/** A refusal (UCP's 2026-01-11 body) in the request's negotiated version, paths renamed as its route says. */
export function ucpAnswerRefusal(req: FastifyRequest, status: number, body: UcpErrorBody): { status: number; body: unknown } {
  const version = req.ucpVersion ?? UCP_VERSION;
  const rename = req.routeOptions?.config?.ucpRenamePath;
  const renamed =
    version !== UCP_VERSION && rename ? { ...body, messages: body.messages.map((m) => (m.path ? { ...m, path: rename(req, m.path) } : m)) } : body;
  return refusalFor(version, status, renamed);
}

/** The scope's error handler: UCP's body for every refusal; a fault is logged and answered without its details. */
function registerUcpErrors(scope: FastifyInstance): void {
  scope.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const { status, body, headers, fault } = ucpRefusal(err, req.routeOptions?.bodyLimit);
    if (fault) req.log.error({ err }, 'request failed');
    else req.log.info({ code: body.code }, scrubText(body.detail));
    if (headers) reply.headers(headers);
    const answer = ucpAnswerRefusal(req, status, body);
    return reply.status(answer.status).send(answer.body);
  });
}

/**
 * Budgets of the public UCP surface per RATE_LIMIT_WINDOW_MS: per client address and company (UCP_RATE_LIMIT; the
 * proxy's client under TRUST_PROXY, an IPv6 /64 counting as one) and per company from every address
 * (UCP_COMPANY_RATE_LIMIT), shared by the instances through Redis when REDIS_URL is set, like the API's. The address's
 * budget is checked first, so a flood from one address spends nothing of the company's. The company is the one the
 * request names (its slug or Host), known or not: an unknown name costs no query.
 */
async function ucpLimitHook(
  scope: FastifyInstance,
  { config, redis }: { config: Pick<Config, 'RATE_LIMIT_WINDOW_MS' | 'UCP_RATE_LIMIT' | 'UCP_COMPANY_RATE_LIMIT'>; redis?: Redis },
) {
  const window = config.RATE_LIMIT_WINDOW_MS;
  await scope.register(rateLimit, {
    global: false,
    timeWindow: window,
    ...(redis ? { redis, nameSpace: 'commerce:rl:ucp:' } : {}),
    // Redis unreachable: serve without limits, like the API (docs/decisions.md)
    skipOnError: true,
  });
  const named = (req: FastifyRequest) => {
    const params = req.params as { slug?: string; '*'?: string } | undefined;
    const slug = params?.slug ?? params?.['*']?.split('/')[0];
    // a request without a Host header (HTTP/1.0) has no host
    return (slug !== undefined ? `slug:${slug}` : `host:${(req.host ?? '').toLowerCase()}`).slice(0, 300);
  };
  const budgets = [
    {
      what: 'from this address',
      limit: scope.createRateLimit({ max: config.UCP_RATE_LIMIT, keyGenerator: (req) => `a:${normalizeIP(req.ip)}:${named(req)}` }),
    },
    { what: 'for this business', limit: scope.createRateLimit({ max: config.UCP_COMPANY_RATE_LIMIT, keyGenerator: (req) => `c:${named(req)}` }) },
  ];
  return async (req: FastifyRequest, reply: FastifyReply) => {
    for (const { what, limit } of budgets) {
      const spent = await limit(req);
      if (spent.isAllowed) continue;
      if (spent.isExceeded) {
        const retryAfter = String(Math.max(1, spent.ttlInSeconds));
        throw new AppError('rate_limited', `more than ${spent.max} requests per ${window / 1000} s ${what}; retry after ${retryAfter} s`, undefined, {
          'retry-after': retryAfter,
        });
      }
      if (what === budgets[0].what) {
        reply.header('x-ratelimit-limit', spent.max);
        reply.header('x-ratelimit-remaining', spent.remaining);
        reply.header('x-ratelimit-reset', spent.ttlInSeconds);
      }
    }
  };
}

export interface UcpScopeDeps {
  config: Pick<Config, 'RATE_LIMIT_WINDOW_MS' | 'UCP_RATE_LIMIT' | 'UCP_COMPANY_RATE_LIMIT'>;
  redis?: Redis;
  ucpSettings: Pick<UcpSettingsService, 'bySlug' | 'byHost'>;
}

/**
 * The public UCP surface, no API key: one encapsulated scope holding `/ucp/:slug/…` (its own 404 handler: UCP's body
 * for any path under /ucp) and `/.well-known/ucp` (the company is the one that registered the request's Host). Both
 * answer UCP's error body and spend the UCP budgets; `req.ucpBusiness` is the company, found before any body is read,
 * and an unknown slug or Host, an inactive company and a business that is off are the same 404. `byPath` and `byHost`
 * add the routes of each.
 */
export function registerUcpScope(
  app: FastifyInstance,
  deps: UcpScopeDeps,
  routes: { byPath: (scope: FastifyInstance) => void; byHost: (scope: FastifyInstance) => void },
): void {
  // Named: Fastify names the context after its plugin function, and traces show it.
  app.register(async function ucpBusiness(ucp) {
    const limit = await ucpLimitHook(ucp, deps);
    ucp.decorateRequest('ucpBusiness', null as unknown as UcpBusiness);
    ucp.decorateRequest('ucpAgent', null as unknown as UcpAgent);
    ucp.decorateRequest('ucpVersion', null);

    /** What both doors share: UCP's errors, the budgets, then the company, before any body is read. */
    const common = (s: FastifyInstance, by: 'path' | 'host') => {
      registerUcpErrors(s);
      s.addHook('onRequest', limit);
      s.addHook('onRequest', async (req) => {
        const slug = (req.params as { slug?: string } | undefined)?.slug;
        // a path under /ucp that is no route: the 404 handler answers, with nothing looked up
        if (by === 'path' && slug === undefined) return;
        const business = by === 'path' ? await deps.ucpSettings.bySlug(slug!) : await deps.ucpSettings.byHost(req.host ?? '');
        if (!business) throw new UcpError(404, 'not_found', UCP_NOT_FOUND);
        req.ucpBusiness = business;
      });
    };
    await ucp.register(
      async function ucpByPath(s) {
        common(s, 'path');
        s.setNotFoundHandler((_req, reply) => reply.status(404).send(ucpErrorBody('not_found', UCP_NOT_FOUND)));
        routes.byPath(s);
      },
      { prefix: '/ucp' },
    );
    await ucp.register(async function ucpByHost(s) {
      common(s, 'host');
      routes.byHost(s);
    });
  });
}

/**
 * The hook of every UCP operation (checkout, orders) of the endpoint of `endpoint`'s version, as the route's
 * `onRequest` (after the scope's budgets and company, before the body is read; it works as a `preHandler` too): reads
 * UCP-Agent into `req.ucpAgent` and negotiates `req.ucpVersion` by that version's rule (ucp-wire.ts negotiateVersion),
 * refusing `version_unsupported` before idempotency or the body are looked at.
 */
export function ucpVersionCheckAt(endpoint: UcpVersion) {
  return async function ucpVersionCheck(req: FastifyRequest): Promise<void> {
    const agent = parseUcpAgent(req.headers['ucp-agent']);
    req.ucpAgent = agent;
    const negotiated = negotiateVersion(endpoint, agent.version);
    // refused in the endpoint's own version's shape
    if ('refusal' in negotiated) {
      req.ucpVersion = endpoint;
      throw negotiated.refusal;
    }
    req.ucpVersion = negotiated.version;
  };
}

/** The 2026-01-11 endpoint's hook: a platform newer than 2026-01-11 is refused with 400 `version_unsupported`. */
export const ucpVersionCheck = ucpVersionCheckAt(UCP_VERSION);
