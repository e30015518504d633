import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../contract/errors.js';
import { hostNameOf, isLoopbackBind, isLoopbackName, normaliseOrigin } from '../lib/origin.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Refuse a request addressed to a foreign host name when the service is local (the MCP endpoint: DNS rebinding). */
    localNamesOnly?: boolean;
  }
}

/**
 * Which browser pages may call the API (MCP's DNS-rebinding rule applied to the whole API). A
 * browser sends `Origin` with every cross-site or non-GET request; a server-side agent or chat flow sends none. A
 * request that carries an `Origin` not allowed is refused with 403 before the key is looked at, so a page on another
 * site (or a rebound host name pointing at a local instance) can do nothing with a key it holds. Allowed: the
 * service's own origin (PUBLIC_URL's, or the one the request was addressed to, `scheme://Host`), ALLOWED_ORIGINS,
 * and, when the service listens on loopback only (HOST), pages on localhost, 127.0.0.1 and [::1]. Requests without
 * `Origin` are served.
 *
 * A local service is what DNS rebinding reaches: a page on evil.example whose name now resolves to 127.0.0.1 is, to
 * the browser, same-origin with `http://evil.example:3000`. So on a loopback bind the origin a request was addressed
 * to counts only when its host name is a loopback one or PUBLIC_URL's, and the MCP endpoint (`localNamesOnly`)
 * refuses any other Host, with or without `Origin`, as the MCP transport spec asks of local servers. A service with a
 * trusted proxy in front (TRUST_PROXY) is published under the proxy's names, not local: the proxy is the boundary.
 */
export function registerOriginCheck(api: FastifyInstance, config: Pick<Config, 'ALLOWED_ORIGINS' | 'PUBLIC_URL' | 'HOST' | 'TRUST_PROXY'>): void {
  const allowed = new Set(config.ALLOWED_ORIGINS);
  const publicUrl = config.PUBLIC_URL ? new URL(config.PUBLIC_URL) : undefined;
  if (publicUrl) allowed.add(publicUrl.origin);
  const proxied = config.TRUST_PROXY !== undefined && config.TRUST_PROXY !== false;
  const local = isLoopbackBind(config.HOST) && !proxied;
  const names = ['localhost', '127.0.0.1', '[::1]', ...(publicUrl ? [publicUrl.hostname] : [])].join(', ');

  /** Whether the host name a request was addressed to is one this service goes by. */
  const ownName = (hostname: string | undefined) => hostname !== undefined && (!local || isLoopbackName(hostname) || hostname === publicUrl?.hostname);
  const addressedOrigin = (req: FastifyRequest) => (ownName(hostNameOf(req.host)) ? normaliseOrigin(`${req.protocol}://${req.host}`) : undefined);

  api.addHook('onRequest', async (req) => {
    if (local && req.routeOptions.config.localNamesOnly && !ownName(hostNameOf(req.host))) {
      throw new AppError(
        'forbidden',
        `this server listens on ${config.HOST} only, so its MCP endpoint answers requests addressed to ${names}, not to another host name (DNS rebinding); behind a proxy, set TRUST_PROXY, or PUBLIC_URL to the address clients use`,
      );
    }
    const origin = req.headers.origin;
    if (origin === undefined) return;
    // "null" (a sandboxed page, a file: URL) and anything unparsable never match
    const normalised = normaliseOrigin(origin);
    if (normalised && (allowed.has(normalised) || normalised === addressedOrigin(req) || (local && isLoopbackName(new URL(normalised).hostname)))) return;
    throw new AppError(
      'forbidden',
      'requests from this Origin are not allowed: a browser page may call the API only from the service’s own origin, an origin in ALLOWED_ORIGINS, or localhost when the service listens there',
    );
  });
}
