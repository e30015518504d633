import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../services.js';
import { errorResponses } from '../../contract/error-responses.js';
import { correctionBody, correctionSchema, customerDataQuery, customerDataSchema, erasureBody, erasureSchema } from '../../contract/privacy.js';
import { keyActor } from '../../keys/keys.service.js';

/**
 * REST door for a customer's data rights (DPDP Act): access, correction and erasure, only for keys with the `privacy`
 * permission (others get 403). Each is recorded in the audit trail under the key's prefix.
 */
export function registerPrivacyRoutes(api: FastifyInstance, { customerData }: Pick<Services, 'customerData'>): void {
  const app = api.withTypeProvider<ZodTypeProvider>();
  const config = { permission: 'privacy' as const };

  app.get(
    '/privacy/customer-data',
    {
      config,
      schema: { querystring: customerDataQuery, response: { 200: z.object({ data: customerDataSchema }), ...errorResponses([400, 401, 403, 404, 429, 500]) } },
    },
    async (req) => ({ data: await customerData.access(req.tenant.companyId, keyActor(req.tenant), req.query) }),
  );

  app.post(
    '/privacy/corrections',
    {
      config,
      bodyLimit: 16 * 1024,
      schema: {
        body: correctionBody,
        response: { 200: z.object({ data: correctionSchema }), ...errorResponses([400, 401, 403, 404, 409, 413, 415, 429, 500]) },
      },
    },
    async (req) => ({ data: await customerData.correct(req.tenant.companyId, keyActor(req.tenant), req.body) }),
  );

  app.post(
    '/privacy/erasures',
    {
      config,
      bodyLimit: 16 * 1024,
      schema: { body: erasureBody, response: { 200: z.object({ data: erasureSchema }), ...errorResponses([400, 401, 403, 404, 409, 413, 415, 429, 500]) } },
    },
    async (req) => ({ data: await customerData.erase(req.tenant.companyId, keyActor(req.tenant), req.body) }),
  );
}
