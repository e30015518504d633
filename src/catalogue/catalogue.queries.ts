import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { products } from '../db/schema/index.js';
import { PRODUCT_FIELD_NAMES } from '../contract/product-fields.js';

/**
 * A product is shown (browse, detail, counts) when it is listed: active with at least one active variant
 * (a product with nothing to order has no price_range). refreshListing keeps the flag (src/db/functions/refresh_listing.sql).
 */
const visible = sql`p.listed`;

const productColumns = getTableColumns(products);
const missing = PRODUCT_FIELD_NAMES.filter((name) => !(name in productColumns));
if (missing.length) throw new Error(`product fields without a column in products: ${missing.join(', ')}`);

/**
 * The product fields' columns (contract/product-fields.ts) as a select list, in the fields' order: `prefix` names the
 * table (`p.`), and a numeric column is read as its exact text under its own name.
 */
export function productFieldColumns(prefix = ''): string {
  return PRODUCT_FIELD_NAMES.map((name) => (productColumns[name].columnType === 'PgNumeric' ? `${prefix}${name}::text AS ${name}` : `${prefix}${name}`)).join(
    ', ',
  );
}

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
  // products.in_stock (src/db/functions/refresh_in_stock.sql): with `listed`, the predicate of the products_in_stock index.
  if (f.inStock) parts.push(sql`p.in_stock`);
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
 * Brings products.listed (active with at least one active variant) and products.in_stock (migration 0020), with the
 * company's counters of both (catalogue_counts: the unfiltered and the in_stock=true browse totals), up to date for
 * the given products: `refresh_listing` and `refresh_in_stock` (src/db/functions/), the one definition of each rule. Every writer of
 * products or variants calls it after its writes, in the same transaction (there are no triggers: Citus cannot
 * distribute tables that have them); a writer of stock rows alone calls refreshInStock.
 */
export async function refreshListing(db: Db, companyId: string, productIds: string[]): Promise<void> {
  if (productIds.length === 0) return;
  await db.query(sql`SELECT refresh_listing(${companyId}, ${sql.param(productIds)}::text[])`);
  await refreshInStock(db, companyId, productIds);
}

/**
 * Brings products.in_stock and the company's in-stock counter up to date for the given products (`refresh_in_stock`,
 * src/db/functions/refresh_in_stock.sql), which it locks in id order. Called after the caller has locked and written the stock rows it
 * changes (lock order: stock rows, then products), in the same transaction.
 */
export async function refreshInStock(db: Db, companyId: string, productIds: string[]): Promise<void> {
  if (productIds.length === 0) return;
  await db.query(sql`SELECT refresh_in_stock(${companyId}, ${sql.param(productIds)}::text[])`);
}

/** refreshInStock for the products of the given variants. */
export async function refreshInStockOfVariants(db: Db, companyId: string, variantIds: string[]): Promise<void> {
  if (variantIds.length === 0) return;
  const rows = await db.query<{ product_id: string }>(
    sql`SELECT DISTINCT product_id FROM variants WHERE company_id = ${companyId} AND id = ANY(${sql.param(variantIds)}::text[])`,
  );
  await refreshInStock(
    db,
    companyId,
    rows.map((r) => r.product_id),
  );
}

/** refreshInStock for every product of the company: after its ship-from location changed. */
export async function refreshInStockOfCompany(db: Db, companyId: string): Promise<void> {
  const rows = await db.query<{ id: string }>(sql`SELECT id FROM products WHERE company_id = ${companyId}`);
  await refreshInStock(
    db,
    companyId,
    rows.map((r) => r.id),
  );
}

/**
 * Refreshes the planner's statistics after a bulk catalogue write. Autovacuum analyses a table only after
 * 50 rows plus 10% of it change, so a small or new catalogue could otherwise be planned as if empty.
 */
export async function analyzeCatalogue(db: Db): Promise<void> {
  await db.query(sql`ANALYZE products, variants, stock_levels, stock_locations, product_photos`);
}
