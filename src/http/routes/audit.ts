import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Services } from '../../services.js';
import { errorResponses } from '../../contract/error-responses.js';
import { auditPageSchema, auditQuery } from '../../contract/audit.js';

/** REST door for reading the company's audit trail: only keys with the `audit` permission (others get 403). */
export function registerAuditRoutes(api: FastifyInstance, { audit }: Pick<Services, 'audit'>): void {
  api.withTypeProvider<ZodTypeProvider>().get(
    '/audit',
    {
      config: { permission: 'audit' },
      schema: { querystring: auditQuery, response: { 200: auditPageSchema, ...errorResponses([400, 401, 403, 429, 500]) } },
    },
    async (req) => audit.list(req.tenant.companyId, req.query),
  );
}
