import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import type { DiscountCodeRow } from '../db/schema/checkout.js';
import type { DiscountCodeInput } from '../contract/checkout-admin.js';

export type DiscountCodeRecord = Omit<DiscountCodeRow, 'company_id'>;
const CODE_COLUMNS = sql`code, title, kind, value, min_order, starts_at, ends_at, usage_limit, per_customer_limit, used_count, active, created_at`;

/** Adds a code; undefined when the company has it already (active or not: its redemptions keep naming it). */
export async function insertDiscountCode(db: Db, companyId: string, d: DiscountCodeInput, now: Date): Promise<DiscountCodeRecord | undefined> {
  const rows = await db.query<DiscountCodeRecord>(sql`
    INSERT INTO discount_codes (company_id, code, title, kind, value, min_order, starts_at, ends_at, usage_limit, per_customer_limit, active, created_at)
    VALUES (${companyId}, ${d.code}, ${d.title}, ${d.kind}, ${d.value}::numeric, ${d.min_order}::numeric, ${d.starts_at}::timestamptz,
            ${d.ends_at}::timestamptz, ${d.usage_limit}::integer, ${d.per_customer_limit}::integer, ${d.active}::boolean, ${now.toISOString()}::timestamptz)
    ON CONFLICT (company_id, code) DO NOTHING
    RETURNING ${CODE_COLUMNS}`);
  return rows[0];
}

export async function findDiscountCodes(db: Db, companyId: string, activeOnly: boolean): Promise<DiscountCodeRecord[]> {
  return db.query<DiscountCodeRecord>(sql`
    SELECT ${CODE_COLUMNS} FROM discount_codes
    WHERE company_id = ${companyId} AND (active OR NOT ${activeOnly}::boolean)
    ORDER BY code`);
}

/** The company's codes among `codes` (upper case), active or not: a checkout says why an inactive one does not apply. */
export async function findDiscountCodesNamed(db: Db, companyId: string, codes: readonly string[]): Promise<DiscountCodeRecord[]> {
  return db.query<DiscountCodeRecord>(sql`
    SELECT ${CODE_COLUMNS} FROM discount_codes WHERE company_id = ${companyId} AND code = ANY(${sql.param(codes)}::text[])`);
}

/** One code, locked for a change when `lock`. */
export async function findDiscountCode(db: Db, companyId: string, code: string, lock = false): Promise<DiscountCodeRecord | undefined> {
  const rows = await db.query<DiscountCodeRecord>(
    sql`SELECT ${CODE_COLUMNS} FROM discount_codes WHERE company_id = ${companyId} AND code = ${code} ${lock ? sql`FOR UPDATE` : sql``}`,
  );
  return rows[0];
}

export async function updateDiscountCode(db: Db, companyId: string, d: DiscountCodeInput): Promise<DiscountCodeRecord> {
  const rows = await db.query<DiscountCodeRecord>(sql`
    UPDATE discount_codes SET title = ${d.title}, kind = ${d.kind}, value = ${d.value}::numeric, min_order = ${d.min_order}::numeric,
      starts_at = ${d.starts_at}::timestamptz, ends_at = ${d.ends_at}::timestamptz, usage_limit = ${d.usage_limit}::integer,
      per_customer_limit = ${d.per_customer_limit}::integer, active = ${d.active}::boolean
    WHERE company_id = ${companyId} AND code = ${d.code}
    RETURNING ${CODE_COLUMNS}`);
  return rows[0];
}

/** How many orders a customer has placed with each of `codes`. */
export async function countCustomerRedemptions(db: Db, companyId: string, customerId: string, codes: readonly string[]): Promise<Map<string, number>> {
  const rows = await db.query<{ code: string; n: number }>(sql`
    SELECT code, count(*)::int AS n FROM discount_redemptions
    WHERE company_id = ${companyId} AND customer_id = ${customerId} AND code = ANY(${sql.param(codes)}::text[])
    GROUP BY code`);
  return new Map(rows.map((r) => [r.code, r.n]));
}
