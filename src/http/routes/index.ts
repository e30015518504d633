import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { registerOrderRoutes } from './orders.js';
import { registerCustomerRoutes } from './customers.js';
import { registerCatalogueRoutes } from './catalogue.js';
import { registerMcpRoutes } from '../../mcp/mcp.routes.js';

/** Every authenticated route under the base path; one line per domain. */
export async function registerApiRoutes(api: FastifyInstance, services: Services): Promise<void> {
  registerOrderRoutes(api, services);
  registerCustomerRoutes(api, services);
  await registerCatalogueRoutes(api, services);
  registerMcpRoutes(api, services);
}
