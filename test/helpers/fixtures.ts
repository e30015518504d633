import { randomBytes } from 'node:crypto';
import type { Services } from '../../src/services.js';
import type { CompanyInput } from '../../src/companies/companies.service.js';

/** A new company with one active key; each test gets its own. */
export async function createCompanyWithKey(services: Services, input: Partial<CompanyInput> = {}) {
  const suffix = randomBytes(4).toString('hex');
  const company = await services.companies.create({ kind: 'cli', name: 'test' }, { name: `Test Co ${suffix}`, slug: `test-${suffix}`, ...input });
  const { key, record } = await services.keys.create(company.id, { kind: 'cli', name: 'test' }, 'test');
  return { company, key, keyRecord: record, headers: { 'x-api-key': key } };
}
