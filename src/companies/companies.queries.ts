import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { columnList, companies, taxProfiles, type CompanyRow, type TaxProfileRow } from '../db/schema/index.js';

/** Companies (the tenants themselves, so not scoped by a company id of their own) and each company's tax profile. */

const COMPANY_COLUMNS = columnList(companies, ['id', 'name', 'slug', 'status', 'plan', 'auto_courier_booking', 'created_at', 'updated_at']);

export type NewCompany = Pick<CompanyRow, 'id' | 'name' | 'slug' | 'status' | 'plan' | 'auto_courier_booking'>;

/** The new company, or undefined when its slug is taken. */
export async function insertCompany(db: Db, c: NewCompany): Promise<CompanyRow | undefined> {
  const rows = await db.query<CompanyRow>(sql`
        INSERT INTO companies (id, name, slug, status, plan, auto_courier_booking)
        VALUES (${c.id}, ${c.name}, ${c.slug}, ${c.status}, ${c.plan}, ${c.auto_courier_booking})
        ON CONFLICT (slug) DO NOTHING
        RETURNING ${COMPANY_COLUMNS}`);
  return rows[0];
}

export async function findCompanies(db: Db): Promise<CompanyRow[]> {
  return db.query<CompanyRow>(sql`SELECT ${COMPANY_COLUMNS} FROM companies ORDER BY created_at, id`);
}

/** By id or slug. */
export async function findCompany(db: Db, idOrSlug: string): Promise<CompanyRow | undefined> {
  const rows = await db.query<CompanyRow>(sql`SELECT ${COMPANY_COLUMNS} FROM companies WHERE id = ${idOrSlug} OR slug = ${idOrSlug}`);
  return rows[0];
}

export async function updateCompany(db: Db, id: string, c: Pick<CompanyRow, 'name' | 'status' | 'plan' | 'auto_courier_booking'>): Promise<CompanyRow> {
  const rows = await db.query<CompanyRow>(sql`
        UPDATE companies SET
          name = ${c.name},
          status = ${c.status},
          plan = ${c.plan},
          auto_courier_booking = ${c.auto_courier_booking},
          updated_at = now()
        WHERE id = ${id}
        RETURNING ${COMPANY_COLUMNS}`);
  return rows[0];
}

export async function countCompanies(db: Db): Promise<number> {
  const [{ n }] = await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM companies`);
  return n;
}

export type TaxProfile = Omit<TaxProfileRow, 'company_id' | 'updated_at'>;

const TAX_PROFILE_FIELDS = ['legal_name', 'trade_name', 'gstin', 'address_line1', 'address_line2', 'city', 'state', 'pincode', 'invoice_prefix'] as const;
const TAX_PROFILE_COLUMNS = columnList(taxProfiles, TAX_PROFILE_FIELDS);

export async function findTaxProfile(db: Db, companyId: string): Promise<TaxProfile | undefined> {
  const rows = await db.query<TaxProfile>(sql`SELECT ${TAX_PROFILE_COLUMNS} FROM tax_profiles WHERE company_id = ${companyId}`);
  return rows[0];
}

/** Creates or replaces the profile (already checked with checkTaxProfile); inside the caller's transaction when given one. */
export async function writeTaxProfile(db: Db, companyId: string, p: TaxProfile, now: Date): Promise<TaxProfile> {
  const rows = await db.query<TaxProfile>(sql`
    INSERT INTO tax_profiles (company_id, legal_name, trade_name, gstin, address_line1, address_line2, city, state, pincode, invoice_prefix, updated_at)
    VALUES (${companyId}, ${p.legal_name}, ${p.trade_name}, ${p.gstin}, ${p.address_line1}, ${p.address_line2}, ${p.city}, ${p.state}, ${p.pincode},
    ${p.invoice_prefix}, ${now.toISOString()}::timestamptz)
    ON CONFLICT (company_id) DO UPDATE SET legal_name = EXCLUDED.legal_name, trade_name = EXCLUDED.trade_name, gstin = EXCLUDED.gstin,
      address_line1 = EXCLUDED.address_line1, address_line2 = EXCLUDED.address_line2, city = EXCLUDED.city, state = EXCLUDED.state,
      pincode = EXCLUDED.pincode, invoice_prefix = EXCLUDED.invoice_prefix, updated_at = EXCLUDED.updated_at
    RETURNING ${TAX_PROFILE_COLUMNS}`);
  return rows[0];
}
