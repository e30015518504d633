import type { Config } from './config.js';
import type { Db } from './db/index.js';
import { createCompanyService } from './companies/companies.service.js';
import { createKeyService } from './keys/keys.service.js';

/** Every service, built once per process from its narrow dependencies; REST and MCP call the same ones. */
export function createServices({ db, config }: { db: Db; config: Config }) {
  void config;
  return {
    companies: createCompanyService({ db }),
    keys: createKeyService({ db }),
  };
}

export type Services = ReturnType<typeof createServices>;
