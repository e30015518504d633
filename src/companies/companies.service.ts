import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { columnList, companies, type CompanyRow } from '../db/schema/index.js';
import { AppError, notFound } from '../contract/errors.js';
import { newId } from '../lib/ids.js';

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

const COLUMNS = columnList(companies, ['id', 'name', 'slug', 'status', 'plan', 'auto_courier_booking', 'created_at', 'updated_at']);

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
      const rows = await db.query<Company>(sql`
        INSERT INTO companies (id, name, slug, status, plan, auto_courier_booking)
        VALUES (${newId('co')}, ${input.name}, ${slug}, ${input.status ?? 'active'}, ${input.plan ?? 'commerce'}, ${input.auto_courier_booking ?? false})
        ON CONFLICT (slug) DO NOTHING
        RETURNING ${COLUMNS}`);
      if (!rows[0]) throw new AppError('validation_failed', `a company with slug "${slug}" already exists`, [{ path: 'slug', message: 'already taken' }]);
      return rows[0];
    },

    async list(): Promise<Company[]> {
      return db.query<Company>(sql`SELECT ${COLUMNS} FROM companies ORDER BY created_at, id`);
    },

    /** By id or slug. */
    async get(idOrSlug: string): Promise<Company> {
      const rows = await db.query<Company>(sql`SELECT ${COLUMNS} FROM companies WHERE id = ${idOrSlug} OR slug = ${idOrSlug}`);
      if (!rows[0]) throw notFound(`no company with id or slug "${idOrSlug}"`);
      return rows[0];
    },

    async update(idOrSlug: string, patch: Partial<Omit<CompanyInput, 'slug'>>): Promise<Company> {
      const current = await this.get(idOrSlug);
      const rows = await db.query<Company>(sql`
        UPDATE companies SET
          name = ${patch.name ?? current.name},
          status = ${patch.status ?? current.status},
          plan = ${patch.plan ?? current.plan},
          auto_courier_booking = ${patch.auto_courier_booking ?? current.auto_courier_booking},
          updated_at = now()
        WHERE id = ${current.id}
        RETURNING ${COLUMNS}`);
      return rows[0];
    },
  };
}

export type CompanyService = ReturnType<typeof createCompanyService>;
