import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../services.js';
import { errorResponses } from '../../contract/error-responses.js';
import { customerLookupQuery, customerSchema, optOutBody, setConsentBody } from '../../contract/customers.js';

/** REST door for customers. */
export function registerCustomerRoutes(api: FastifyInstance, { customers }: Pick<Services, 'customers'>): void {
  api.withTypeProvider<ZodTypeProvider>().get(
    '/customers',
    {
      schema: { querystring: customerLookupQuery, response: { 200: z.object({ data: customerSchema }), ...errorResponses([400, 401, 403, 404, 429, 500]) } },
    },
    async (req) => ({ data: await customers.findByPhone(req.tenant, req.query) }),
  );

  api.withTypeProvider<ZodTypeProvider>().put(
    '/customers/messaging-opt-out',
    {
      bodyLimit: 4 * 1024,
      schema: {
        body: optOutBody,
        response: { 200: z.object({ data: customerSchema, changed: z.boolean() }), ...errorResponses([400, 401, 403, 404, 413, 415, 429, 500]) },
      },
    },
    async (req) => {
      const { customer, changed } = await customers.setMessagingOptOut(
        req.tenant.companyId,
        req.body.phone,
        req.body.messaging_opted_out,
        req.tenant.keyPrefix,
      );
      return { data: customer, changed };
    },
  );

  // The customer's own consent, relayed by the flow: giving and withdrawing are the same call.
  api.withTypeProvider<ZodTypeProvider>().post(
    '/customers/consents',
    {
      bodyLimit: 4 * 1024,
      schema: {
        body: setConsentBody,
        response: { 200: z.object({ data: customerSchema, changed: z.boolean() }), ...errorResponses([400, 401, 403, 404, 413, 415, 429, 500]) },
      },
    },
    async (req) => {
      const { customer, changed } = await customers.setConsent(req.tenant.companyId, req.body, { source: 'api', actor: req.tenant.keyPrefix });
      return { data: customer, changed };
    },
  );
}
