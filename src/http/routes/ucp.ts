import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Answer } from '../../checkout/idempotency.js';
import { orderOut } from '../../checkout/ucp-output.js';
import type { CheckoutView } from '../../checkout/checkout.service.js';
import { completeCheckoutBody, createCheckoutBody, updateCheckoutBody } from '../../contract/ucp-checkout.js';
import { ucpEndpoint as endpointUrl } from '../../checkout/ucp-profile.js';
import { UCP_VERSION, UcpError } from '../../contract/ucp-wire.js';
import type { Services } from '../../services.js';
import { UCP_NOT_FOUND, ucpVersionCheck } from '../ucp-scope.js';

/** The body read by its UCP schema, or 400 naming the first field that is wrong. */
function parsed<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = `$${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`;
  throw new UcpError(400, 'invalid_request', `${path}: ${issue.message}`, path);
}

/**
 * The public UCP business doors (src/http/ucp-scope.ts gives them `req.ucpBusiness`, UCP's errors and the budgets):
 * - GET /ucp/<slug>/.well-known/ucp: the company's profile at its newest version (today 2026-01-11);
 * - GET /ucp/<slug>/2026-01-11/.well-known/ucp: the same profile under the 2026-01-11 endpoint, whose URL is
 *   `rest.endpoint`: a platform given that URL finds the profile and every operation under it;
 * - GET /ucp/<slug>/2026-01-11/docs/<path>: the documents the profile links to;
 * - GET /.well-known/ucp on a Host the company registered (ucp host add).
 */
export function registerUcpRoutes({ ucpDiscovery, media, checkout }: Pick<Services, 'ucpDiscovery' | 'media' | 'checkout'>) {
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
          // The 2026-01-11 operations, each with `onRequest: ucpVersionCheck` (the version is checked before the body
          // is read, and before the Idempotency-Key is looked at).
          const answer = async (req: FastifyRequest, view: CheckoutView, status = 200): Promise<Answer> => ({
            status,
            body: JSON.stringify(await ucpDiscovery.checkout(req.ucpBusiness, view, media.origin(req))),
          });
          /** A write, once per Idempotency-Key (checkout.write: UCP refusals are answers too, kept and replayed). */
          const write =
            (scope: (req: FastifyRequest) => string, run: (req: FastifyRequest) => Promise<Answer>) => async (req: FastifyRequest, reply: FastifyReply) => {
              const key = req.headers['idempotency-key'];
              const request = {
                companyId: req.ucpBusiness.companyId,
                scope: scope(req),
                key: typeof key === 'string' && key ? key.slice(0, 255) : undefined,
                body: req.body,
              };
              const answered = await checkout.write(request, () => run(req));
              return reply.status(answered.status).header('content-type', 'application/json; charset=utf-8').send(answered.body);
            };
          const id = (req: FastifyRequest) => (req.params as { id: string }).id;

          endpoint.post(
            '/checkout-sessions',
            { onRequest: ucpVersionCheck },
            write(
              () => 'POST checkout-sessions',
              async (req) => answer(req, await checkout.create(req.ucpBusiness, parsed(createCheckoutBody, req.body), req.ucpAgent.profileUrl), 201),
            ),
          );
          endpoint.get('/checkout-sessions/:id', { onRequest: ucpVersionCheck }, async (req, reply) => {
            const a = await answer(req, await checkout.get(req.ucpBusiness, id(req)));
            return reply.header('content-type', 'application/json; charset=utf-8').send(a.body);
          });
          endpoint.get('/orders/:id', { onRequest: ucpVersionCheck }, async (req, reply) => {
            const { view, order } = await checkout.order(req.ucpBusiness, id(req));
            const body = orderOut(view, order, endpointUrl(media.origin(req), req.ucpBusiness.slug));
            return reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
          });
          endpoint.put(
            '/checkout-sessions/:id',
            { onRequest: ucpVersionCheck },
            write(
              (req) => `PUT checkout-sessions/${id(req)}`,
              async (req) => answer(req, await checkout.update(req.ucpBusiness, id(req), parsed(updateCheckoutBody, req.body))),
            ),
          );
          endpoint.post(
            '/checkout-sessions/:id/complete',
            { onRequest: ucpVersionCheck },
            write(
              (req) => `POST checkout-sessions/${id(req)}/complete`,
              async (req) => answer(req, await checkout.complete(req.ucpBusiness, id(req), parsed(completeCheckoutBody, req.body))),
            ),
          );
          endpoint.post(
            '/checkout-sessions/:id/cancel',
            { onRequest: ucpVersionCheck },
            write(
              (req) => `POST checkout-sessions/${id(req)}/cancel`,
              async (req) => answer(req, await checkout.cancel(req.ucpBusiness, id(req))),
            ),
          );
        },
        { prefix: `/:slug/${UCP_VERSION}` },
      );
    },
    byHost(scope: FastifyInstance): void {
      scope.get('/.well-known/ucp', profile);
    },
  };
}
