import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';

/** The SQL of the Meta catalogue feed (feed.service.ts). Every statement names the company. */

export interface FeedRow {
  sku: string;
  product_sku: string;
  product_name: string;
  variant_name: string;
  description: string | null;
  attributes: Record<string, string>;
  brand: string | null;
  selling_price: string;
  mrp: string;
  /** at the location that ships orders, on_hand − reserved, never below 0 */
  available: string;
  /** the variant's own first photo, else the product's first */
  photo: string | null;
}

/** Every active variant of an active product, with live availability and its photo, in catalogue order. */
export function feedRows(db: Db, companyId: string): Promise<FeedRow[]> {
  return db.query<FeedRow>(sql`
    SELECT v.sku, p.sku AS product_sku, p.name AS product_name, v.name AS variant_name, p.description, v.attributes,
           b.name AS brand, v.selling_price::text AS selling_price, v.mrp::text AS mrp,
           coalesce((SELECT stock_available(sl.on_hand, sl.reserved) FROM stock_levels sl
                     JOIN stock_locations loc ON loc.company_id = ${companyId} AND loc.id = sl.location_id AND loc.ships_orders AND loc.active
                     WHERE sl.company_id = ${companyId} AND sl.variant_id = v.id), 0)::numeric(14, 3)::text AS available,
           (SELECT ph.path FROM product_photos ph
             WHERE ph.company_id = ${companyId} AND ph.product_id = p.id AND (ph.variant_id = v.id OR ph.variant_id IS NULL)
             ORDER BY (ph.variant_id IS NULL), ph.position, ph.id LIMIT 1) AS photo
    FROM variants v
    JOIN products p ON p.company_id = ${companyId} AND p.id = v.product_id
    LEFT JOIN brands b ON b.company_id = ${companyId} AND b.id = p.brand_id
    WHERE v.company_id = ${companyId} AND v.active AND p.active
    ORDER BY p.sort_name, p.id, v.position, v.id`);
}

export interface FeedSettings {
  token_hash: Buffer;
  product_url_template: string;
}

export async function feedSettings(db: Db, companyId: string): Promise<FeedSettings | undefined> {
  const [row] = await db.query<FeedSettings>(
    sql`SELECT token_hash, product_url_template FROM catalogue_feeds WHERE company_id = ${companyId} AND kind = 'meta'`,
  );
  return row;
}

/** Sets the feed's secret (new or rotated) and, when given, its link template. */
export async function saveFeed(db: Db, companyId: string, tokenHash: Buffer, template: string | undefined): Promise<FeedSettings> {
  const [row] = await db.query<FeedSettings>(sql`
    INSERT INTO catalogue_feeds AS f (company_id, kind, token_hash, product_url_template)
    VALUES (${companyId}, 'meta', ${tokenHash}, ${template ?? ''})
    ON CONFLICT (company_id, kind) DO UPDATE SET token_hash = EXCLUDED.token_hash, rotated_at = EXCLUDED.rotated_at,
      product_url_template = CASE WHEN ${template ?? null}::text IS NULL THEN f.product_url_template ELSE EXCLUDED.product_url_template END
    RETURNING token_hash, product_url_template`);
  return row;
}

export async function companyName(db: Db, companyId: string): Promise<string> {
  const [row] = await db.query<{ name: string }>(sql`SELECT name FROM companies WHERE id = ${companyId}`);
  return row?.name ?? '';
}
