import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../services.js';
import { keyActor } from '../../keys/keys.service.js';
import { errorResponses } from '../../contract/error-responses.js';
import { createdWebhookSchema, createWebhookBody, webhookEndpointSchema, webhookIdParams } from '../../contract/webhooks.js';

/** REST door for webhook endpoints: only keys with the `webhooks` permission (others get 403). */
export function registerWebhookRoutes(api: FastifyInstance, { webhooks }: Pick<Services, 'webhooks'>): void {
  const app = api.withTypeProvider<ZodTypeProvider>();
  const config = { permission: 'webhooks' as const };

  app.post(
    '/webhooks',
    {
      config,
      bodyLimit: 16 * 1024,
      schema: {
        body: createWebhookBody,
        response: { 201: z.object({ data: createdWebhookSchema }), ...errorResponses([400, 401, 403, 413, 415, 422, 429, 500]) },
      },
    },
    async (req, reply) => reply.status(201).send({ data: await webhooks.create(req.tenant.companyId, keyActor(req.tenant), req.body) }),
  );

  app.get(
    '/webhooks',
    { config, schema: { response: { 200: z.object({ data: z.array(webhookEndpointSchema) }), ...errorResponses([401, 403, 429, 500]) } } },
    async (req) => ({ data: await webhooks.list(req.tenant.companyId) }),
  );

  app.delete(
    '/webhooks/:id',
    {
      config,
      schema: {
        params: webhookIdParams,
        response: { 200: z.object({ data: z.object({ id: z.string(), removed: z.literal(true) }) }), ...errorResponses([400, 401, 403, 404, 429, 500]) },
      },
    },
    async (req) => ({ data: await webhooks.remove(req.tenant.companyId, keyActor(req.tenant), req.params.id) }),
  );
}
