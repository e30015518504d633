import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../services.js';
import { keyActor } from '../../keys/keys.service.js';
import { errorResponses } from '../../contract/error-responses.js';
import { codAvailabilityQuery, codAvailabilitySchema, codSettingsBody, codSettingsSchema } from '../../contract/cod.js';

/**
 * REST door for cash on delivery: the company's COD settings (only keys with the `cod` permission; others get 403) and
 * the read-only availability check a flow asks before offering COD (any key).
 */
export function registerCodRoutes(api: FastifyInstance, { codSettings, codRules }: Pick<Services, 'codSettings' | 'codRules'>): void {
  const app = api.withTypeProvider<ZodTypeProvider>();
  const config = { permission: 'cod' as const };
  const settingsResponse = z.object({ data: codSettingsSchema });

  app.get('/cod/settings', { config, schema: { response: { 200: settingsResponse, ...errorResponses([401, 403, 429, 500]) } } }, async (req) => ({
    data: await codSettings.get(req.tenant.companyId),
  }));

  app.put(
    '/cod/settings',
    {
      config,
      bodyLimit: 16 * 1024,
      schema: { body: codSettingsBody, response: { 200: settingsResponse, ...errorResponses([400, 401, 403, 413, 415, 429, 500]) } },
    },
    async (req) => ({ data: await codSettings.set(req.tenant.companyId, keyActor(req.tenant), req.body) }),
  );

  app.get(
    '/cod/availability',
    {
      schema: { querystring: codAvailabilityQuery, response: { 200: z.object({ data: codAvailabilitySchema }), ...errorResponses([400, 401, 403, 429, 500]) } },
    },
    async (req) => ({ data: await codRules.check(req.tenant, req.query) }),
  );
}
