import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from '../db/index.js';
import type { Actor } from '../db/audit-log.js';
import { countCompanies } from '../companies/companies.queries.js';
import type { Services } from '../services.js';

export const DEMO_SLUG = 'demo';
/** The demo catalogue (an Indian D2C mix) and its photos: docs/catalogue-import.md format. */
export const DEMO_CATALOGUE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'demo', 'catalogue.json');

/**
 * Creates the demo company, its first key and its catalogue when the database has no companies yet.
 * Returns the key only when it was created now (it is never shown again).
 */
export async function seedDemo(db: Db, services: Services, log: (msg: string) => void = () => {}): Promise<{ key: string; companyId: string } | null> {
  if ((await countCompanies(db)) > 0) return null;
  log('seeding the demo company');
  const actor: Actor = { kind: 'service', name: 'demo seed' };
  const company = await services.companies.create(actor, { name: 'Demo Store', slug: DEMO_SLUG, auto_courier_booking: false });
  const { key } = await services.keys.create(company.id, actor, 'demo');
  // A made-up seller (the sample PAN ABCDE1234F, with a valid check character) so demo invoices show the GST split.
  await services.taxProfiles.set(company.id, actor, {
    legal_name: 'Demo Store Private Limited',
    trade_name: 'Demo Store',
    gstin: '29ABCDE1234F1ZW',
    address_line1: '12, 4th Cross, Indiranagar',
    city: 'Bengaluru',
    state: 'Karnataka',
    pincode: '560038',
  });
  const catalogue: unknown = JSON.parse(readFileSync(DEMO_CATALOGUE, 'utf8'));
  await services.catalogueImport.importCatalogue(company.id, actor, catalogue, { baseDir: dirname(DEMO_CATALOGUE) });
  return { key, companyId: company.id };
}
