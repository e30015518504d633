import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UCP_VERSION, UcpError } from '../../contract/ucp-wire.js';
import type { Services } from '../../services.js';
import { UCP_NOT_FOUND } from '../ucp-scope.js';

/**
 * The public UCP business doors (src/http/ucp-scope.ts gives them `req.ucpBusiness`, UCP's errors and the budgets):
 * - GET /ucp/<slug>/.well-known/ucp: the company's profile at its newest version (today 2026-01-11);
 * - GET /ucp/<slug>/2026-01-11/.well-known/ucp: the same profile under the 2026-01-11 endpoint, whose URL is
 *   `rest.endpoint`: a platform given that URL finds the profile and every operation under it;
 * - GET /ucp/<slug>/2026-01-11/docs/<path>: the documents the profile links to;
 * - GET /.well-known/ucp on a Host the company registered (ucp host add).
 */
export function registerUcpRoutes({ ucpDiscovery, media }: Pick<Services, 'ucpDiscovery' | 'media'>) {
  // Links are made from the service's public origin, never from the Host the request names (a registered host may
  // be the seller's site proxying only /.well-known/ucp).
  const profile = async (req: FastifyRequest) => ucpDiscovery.profile(req.ucpBusiness, media.origin(req));

  return {
    byPath(scope: FastifyInstance): void {
      scope.get('/:slug/.well-known/ucp', profile);
      scope.register(
        async function ucpEndpoint(endpoint) {
          endpoint.get('/.well-known/ucp', profile);
          endpoint.get('/docs/*', async (req, reply) => {
            const doc = ucpDiscovery.document((req.params as { '*': string })['*']);
            if (!doc) throw new UcpError(404, 'not_found', UCP_NOT_FOUND);
            return reply.header('content-type', doc.contentType).send(doc.body);
          });
          // The 2026-01-11 operations (checkout sessions, orders) are registered in this scope, each with
          // `onRequest: ucpVersionCheck` (src/http/ucp-scope.ts): the version is checked before the body is read.
        },
        { prefix: `/:slug/${UCP_VERSION}` },
      );
    },
    byHost(scope: FastifyInstance): void {
      scope.get('/.well-known/ucp', profile);
    },
  };
}
