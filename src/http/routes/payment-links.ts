import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Services } from '../../services.js';
import { errorResponses } from '../../contract/error-responses.js';
import { paymentLinkBody, paymentLinkParams, paymentLinkResponse } from '../../contract/payment-links.js';

/** REST door for a COD order's payment link: parse, call the service, shape. */
export function registerPaymentLinkRoutes(api: FastifyInstance, { paymentLinks }: Pick<Services, 'paymentLinks'>): void {
  const app = api.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/orders/:reference/payment-link',
    {
      schema: {
        params: paymentLinkParams,
        body: paymentLinkBody.nullish(),
        response: {
          201: paymentLinkResponse,
          200: paymentLinkResponse,
          ...errorResponses([400, 401, 403, 404, 415, 422, 429, 500]),
        },
      },
    },
    async (req, reply) => {
      const { link, existing } = await paymentLinks.create(req.tenant, req.params.reference, req.body ?? {});
      if (existing) return reply.status(200).send({ data: link, existing: true as const });
      return reply.status(201).send({ data: link });
    },
  );
}
