import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../services.js';
import { errorResponses } from '../../contract/error-responses.js';
import { customerLookupQuery, customerSchema } from '../../contract/customers.js';

/** REST door for customers. */
export function registerCustomerRoutes(api: FastifyInstance, { customers }: Pick<Services, 'customers'>): void {
  api.withTypeProvider<ZodTypeProvider>().get(
    '/customers',
    {
      schema: { querystring: customerLookupQuery, response: { 200: z.object({ data: customerSchema }), ...errorResponses([400, 401, 403, 404, 429, 500]) } },
    },
    async (req) => ({ data: await customers.findByPhone(req.tenant, req.query) }),
  );
}
