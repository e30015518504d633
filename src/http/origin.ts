import type { FastifyInstance } from 'fastify';
import { AppError } from '../contract/errors.js';
import { normaliseOrigin } from '../lib/origin.js';

/**
 * The Origin allow-list (issue 18, MCP's DNS-rebinding rule applied to the whole API). A browser sends `Origin` with
 * every cross-site or non-GET request; a server-side agent or chat flow sends none. A request that carries an
 * `Origin` not on the list is refused with 403 before the key is looked at, so a page on another site (or a
 * rebound host name pointing at a local instance) can do nothing with a key it holds. Requests without `Origin` are
 * served. The list is ALLOWED_ORIGINS (empty by default) plus the origin of PUBLIC_URL, where the service's own
 * reference page lives.
 */

export function registerOriginCheck(api: FastifyInstance, allowed: readonly string[], publicUrl?: string): void {
  const list = new Set(allowed);
  const own = publicUrl ? normaliseOrigin(publicUrl) : undefined;
  if (own) list.add(own);
  api.addHook('onRequest', async (req) => {
    const origin = req.headers.origin;
    if (origin === undefined) return;
    // "null" (a sandboxed page, a file: URL) and anything unparsable never match
    const normalised = normaliseOrigin(origin);
    if (normalised && list.has(normalised)) return;
    throw new AppError('forbidden', 'requests from this Origin are not allowed: a browser page may call the API only from an origin in ALLOWED_ORIGINS');
  });
}
