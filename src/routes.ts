import type { FastifyInstance } from 'fastify';
import type { Services } from './services.js';

/** Every authenticated route under the base path; one line per domain. */
export async function registerApiRoutes(api: FastifyInstance, services: Services): Promise<void> {
  void services;
  void api;
}
