import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import type { Database } from '../../db/index.js';
import type { Services } from '../../services.js';
import { registerOrderRoutes } from './orders.js';
import { registerCustomerRoutes } from './customers.js';
import { registerWebhookRoutes } from './webhooks.js';
import { registerStockRoutes } from './stock.js';
import { registerFeedRoutes } from './feeds.js';
import { registerCatalogueRoutes } from './catalogue.js';
import { registerOpsRoutes } from './ops.js';
import { registerMediaRoutes } from './media.js';
import { registerInvoiceRoutes } from './invoices.js';
import { registerCourierCallbackRoutes } from './courier-callbacks.js';
import { registerMcpRoutes } from '../../mcp/mcp.routes.js';
import type { OverloadState } from '../overload.js';

/** Routes outside the base path and without an API key: probes, signed photo and invoice links, catalogue feeds, signed courier callbacks. */
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
  registerMediaRoutes(app, services);
  registerInvoiceRoutes(app, services);
  registerFeedRoutes(app, services);
  registerCourierCallbackRoutes(app, { fulfilment: services.fulfilment, config, redis });
}

/** Every authenticated route under the base path; one line per door. */
export async function registerApiRoutes(
  api: FastifyInstance,
  services: Services,
  observe: { toolCalled?: (tool: string, outcome: string) => void; mcpDirectToolCalls?: boolean } = {},
): Promise<void> {
  registerOrderRoutes(api, services);
  registerCustomerRoutes(api, services);
  registerWebhookRoutes(api, services);
  await registerCatalogueRoutes(api, services);
  registerStockRoutes(api, services);
  registerMcpRoutes(api, services, observe.toolCalled, observe.mcpDirectToolCalls);
}
