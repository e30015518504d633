import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../services.js';
import { errorResponses } from '../../contract/error-responses.js';
import { whatsappMessageSchema, whatsappMessagesQuery } from '../../contract/whatsapp.js';
import { orderLookupParams, orderLookupQuery, orderLookupSchema, orderSchema, placeOrderBody } from '../../contract/orders.js';
import { codConfirmationBody } from '../../contract/cod-answer.js';

export const ORDER_BODY_LIMIT = 32 * 1024;

/** REST door for orders: parse, call the service, shape. */
export function registerOrderRoutes(
  api: FastifyInstance,
  { orders, media, codConfirmations, whatsapp }: Pick<Services, 'orders' | 'media' | 'codConfirmations' | 'whatsapp'>,
): void {
  const app = api.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/orders',
    {
      bodyLimit: ORDER_BODY_LIMIT,
      // the key is checked by the prelude, the order's first statement, before anything is written
      config: { keyInFirstStatement: true },
      schema: {
        body: placeOrderBody,
        response: {
          201: z.object({ data: orderSchema }),
          200: z.object({ data: orderSchema, duplicate: z.literal(true) }),
          ...errorResponses([400, 401, 403, 404, 409, 413, 415, 422, 429, 500], ['insufficient_stock']),
        },
      },
    },
    async (req, reply) => {
      const { order, duplicate } = await orders.place(req.tenant, req.body);
      if (duplicate) return reply.status(200).send({ data: order, duplicate: true as const });
      return reply.status(201).send({ data: order });
    },
  );

  app.get(
    '/orders/:reference',
    {
      config: { keyInFirstStatement: true },
      schema: {
        params: orderLookupParams,
        querystring: orderLookupQuery,
        response: { 200: z.object({ data: orderLookupSchema }), ...errorResponses([400, 401, 403, 404, 429, 500]) },
      },
    },
    async (req) => ({ data: await orders.lookup(req.tenant, req.params.reference, req.query.phone, media.origin(req)) }),
  );

  app.post(
    '/orders/:reference/cod-confirmation',
    {
      schema: {
        params: orderLookupParams,
        body: codConfirmationBody,
        response: { 200: z.object({ data: orderLookupSchema }), ...errorResponses([400, 401, 403, 404, 409, 413, 415, 422, 429, 500], ['conflict']) },
      },
    },
    async (req) => ({
      data: await codConfirmations.answer(req.tenant, req.params.reference, req.body.phone, req.body.answer, media.origin(req)),
    }),
  );

  // The order's WhatsApp Cloud API message, ready to send (issue 33): the body to POST as it is.
  app.get(
    '/orders/:reference/whatsapp-messages',
    {
      schema: {
        params: orderLookupParams,
        querystring: whatsappMessagesQuery,
        response: { 200: z.object({ data: whatsappMessageSchema }), ...errorResponses([400, 401, 403, 404, 422, 429, 500]) },
      },
    },
    async (req) => ({ data: await whatsapp.messages(req.tenant, req.params.reference, req.query) }),
  );
}
