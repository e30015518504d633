import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Answer } from '../../checkout/idempotency.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import { orderOut } from '../../checkout/ucp-output.js';
import { SHIPPED_OR_AFTER, type CheckoutView } from '../../checkout/checkout.service.js';
import { completeCheckoutBody, createCheckoutBody, orderUpdateBody, updateCheckoutBody } from '../../contract/ucp-checkout.js';
import { ucpEndpoint as endpointUrl } from '../../checkout/ucp-profile.js';
import { payPage } from '../../checkout/pay-page.js';
import { UCP_VERSION, UcpError, ucpErrorBody } from '../../contract/ucp-wire.js';
import type { Services } from '../../services.js';
import { UCP_NOT_FOUND, ucpVersionCheck } from '../ucp-scope.js';

/** Constant-time comparison of a presented secret with the configured one (hashed first: equal lengths). */
function sameSecret(presented: unknown, secret: string): boolean {
  if (typeof presented !== 'string' || !presented) return false;
  const digest = (v: string) => createHash('sha256').update(v).digest();
  return timingSafeEqual(digest(presented), digest(secret));
}

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
export function registerUcpRoutes(
  { ucpDiscovery, media, checkout, fulfilment }: Pick<Services, 'ucpDiscovery' | 'media' | 'checkout' | 'fulfilment'>,
  { simulationSecret }: { simulationSecret: string | undefined },
) {
  // Links are made from the service's public origin, never from the Host the request names (a registered host may
  // be the seller's site proxying only /.well-known/ucp).
  const profile = async (req: FastifyRequest) => ucpDiscovery.profile(req.ucpBusiness, media.origin(req));

  const orderId = (req: FastifyRequest) => (req.params as { id: string }).id;
  const json = (reply: FastifyReply, body: unknown, status = 200) =>
    reply.status(status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));

  async function readOrder(req: FastifyRequest, reply: FastifyReply) {
    return json(reply, orderOut(await checkout.order(req.ucpBusiness, orderId(req)), endpointUrl(media.origin(req), req.ucpBusiness.slug)));
  }

  /** The conformance harness's order update: 422 for an order the UCP schema refuses, else the order as kept. */
  async function recordOnOrder(req: FastifyRequest, reply: FastifyReply) {
    const result = orderUpdateBody.safeParse(req.body ?? {});
    if (!result.success) {
      const issue = result.error.issues[0];
      const path = `$${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`;
      return json(reply, ucpErrorBody('invalid_request', `${path}: ${issue.message}`, path), 422);
    }
    const facts = await checkout.recordOnOrder(req.ucpBusiness, orderId(req), {
      events: result.data.fulfillment?.events ?? [],
      adjustments: result.data.adjustments ?? [],
    });
    return json(reply, orderOut(facts, endpointUrl(media.origin(req), req.ucpBusiness.slug)));
  }

  /**
   * The conformance suite's shipping simulation: the order ships as staff shipping it by hand would (stock converted,
   * invoice issued, order events, the platform's order_shipped). 403 without the configured Simulation-Secret.
   */
  async function simulateShipping(req: FastifyRequest, reply: FastifyReply) {
    if (!sameSecret(req.headers['simulation-secret'], simulationSecret!)) throw new UcpError(403, 'forbidden', 'Simulation-Secret missing or wrong');
    const { order } = await checkout.order(req.ucpBusiness, orderId(req));
    if (!SHIPPED_OR_AFTER.includes(order.status))
      await fulfilment.ship(req.ucpBusiness.companyId, order.id, { awb: `SIM${order.id.slice(-10).toUpperCase()}`, courier: 'Simulated courier' });
    return readOrder(req, reply);
  }

  return {
    byPath(scope: FastifyInstance): void {
      scope.get('/:slug/.well-known/ucp', profile);
      // The order also at the business's root (the newest version), where a platform given only the discovery URL looks.
      scope.get('/:slug/orders/:id', readOrder);
      if (simulationSecret) {
        scope.put('/:slug/orders/:id', recordOnOrder);
        scope.post('/:slug/testing/simulate-shipping/:id', simulateShipping);
      }
      // A checkout's continue_url while its buyer must pay on Razorpay's page: an HTML page of ours, with a CSP of its
      // own, that opens Razorpay Checkout for the checkout's Razorpay order.
      scope.get('/:slug/pay/:id', async (req, reply) => {
        const facts = await checkout.payPage(req.ucpBusiness, (req.params as { id: string }).id);
        const page = payPage(facts);
        return reply
          .header('content-type', 'text/html; charset=utf-8')
          .header('content-security-policy', page.csp)
          .header('cache-control', 'no-store')
          .header('referrer-policy', 'no-referrer')
          .send(page.html);
      });
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
          endpoint.get('/orders/:id', { onRequest: ucpVersionCheck }, readOrder);
          if (simulationSecret) endpoint.put('/orders/:id', { onRequest: ucpVersionCheck }, recordOnOrder);
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
