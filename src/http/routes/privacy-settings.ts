import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../services.js';
import { errorResponses } from '../../contract/error-responses.js';
import { privacySettingsBody, privacySettingsSchema } from '../../contract/privacy-settings.js';
import { keyActor } from '../../keys/keys.service.js';

/** REST door for a company's privacy settings: the notice link and retention (only keys with the `privacy` permission; others get 403). */
export function registerPrivacySettingsRoutes(api: FastifyInstance, { privacySettings }: Pick<Services, 'privacySettings'>): void {
  const app = api.withTypeProvider<ZodTypeProvider>();
  const config = { permission: 'privacy' as const };
  const settingsResponse = z.object({ data: privacySettingsSchema });

  app.get('/privacy/settings', { config, schema: { response: { 200: settingsResponse, ...errorResponses([401, 403, 429, 500]) } } }, async (req) => ({
    data: await privacySettings.get(req.tenant.companyId),
  }));

  app.put(
    '/privacy/settings',
    {
      config,
      bodyLimit: 16 * 1024,
      schema: { body: privacySettingsBody, response: { 200: settingsResponse, ...errorResponses([400, 401, 403, 413, 415, 429, 500]) } },
    },
    async (req) => ({ data: await privacySettings.set(req.tenant.companyId, keyActor(req.tenant), req.body) }),
  );
}
