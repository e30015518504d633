import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../services.js';
import { keyActor } from '../../keys/keys.service.js';
import type { UcpSettings } from '../../checkout/ucp-settings.service.js';
import { ucpDiscoveryUrl } from '../../checkout/ucp-profile.js';
import { errorResponses } from '../../contract/error-responses.js';
import { ucpHostBody, ucpHostParams, ucpHostSchema, ucpSettingsBody, ucpSettingsSchema } from '../../contract/ucp.js';

/** REST door for the company's UCP business settings and hosts: only keys with the `ucp` permission (others get 403). */
export function registerUcpSettingsRoutes(api: FastifyInstance, { ucpSettings, media }: Pick<Services, 'ucpSettings' | 'media'>): void {
  const app = api.withTypeProvider<ZodTypeProvider>();
  const config = { permission: 'ucp' as const };
  const view = (req: FastifyRequest, { slug, ...settings }: UcpSettings) => ({ ...settings, discovery_url: ucpDiscoveryUrl(media.origin(req), slug) });
  const settingsResponse = z.object({ data: ucpSettingsSchema });

  app.get('/ucp/settings', { config, schema: { response: { 200: settingsResponse, ...errorResponses([401, 403, 429, 500]) } } }, async (req) => ({
    data: view(req, await ucpSettings.get(req.tenant.companyId)),
  }));

  app.put(
    '/ucp/settings',
    {
      config,
      bodyLimit: 8 * 1024,
      schema: { body: ucpSettingsBody, response: { 200: settingsResponse, ...errorResponses([400, 401, 403, 413, 415, 429, 500]) } },
    },
    async (req) => ({ data: view(req, await ucpSettings.set(req.tenant.companyId, keyActor(req.tenant), req.body)) }),
  );

  app.get(
    '/ucp/hosts',
    { config, schema: { response: { 200: z.object({ data: z.array(ucpHostSchema) }), ...errorResponses([401, 403, 429, 500]) } } },
    async (req) => ({ data: await ucpSettings.hosts(req.tenant.companyId) }),
  );

  app.post(
    '/ucp/hosts',
    {
      config,
      bodyLimit: 8 * 1024,
      schema: {
        body: ucpHostBody,
        response: { 201: z.object({ data: ucpHostSchema }), ...errorResponses([400, 401, 403, 409, 413, 415, 429, 500], ['conflict']) },
      },
    },
    async (req, reply) => reply.status(201).send({ data: await ucpSettings.addHost(req.tenant.companyId, keyActor(req.tenant), req.body.host) }),
  );

  app.delete(
    '/ucp/hosts/:host',
    {
      config,
      schema: {
        params: ucpHostParams,
        response: { 200: z.object({ data: z.object({ host: z.string(), removed: z.literal(true) }) }), ...errorResponses([400, 401, 403, 404, 429, 500]) },
      },
    },
    async (req) => ({ data: await ucpSettings.removeHost(req.tenant.companyId, keyActor(req.tenant), req.params.host) }),
  );
}
