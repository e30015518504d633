import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Answer } from '../../checkout/idempotency.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import { checkoutFor, orderFor, orderOut } from '../../checkout/ucp-output.js';
import { SHIPPED_OR_AFTER, type CheckoutView } from '../../checkout/checkout.service.js';
import {
  checkoutBody20260825,
  checkoutBodyFrom20260825,
  completeBodyFrom20260408,
  completeCheckoutBody,
  completeCheckoutBody20260408,
  createCheckoutBody,
  orderUpdateBody,
  quantityUnitMismatch,
  selectedInstrumentIndex,
  type CompleteCheckoutBody,
  type CreateCheckoutBody,
} from '../../contract/ucp-checkout.js';
import { ucpEndpoint as endpointUrl } from '../../checkout/ucp-profile.js';
import { payPage } from '../../checkout/pay-page.js';
import { UCP_VERSION, UCP_VERSIONS, UcpError, ucpErrorBody, type UcpErrorBody, type UcpVersion } from '../../contract/ucp-wire.js';
import type { Services } from '../../services.js';
import { UCP_NOT_FOUND, ucpAnswerRefusal, ucpVersionCheckAt } from '../ucp-scope.js';

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
 * The complete body in the request's version, as the 2026-01-11 body the service takes: 2026-04-08 hands over
 * `payment.instruments` (the one to pay with `selected`) where 2026-01-11 hands over `payment_data`.
 */
function completeBody(version: UcpVersion, body: unknown): CompleteCheckoutBody {
  if (version === UCP_VERSION) return parsed(completeCheckoutBody, body);
  const read = parsed(completeCheckoutBody20260408, body);
  const index = selectedInstrumentIndex(read);
  if (index === undefined)
    throw new UcpError(400, 'invalid_request', '$.payment.instruments: mark the one instrument to pay with as selected', '$.payment.instruments');
  return completeBodyFrom20260408(read, index);
}

/**
 * A create or update body in the request's version, as the 2026-01-11 body the service takes (2026-04-08's is
 * 2026-01-11's): 2026-08-25's consent purposes, asserted sale bases and typed destinations are read by
 * checkoutBodyFrom20260825. A line asserting a sale basis other than `each` is refused (a recoverable business
 * outcome, 2026-08-25's `quantity_unit_mismatch`): this business converts no units.
 */
function checkoutBody(version: UcpVersion, body: unknown): CreateCheckoutBody {
  if (version !== '2026-08-25') return parsed(createCheckoutBody, body);
  const read = parsed(checkoutBody20260825, body);
  const mismatch = quantityUnitMismatch(read);
  if (mismatch !== undefined) {
    const path = `$.line_items[${mismatch}].item.quantity_unit`;
    throw new UcpError(
      400,
      'quantity_unit_mismatch',
      `Item ${read.line_items[mismatch].item.id} is sold by the item (each); resubmit its quantity as a count of items.`,
      path,
    );
  }
  return checkoutBodyFrom20260825(read);
}

/** Where a 2026-04-08 complete's instrument is: a refusal's `$.payment_data…` path names it there. */
function instrumentPath(req: FastifyRequest, path: string): string {
  const read = completeCheckoutBody20260408.safeParse(req.body ?? {});
  const index = read.success ? selectedInstrumentIndex(read.data) : undefined;
  return index === undefined ? path : path.replace(/^\$\.payment_data/, `$.payment.instruments[${index}]`);
}

/**
 * The public UCP business doors (src/http/ucp-scope.ts gives them `req.ucpBusiness`, UCP's errors and the budgets):
 * - GET /ucp/<slug>/.well-known/ucp: the company's profile at its newest version (2026-08-25), naming the older
 *   versions' profiles in `supported_versions`;
 * - GET /ucp/<slug>/<version>/.well-known/ucp, for each version served (UCP_VERSIONS): that version's profile alone,
 *   under its endpoint, whose URL is the profile's REST endpoint: a platform given that URL finds the profile and
 *   every operation under it, answered in that version (or in the older one the platform declares, where allowed);
 * - GET /ucp/<slug>/<version>/docs/<path>: the documents the profiles link to;
 * - GET /.well-known/ucp on a Host the company registered (ucp host add): the root profile.
 */
export function registerUcpRoutes(
  { ucpDiscovery, media, checkout, fulfilment }: Pick<Services, 'ucpDiscovery' | 'media' | 'checkout' | 'fulfilment'>,
  { simulationSecret }: { simulationSecret: string | undefined },
) {
  // Links are made from the service's public origin, never from the Host the request names (a registered host may
  // be the seller's site proxying only /.well-known/ucp).
  const rootProfile = async (req: FastifyRequest) => ucpDiscovery.discovery(req.ucpBusiness, media.origin(req), { root: true });
  /** The version a request is answered in: negotiated by the operation's hook; else (harness routes) 2026-01-11. */
  const versionOf = (req: FastifyRequest): UcpVersion => req.ucpVersion ?? UCP_VERSION;

  const orderId = (req: FastifyRequest) => (req.params as { id: string }).id;
  const json = (reply: FastifyReply, body: unknown, status = 200) =>
    reply.status(status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));

  async function readOrder(req: FastifyRequest, reply: FastifyReply) {
    const version = versionOf(req);
    const facts = await checkout.order(req.ucpBusiness, orderId(req));
    const order = orderOut(facts, endpointUrl(media.origin(req), req.ucpBusiness.slug, version));
    return json(reply, orderFor(version, order, { currency: facts.view.record.currency }));
  }

  /** An answer kept in 2026-01-11 (checkout.write's), sent in the request's version. */
  function sendAnswer(req: FastifyRequest, reply: FastifyReply, answered: Answer) {
    const version = versionOf(req);
    if (version === UCP_VERSION) return reply.status(answered.status).header('content-type', 'application/json; charset=utf-8').send(answered.body);
    const body = JSON.parse(answered.body) as Record<string, unknown>;
    if (answered.status >= 400) {
      const refusal = ucpAnswerRefusal(req, answered.status, body as unknown as UcpErrorBody);
      return json(reply, refusal.body, refusal.status);
    }
    return json(reply, checkoutFor(version, body), answered.status);
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
      scope.get('/:slug/.well-known/ucp', rootProfile);
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
      for (const version of UCP_VERSIONS) {
        const ucpVersionCheck = ucpVersionCheckAt(version);
        scope.register(
          async function ucpEndpoint(endpoint) {
            endpoint.get('/.well-known/ucp', async (req) => ucpDiscovery.discovery(req.ucpBusiness, media.origin(req), { version }));
            endpoint.get('/docs/*', async (req, reply) => {
              const doc = ucpDiscovery.document((req.params as { '*': string })['*']);
              if (!doc) throw new UcpError(404, 'not_found', UCP_NOT_FOUND);
              return reply.header('content-type', doc.contentType).send(doc.body);
            });
            // The version's operations, each with `onRequest: ucpVersionCheck` (the version is checked before the body
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
                return sendAnswer(req, reply, await checkout.write(request, () => run(req)));
              };
            const id = (req: FastifyRequest) => (req.params as { id: string }).id;

            endpoint.post(
              '/checkout-sessions',
              { onRequest: ucpVersionCheck },
              write(
                () => 'POST checkout-sessions',
                async (req) => answer(req, await checkout.create(req.ucpBusiness, checkoutBody(versionOf(req), req.body), req.ucpAgent.profileUrl), 201),
              ),
            );
            endpoint.get('/checkout-sessions/:id', { onRequest: ucpVersionCheck }, async (req, reply) => {
              return sendAnswer(req, reply, await answer(req, await checkout.get(req.ucpBusiness, id(req))));
            });
            endpoint.get('/orders/:id', { onRequest: ucpVersionCheck }, readOrder);
            if (simulationSecret) {
              endpoint.put('/orders/:id', { onRequest: ucpVersionCheck }, recordOnOrder);
              // the harness under the endpoint too: a 2026-01-11 platform (the pinned suite) is given this endpoint
              endpoint.post('/testing/simulate-shipping/:id', simulateShipping);
            }
            endpoint.put(
              '/checkout-sessions/:id',
              { onRequest: ucpVersionCheck },
              write(
                (req) => `PUT checkout-sessions/${id(req)}`,
                async (req) => answer(req, await checkout.update(req.ucpBusiness, id(req), checkoutBody(versionOf(req), req.body))),
              ),
            );
            endpoint.post(
              '/checkout-sessions/:id/complete',
              { onRequest: ucpVersionCheck, config: { ucpRenamePath: instrumentPath } },
              write(
                (req) => `POST checkout-sessions/${id(req)}/complete`,
                async (req) => answer(req, await checkout.complete(req.ucpBusiness, id(req), completeBody(versionOf(req), req.body))),
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
          { prefix: `/:slug/${version}` },
        );
      }
    },
    byHost(scope: FastifyInstance): void {
      scope.get('/.well-known/ucp', rootProfile);
    },
  };
}
