import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';

/** The SQL of setting on-hand stock in bulk (stock.service.ts). Every statement names the company. */

export interface VariantKey {
  id: string;
  sku: string;
  barcode: string | null;
  /** its product's selling unit: a counted one takes whole figures only (lib/units.ts) */
  unit: string;
}

export interface LocationRow {
  id: string;
  code: string;
  active: boolean;
  ships_orders: boolean;
}

/** The company's variants named by any of these SKUs or barcodes. */
export function variantsByKeys(db: Db, companyId: string, skus: string[], barcodes: string[]): Promise<VariantKey[]> {
  return db.query<VariantKey>(sql`
    SELECT v.id, v.sku, v.barcode, p.unit FROM variants v JOIN products p ON p.company_id = ${companyId} AND p.id = v.product_id
    WHERE v.company_id = ${companyId}
      AND (v.sku = ANY(${sql.param(skus)}::text[]) OR v.barcode = ANY(${sql.param(barcodes)}::text[]))`);
}

export function locationsOf(db: Db, companyId: string): Promise<LocationRow[]> {
  return db.query<LocationRow>(sql`SELECT id, code, active, ships_orders FROM stock_locations WHERE company_id = ${companyId}`);
}

/**
 * Sets on_hand for each (variant, location), creating the level where there was none; `reserved` is never written, so
 * an order reserving the same row at the same moment keeps its reservation (each statement changes only its own
 * column of the row it has locked, and the later one reads the row the earlier one committed). Rows are taken in
 * (variant, location) order, the order orders lock stock rows in, so the two cannot deadlock. Only levels whose
 * quantity changes are written and returned. `updated_at` comes from the row's default (Citus refuses now() in DO
 * UPDATE SET).
 */
export function setOnHand(
  db: Db,
  companyId: string,
  rows: { variantId: string; locationId: string; onHand: string }[],
): Promise<{ variant_id: string; location_id: string; on_hand: string; reserved: string }[]> {
  return db.query(sql`
    INSERT INTO stock_levels AS s (company_id, variant_id, location_id, on_hand)
    SELECT ${companyId}, t.variant_id, t.location_id, t.on_hand
    FROM unnest(${sql.param(rows.map((r) => r.variantId))}::text[], ${sql.param(rows.map((r) => r.locationId))}::text[],
                ${sql.param(rows.map((r) => r.onHand))}::numeric[]) AS t(variant_id, location_id, on_hand)
    ORDER BY t.variant_id, t.location_id
    ON CONFLICT (company_id, variant_id, location_id) DO UPDATE SET on_hand = EXCLUDED.on_hand, updated_at = EXCLUDED.updated_at
      WHERE s.on_hand IS DISTINCT FROM EXCLUDED.on_hand
    RETURNING s.variant_id, s.location_id, s.on_hand::text AS on_hand, s.reserved::text AS reserved`);
}
