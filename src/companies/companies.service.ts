import type { Db } from '../db/index.js';
import type { CompanyRow } from '../db/schema/index.js';
import { AppError, notFound } from '../contract/errors.js';
import { newId } from '../lib/ids.js';
import { findCompanies, findCompany, insertCompany, updateCompany } from './companies.queries.js';

export type Company = CompanyRow;
export type CompanyStatus = Company['status'];
export type CompanyPlan = Company['plan'];

export interface CompanyInput {
  name: string;
  slug?: string;
  status?: CompanyStatus;
  plan?: CompanyPlan;
  auto_courier_booking?: boolean;
}

export function slugify(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/&/g, ' and ')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63)
      .replace(/-+$/, '') || 'company'
  );
}

export function createCompanyService({ db }: { db: Db }) {
  return {
    async create(input: CompanyInput): Promise<Company> {
      const slug = input.slug ?? slugify(input.name);
      if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(slug)) {
        throw new AppError('validation_failed', 'slug must be 1-63 lower-case letters, digits or "-"', [{ path: 'slug', message: 'invalid slug' }]);
      }
      const company = await insertCompany(db, {
        id: newId('co'),
        name: input.name,
        slug,
        status: input.status ?? 'active',
        plan: input.plan ?? 'commerce',
        auto_courier_booking: input.auto_courier_booking ?? false,
      });
      if (!company) throw new AppError('validation_failed', `a company with slug "${slug}" already exists`, [{ path: 'slug', message: 'already taken' }]);
      return company;
    },

    async list(): Promise<Company[]> {
      return findCompanies(db);
    },

    /** By id or slug. */
    async get(idOrSlug: string): Promise<Company> {
      const company = await findCompany(db, idOrSlug);
      if (!company) throw notFound(`no company with id or slug "${idOrSlug}"`);
      return company;
    },

    async update(idOrSlug: string, patch: Partial<Omit<CompanyInput, 'slug'>>): Promise<Company> {
      const current = await this.get(idOrSlug);
      return updateCompany(db, current.id, {
        name: patch.name ?? current.name,
        status: patch.status ?? current.status,
        plan: patch.plan ?? current.plan,
        auto_courier_booking: patch.auto_courier_booking ?? current.auto_courier_booking,
      });
    },
  };
}

export type CompanyService = ReturnType<typeof createCompanyService>;
