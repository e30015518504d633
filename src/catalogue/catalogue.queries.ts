import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/index.js';

/**
 * A product is shown (browse, detail, counts) when it is listed: active with at least one active variant
 * (a product with nothing to order has no price_range). refreshListing keeps the flag (migration 0012).
 */
const visible = sql`p.listed`;

/** LIKE pattern for one search word, with the LIKE metacharacters taken literally. */
export function likeWord(word: string): string {
  return `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Lower-cased words of a search; every one must match somewhere in the product's search_text. */
export function searchWords(search: string | undefined): string[] {
  if (!search) return [];
  return [...new Set(search.toLowerCase().split(/\s+/).filter(Boolean))];
}

export interface PageFilter {
  words: string[];
  /** category ids (already expanded to sub-categories); undefined = no filter */
  categoryIds?: string[];
  brandIds?: string[];
  inStock: boolean;
}

export function filterSql(companyId: string, f: PageFilter): { where: SQL; shape: string } {
  const parts: SQL[] = [sql`p.company_id = ${companyId}`, visible];
  for (const w of f.words) parts.push(sql`p.search_text LIKE ${likeWord(w)}`);
  if (f.categoryIds) parts.push(sql`p.category_id = ANY(${sql.param(f.categoryIds)}::text[])`);
  if (f.brandIds) parts.push(sql`p.brand_id = ANY(${sql.param(f.brandIds)}::text[])`);
  if (f.inStock) {
    // Scalar subqueries, not EXISTS: the planner cannot flatten them into a join, so each is a probe by full key
    // (variants by product, then the ship-from stock row by its primary key) whatever the table statistics say.
    // Flattened, an unanalysed catalogue got a plan comparing every variant with every stock row per product
    // (0.7 s on 50 products, past the statement timeout under order traffic); this shape takes 2 ms there.
    parts.push(sql`coalesce((
      SELECT bool_or((SELECT stock_available(sl.on_hand, sl.reserved) > 0 FROM stock_levels sl
                      WHERE sl.company_id = ${companyId} AND sl.variant_id = sv.id
                        AND sl.location_id = (SELECT loc.id FROM stock_locations loc WHERE loc.company_id = ${companyId} AND loc.ships_orders AND loc.active)))
      FROM variants sv WHERE sv.company_id = ${companyId} AND sv.product_id = p.id AND sv.active), false)`);
  }
  // The statement's text depends only on this shape, so it can be a named prepared statement.
  const shape = `w${f.words.length}${f.categoryIds ? 'c' : ''}${f.brandIds ? 'b' : ''}${f.inStock ? 'i' : ''}`;
  return { where: sql.join(parts, sql` AND `), shape };
}

/**
 * Recomputes products.search_text (lower-cased name, SKU, description, and each active variant's SKU,
 * barcode, name and option values) for the given products. Every write path that changes any of
 * those calls this, in the same transaction. Only immutable functions (`||`, not the stable `concat_ws`):
 * Citus refuses stable functions over columns in an UPDATE. A missing part leaves an extra space, which no
 * search word (split on spaces) can notice.
 */
export async function refreshSearchText(db: Db, companyId: string, productIds: string[]): Promise<void> {
  if (productIds.length === 0) return;
  await db.query(sql`
    UPDATE products p SET search_text = lower(p.name || ' ' || p.sku || ' ' || coalesce(p.description, '') || ' ' || coalesce((
      SELECT string_agg(v.sku || ' ' || coalesce(v.barcode, '') || ' ' || v.name || ' ' ||
               coalesce((SELECT string_agg(a.value, ' ') FROM jsonb_each_text(v.attributes) a), ''), ' ' ORDER BY v.position, v.id)
      FROM variants v WHERE v.company_id = ${companyId} AND v.product_id = p.id AND v.active), ''))
    WHERE p.company_id = ${companyId} AND p.id = ANY(${sql.param(productIds)}::text[])`);
}

/**
 * Brings products.listed (active with at least one active variant) and the company's listed-product counter
 * (catalogue_counts, the unfiltered browse total) up to date for the given products: `refresh_listing`,
 * migration 0012, the one definition of the rule. Every writer of products or variants calls it after its
 * writes, in the same transaction (there are no triggers: Citus cannot distribute tables that have them).
 */
export async function refreshListing(db: Db, companyId: string, productIds: string[]): Promise<void> {
  if (productIds.length === 0) return;
  await db.query(sql`SELECT refresh_listing(${companyId}, ${sql.param(productIds)}::text[])`);
}

/**
 * Refreshes the planner's statistics after a bulk catalogue write. Autovacuum analyses a table only after
 * 50 rows plus 10% of it change, so a small or new catalogue could otherwise be planned as if empty.
 */
export async function analyzeCatalogue(db: Db): Promise<void> {
  await db.query(sql`ANALYZE products, variants, stock_levels, stock_locations, product_photos`);
}
