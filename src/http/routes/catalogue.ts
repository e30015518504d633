import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Services } from '../../services.js';
import { errorResponses } from '../../contract/error-responses.js';
import { pageEnvelope } from '../../contract/paging.js';
import { browseQuerySchema, browseResponseSchema, categoriesResponseSchema, productDetailResponseSchema, productIdSchema } from '../../contract/catalogue.js';

/**
 * REST door onto the catalogue service (spec: GET /catalog/products, /catalog/products/{id}, /catalog/categories). Each
 * checks its key in the statement that reads the page's stock (`keyInFirstStatement`).
 */
export async function registerCatalogueRoutes(api: FastifyInstance, { catalogue, media }: Pick<Services, 'catalogue' | 'media'>): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/catalog/products',
    {
      config: { keyInFirstStatement: true },
      schema: { querystring: browseQuerySchema, response: { 200: browseResponseSchema, ...errorResponses([400, 401, 403, 429, 500]) } },
    },
    async (req) => pageEnvelope(await catalogue.browse(req.tenant, req.query, media.origin(req)), req.query),
  );

  r.get(
    '/catalog/products/:id',
    {
      config: { keyInFirstStatement: true },
      schema: { params: productIdSchema, response: { 200: productDetailResponseSchema, ...errorResponses([400, 401, 403, 404, 429, 500]) } },
    },
    async (req) => ({
      data: await catalogue.getProduct(req.tenant, req.params.id, media.origin(req)),
    }),
  );

  r.get(
    '/catalog/categories',
    { config: { keyInFirstStatement: true }, schema: { response: { 200: categoriesResponseSchema, ...errorResponses([401, 403, 429, 500]) } } },
    async (req) => ({
      data: await catalogue.listCategories(req.tenant),
    }),
  );
}
