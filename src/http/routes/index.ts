import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import type { Database } from '../../db/index.js';
import type { Services } from '../../services.js';
import { registerOrderRoutes } from './orders.js';
import { registerPaymentLinkRoutes } from './payment-links.js';
import { registerCustomerRoutes } from './customers.js';
import { registerWebhookRoutes } from './webhooks.js';
import { registerStockRoutes } from './stock.js';
import { registerFeedRoutes } from './feeds.js';
import { registerCatalogueRoutes } from './catalogue.js';
import { registerOpsRoutes } from './ops.js';
import { registerMediaRoutes } from './media.js';
import { registerInvoiceRoutes } from './invoices.js';
import { registerCourierCallbackRoutes } from './courier-callbacks.js';
import { registerUcpSettingsRoutes } from './ucp-settings.js';
import { registerUcpRoutes } from './ucp.js';
import { registerPaymentWebhookRoutes } from './payment-webhooks.js';
import { registerCodRoutes } from './cod.js';
import { registerPrivacyRoutes } from './privacy.js';
import { registerAuditRoutes } from './audit.js';
import { registerPrivacySettingsRoutes } from './privacy-settings.js';
import { registerMcpRoutes } from '../../mcp/mcp.routes.js';
import type { OverloadState } from '../overload.js';
import { registerPublicLimits } from '../public-rate-limit.js';
import { registerUcpScope } from '../ucp-scope.js';

/**
 * Routes outside the base path and without an API key: probes, signed photo and invoice links and catalogue feeds (rate
 * limited per client address and company), signed courier callbacks, signed Razorpay webhooks (under the base path,
 * but without a key), and the companies' UCP businesses (/ucp/…, /.well-known/ucp; limited per address and per company).
 */
export function registerPublicRoutes(
  app: FastifyInstance,
  {
    db,
    services,
    config,
    redis,
    draining,
    overload,
  }: { db: Database; services: Services; config: Config; redis?: Redis; draining: () => boolean; overload: OverloadState },
): void {
  registerOpsRoutes(app, { db, draining, overload });
  // Named: Fastify names the context after its plugin function, and traces show it.
  app.register(async function publicLinks(scope) {
    const limits = await registerPublicLimits(scope, { config, redis });
    registerMediaRoutes(scope, services, limits.photos);
    registerInvoiceRoutes(scope, services, limits.invoices);
    registerFeedRoutes(scope, services, limits.feeds);
  });
  registerCourierCallbackRoutes(app, { fulfilment: services.fulfilment, config, redis });
  registerUcpScope(app, { config, redis, ucpSettings: services.ucpSettings }, registerUcpRoutes(services, { simulationSecret: config.UCP_SIMULATION_SECRET }));
  registerPaymentWebhookRoutes(app, { payments: services.payments, config, redis });
}

/** Every authenticated route under the base path; one line per door. */
export async function registerApiRoutes(
  api: FastifyInstance,
  services: Services,
  observe: { toolCalled?: (tool: string, outcome: string) => void; mcpDirectToolCalls?: boolean } = {},
): Promise<void> {
  registerOrderRoutes(api, services);
  registerPaymentLinkRoutes(api, services);
  registerCustomerRoutes(api, services);
  registerWebhookRoutes(api, services);
  registerUcpSettingsRoutes(api, services);
  registerCodRoutes(api, services);
  registerPrivacyRoutes(api, services);
  registerAuditRoutes(api, services);
  registerPrivacySettingsRoutes(api, services);
  await registerCatalogueRoutes(api, services);
  registerStockRoutes(api, services);
  registerMcpRoutes(api, services, observe.toolCalled, observe.mcpDirectToolCalls);
}
