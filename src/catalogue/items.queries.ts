import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import type { VariantRow } from '../db/schema/index.js';
import { likeWord } from './catalogue.queries.js';

/** name: the product's name with the variant's; price: its selling price; available: decimal text, 3 places. */
export type ItemRow = Pick<VariantRow, 'sku' | 'name'> & { price: VariantRow['selling_price']; available: string };

/**
 * One orderable row per active variant; available as in the catalogue (ship-from on hand - reserved, >= 0). Every
 * table names the company itself: Citus routes a correlated sub-query only when it is filtered by the company.
 */
function itemsSql(companyId: string, where: SQL): SQL {
  return sql`SELECT v.sku,
                    CASE WHEN v.name = '' OR v.name = p.name THEN p.name ELSE p.name || ' - ' || v.name END AS name,
                    v.selling_price::text AS price,
                    coalesce((SELECT stock_available(sl.on_hand, sl.reserved) FROM stock_levels sl
                              JOIN stock_locations loc ON loc.company_id = ${companyId} AND loc.id = sl.location_id AND loc.ships_orders AND loc.active
                              WHERE sl.company_id = ${companyId} AND sl.variant_id = v.id), 0)::numeric(14, 3)::text AS available
             FROM variants v JOIN products p ON p.company_id = v.company_id AND p.id = v.product_id
             WHERE v.company_id = ${companyId} AND v.active AND p.active AND ${where}`;
}

/** A page of the rows every search word matches (all rows when there are none), in browse order, and their total. */
export async function itemsPage(db: Db, companyId: string, words: string[], limit: number, offset: number): Promise<{ rows: ItemRow[]; total: number }> {
  // The product's indexed search_text narrows the rows; each word must then match this variant or its product.
  const variantText = sql`lower(p.name || ' ' || p.sku || ' ' || coalesce(p.description, '') || ' ' || v.sku || ' ' || coalesce(v.barcode, '') || ' ' || v.name || ' ' ||
                                    coalesce((SELECT string_agg(value, ' ') FROM jsonb_each_text(v.attributes)), ''))`;
  const where = words.length
    ? sql.join(
        words.map((w) => sql`p.search_text LIKE ${likeWord(w)} AND ${variantText} LIKE ${likeWord(w)}`),
        sql` AND `,
      )
    : sql`true`;
  const [rows, [{ n }]] = await Promise.all([
    db.query<ItemRow>(sql`${itemsSql(companyId, where)} ORDER BY p.sort_name, p.id, v.position, v.id LIMIT ${limit} OFFSET ${offset}`),
    db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM variants v JOIN products p ON p.company_id = v.company_id AND p.id = v.product_id
                                    WHERE v.company_id = ${companyId} AND v.active AND p.active AND ${where}`),
  ]);
  return { rows, total: n };
}

/** The orderable row of a variant SKU, variant id or barcode (the SKU first). */
export async function itemByRef(db: Db, companyId: string, id: string): Promise<ItemRow | undefined> {
  const rows = await db.query<ItemRow>(
    sql`${itemsSql(companyId, sql`(v.sku = ${id} OR v.id = ${id} OR v.barcode = ${id})`)} ORDER BY (v.sku = ${id}) DESC LIMIT 1`,
  );
  return rows[0];
}
