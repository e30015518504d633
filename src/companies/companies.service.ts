import type { Db } from '../db/index.js';
import { recordAudit, type Actor } from '../db/audit-log.js';
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
    /** Creates a company; the audit trail's first entry of the company says who did. */
    async create(actor: Actor, input: CompanyInput): Promise<Company> {
      const slug = input.slug ?? slugify(input.name);
      if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(slug)) {
        throw new AppError('validation_failed', 'slug must be 1-63 lower-case letters, digits or "-"', [{ path: 'slug', message: 'invalid slug' }]);
      }
      return db.tx(async (tx) => {
        const company = await insertCompany(tx, {
          id: newId('co'),
          name: input.name,
          slug,
          status: input.status ?? 'active',
          plan: input.plan ?? 'commerce',
          auto_courier_booking: input.auto_courier_booking ?? false,
        });
        if (!company) throw new AppError('validation_failed', `a company with slug "${slug}" already exists`, [{ path: 'slug', message: 'already taken' }]);
        await recordAudit(tx, company.id, actor, {
          action: 'company.created',
          subjectKind: 'company',
          subjectId: company.id,
          detail: { slug, status: company.status, plan: company.plan, auto_courier_booking: company.auto_courier_booking },
        });
        return company;
      });
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

    /** Changes the fields given; the audit entry names the fields that changed and the new status, plan and flag (the name is named only). */
    async update(idOrSlug: string, actor: Actor, patch: Partial<Omit<CompanyInput, 'slug'>>): Promise<Company> {
      const current = await this.get(idOrSlug);
      return db.tx(async (tx) => {
        const updated = await updateCompany(tx, current.id, {
          name: patch.name ?? current.name,
          status: patch.status ?? current.status,
          plan: patch.plan ?? current.plan,
          auto_courier_booking: patch.auto_courier_booking ?? current.auto_courier_booking,
        });
        const fields = (['name', 'status', 'plan', 'auto_courier_booking'] as const).filter((f) => updated[f] !== current[f]);
        const values = Object.fromEntries(fields.filter((f) => f !== 'name').map((f) => [f, updated[f]]));
        await recordAudit(tx, current.id, actor, { action: 'company.updated', subjectKind: 'company', subjectId: current.id, detail: { fields, ...values } });
        return updated;
      });
    },
  };
}

export type CompanyService = ReturnType<typeof createCompanyService>;
