import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../services.js';
import { errorResponses } from '../../contract/error-responses.js';
import { setStockBody, stockUpdateResult } from '../../contract/stock.js';
import { fieldPath } from '../../contract/validation.js';

/** REST door for setting on-hand stock in bulk: only keys with the `catalogue` permission (others get 403). */
export function registerStockRoutes(api: FastifyInstance, { stock }: Pick<Services, 'stock'>): void {
  api.withTypeProvider<ZodTypeProvider>().put(
    '/catalog/stock',
    {
      config: { permission: 'catalogue' },
      // 5,000 rows of { sku, location, on_hand } fit in well under 1 MB
      bodyLimit: 1024 * 1024,
      schema: {
        body: setStockBody,
        response: { 200: z.object({ data: stockUpdateResult }), ...errorResponses([400, 401, 403, 413, 415, 429, 500]) },
      },
    },
    async (req) => ({ data: await stock.set(req.tenant.companyId, req.body.items, (i, field) => fieldPath(['items', i, field])) }),
  );
}
