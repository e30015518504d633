import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import type { ShippingRateRow } from '../db/schema/checkout.js';
import type { ShippingRateInput } from '../contract/checkout-admin.js';

export type ShippingRateRecord = Omit<ShippingRateRow, 'company_id'>;
const RATE_COLUMNS = sql`id, title, description, level, zone_kind, zone_values, price, free_above, free_skus, active, created_at`;

/**
 * Adds a rate; a removed (inactive) rate of the same id is replaced, created afresh. Undefined when an active rate
 * already has the id.
 */
export async function insertShippingRate(db: Db, companyId: string, r: ShippingRateInput, now: Date): Promise<ShippingRateRecord | undefined> {
  const rows = await db.query<ShippingRateRecord>(sql`
    INSERT INTO shipping_rates AS s (company_id, id, title, description, level, zone_kind, zone_values, price, free_above, free_skus, active, created_at)
    VALUES (${companyId}, ${r.id}, ${r.title}, ${r.description}, ${r.level}, ${r.zone_kind}, ${sql.param(r.zone_values)}::text[], ${r.price}::numeric,
            ${r.free_above}::numeric, ${sql.param(r.free_skus)}::text[], ${r.active}::boolean, ${now.toISOString()}::timestamptz)
    ON CONFLICT (company_id, id) DO UPDATE SET
      title = excluded.title, description = excluded.description, level = excluded.level, zone_kind = excluded.zone_kind,
      zone_values = excluded.zone_values, price = excluded.price, free_above = excluded.free_above, free_skus = excluded.free_skus,
      active = excluded.active, created_at = excluded.created_at
    WHERE NOT s.active
    RETURNING ${RATE_COLUMNS}`);
  return rows[0];
}

export async function findShippingRates(db: Db, companyId: string, activeOnly: boolean): Promise<ShippingRateRecord[]> {
  return db.query<ShippingRateRecord>(sql`
    SELECT ${RATE_COLUMNS} FROM shipping_rates
    WHERE company_id = ${companyId} AND (active OR NOT ${activeOnly}::boolean)
    ORDER BY id`);
}

/** One rate, locked for a change when `lock`. */
export async function findShippingRate(db: Db, companyId: string, id: string, lock = false): Promise<ShippingRateRecord | undefined> {
  const rows = await db.query<ShippingRateRecord>(
    sql`SELECT ${RATE_COLUMNS} FROM shipping_rates WHERE company_id = ${companyId} AND id = ${id} ${lock ? sql`FOR UPDATE` : sql``}`,
  );
  return rows[0];
}

export async function updateShippingRate(db: Db, companyId: string, r: ShippingRateInput): Promise<ShippingRateRecord> {
  const rows = await db.query<ShippingRateRecord>(sql`
    UPDATE shipping_rates SET title = ${r.title}, description = ${r.description}, level = ${r.level}, zone_kind = ${r.zone_kind},
      zone_values = ${sql.param(r.zone_values)}::text[], price = ${r.price}::numeric, free_above = ${r.free_above}::numeric,
      free_skus = ${sql.param(r.free_skus)}::text[], active = ${r.active}::boolean
    WHERE company_id = ${companyId} AND id = ${r.id}
    RETURNING ${RATE_COLUMNS}`);
  return rows[0];
}

/** Takes a rate out of what checkouts offer; undefined when there is no active rate of that id. */
export async function deactivateShippingRate(db: Db, companyId: string, id: string): Promise<ShippingRateRecord | undefined> {
  const rows = await db.query<ShippingRateRecord>(sql`
    UPDATE shipping_rates SET active = false WHERE company_id = ${companyId} AND id = ${id} AND active
    RETURNING ${RATE_COLUMNS}`);
  return rows[0];
}
