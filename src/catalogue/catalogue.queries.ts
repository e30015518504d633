import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import type { BrandRow, CategoryRow, ProductPhotoRow, ProductRow, VariantRow } from '../db/schema/index.js';

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

/** The exact number of products matching the filter; unfiltered, the per-company counter (migration 0008). */
export async function countProducts(db: Db, companyId: string, f: PageFilter): Promise<number> {
  if (f.words.length === 0 && !f.categoryIds && !f.brandIds && !f.inStock) {
    const rows = await db.query<{ n: number }>(
      sql`SELECT coalesce((SELECT listed_products FROM catalogue_counts WHERE company_id = ${companyId}), 0) AS n`,
      'catalogue_count_all',
    );
    return rows[0].n;
  }
  const { where, shape } = filterSql(companyId, f);
  const rows = await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM products p WHERE ${where}`, `catalogue_count_${shape}`);
  return rows[0].n;
}

/** Ids of the categories named by id, slug or name (case-insensitive), with all their sub-categories. */
export async function categoryTreeIds(db: Db, companyId: string, ref: string): Promise<string[]> {
  const rows = await db.query<Pick<CategoryRow, 'id'>>(
    sql`WITH RECURSIVE tree AS (
          SELECT id FROM categories
          WHERE company_id = ${companyId} AND (id = ${ref} OR lower(slug) = lower(${ref}) OR lower(name) = lower(${ref}))
          UNION
          SELECT c.id FROM categories c JOIN tree t ON c.parent_id = t.id
          WHERE c.company_id = ${companyId}
        )
        SELECT id FROM tree`,
    'catalogue_category_tree',
  );
  return rows.map((r) => r.id);
}

export async function brandIds(db: Db, companyId: string, ref: string): Promise<string[]> {
  const rows = await db.query<Pick<BrandRow, 'id'>>(
    sql`SELECT id FROM brands WHERE company_id = ${companyId} AND (id = ${ref} OR lower(slug) = lower(${ref}) OR lower(name) = lower(${ref}))`,
    'catalogue_brand_ids',
  );
  return rows.map((r) => r.id);
}

/** An active variant with its stock figures, as built in JSON by productSelect (numbers as decimal text). */
export type ListedVariant = Pick<VariantRow, 'id' | 'sku' | 'barcode' | 'name' | 'attributes' | 'selling_price' | 'mrp'> & {
  /** decimal text, 3 places, never negative */
  available: string;
  available_total: string;
  in_stock: boolean;
};

export type ListedPhoto = Pick<ProductPhotoRow, 'path' | 'alt' | 'variant_id'>;

/** A listed product with its category, brand, active variants and photos: one row of productSelect. */
export type ListedProduct = Pick<ProductRow, 'id' | 'sku' | 'name' | 'description' | 'unit' | 'hsn_code' | 'tax_rate'> & {
  // from LEFT JOINs: null when the product has no category or brand
  category_id: CategoryRow['id'] | null;
  category_name: CategoryRow['name'] | null;
  category_slug: CategoryRow['slug'] | null;
  category_parent: CategoryRow['name'] | null;
  brand_id: BrandRow['id'] | null;
  brand_name: BrandRow['name'] | null;
  variants: ListedVariant[];
  /** sums over the active variants, decimal text with 3 places */
  available: string;
  available_total: string;
  in_stock: boolean;
  /** lowest and highest selling price of the active variants (null when none) */
  price_min: string | null;
  price_max: string | null;
  photos: ListedPhoto[];
};

/**
 * A product with its active variants (stock figures included) and photos, as one row: the select list and
 * joins shared by the page query and the by-id query. Numbers travel as text inside the JSON, so no
 * decimal becomes a float.
 */
function productSelect(companyId: string, extra: SQL = sql``): SQL {
  return sql`SELECT ${extra} p.id, p.sku, p.name, p.description, p.unit, p.hsn_code, p.tax_rate::text AS tax_rate,
          c.id AS category_id, c.name AS category_name, c.slug AS category_slug, pc.name AS category_parent,
          b.id AS brand_id, b.name AS brand_name,
          va.variants, va.available, va.available_total, va.in_stock, va.price_min, va.price_max,
          (SELECT coalesce(json_agg(json_build_object('path', ph.path, 'alt', ph.alt, 'variant_id', ph.variant_id) ORDER BY ph.position, ph.id), '[]'::json)
           FROM product_photos ph
           LEFT JOIN variants pv ON pv.company_id = ${companyId} AND pv.id = ph.variant_id
           WHERE ph.company_id = ${companyId} AND ph.product_id = p.id AND (ph.variant_id IS NULL OR pv.active)) AS photos
        FROM products p
        LEFT JOIN categories c ON c.company_id = ${companyId} AND c.id = p.category_id
        LEFT JOIN categories pc ON pc.company_id = ${companyId} AND pc.id = c.parent_id
        LEFT JOIN brands b ON b.company_id = ${companyId} AND b.id = p.brand_id
        CROSS JOIN LATERAL (
          -- Availability in exact numeric arithmetic: per variant, ship-from and all active locations, never
          -- negative; the product's figures sum its active variants. Text keeps the scale ("12.000", "899.00").
          SELECT coalesce(json_agg(json_build_object(
                   'id', v.id, 'sku', v.sku, 'barcode', v.barcode, 'name', v.name, 'attributes', v.attributes,
                   'selling_price', v.selling_price::text, 'mrp', v.mrp::text,
                   'available', v.available::text, 'available_total', v.available_total::text, 'in_stock', v.available > 0)
                   ORDER BY v.position, v.id), '[]'::json) AS variants,
                 coalesce(sum(v.available), 0)::numeric(14, 3)::text AS available,
                 coalesce(sum(v.available_total), 0)::numeric(14, 3)::text AS available_total,
                 coalesce(bool_or(v.available > 0), false) AS in_stock,
                 min(v.selling_price)::text AS price_min,
                 max(v.selling_price)::text AS price_max
          FROM (
            SELECT vv.id, vv.sku, vv.barcode, vv.name, vv.attributes, vv.position, vv.selling_price, vv.mrp,
                   stock_available(sum(st.on_hand) FILTER (WHERE st.ships_orders), sum(st.reserved) FILTER (WHERE st.ships_orders))::numeric(14, 3) AS available,
                   stock_available(sum(st.on_hand), sum(st.reserved))::numeric(14, 3) AS available_total
            FROM variants vv
            LEFT JOIN (
              SELECT sl.variant_id, sl.on_hand, sl.reserved, loc.ships_orders
              FROM stock_levels sl
              JOIN stock_locations loc ON loc.company_id = sl.company_id AND loc.id = sl.location_id AND loc.active
              WHERE sl.company_id = ${companyId}
            ) st ON st.variant_id = vv.id
            WHERE vv.company_id = ${companyId} AND vv.product_id = p.id AND vv.active
            GROUP BY vv.id, vv.sku, vv.barcode, vv.name, vv.attributes, vv.position, vv.selling_price, vv.mrp
          ) v
        ) va`;
}

/**
 * One browse page in full, in one round trip: the page's ids come first from the (company_id, sort_name, id)
 * index (LIMIT/OFFSET over ids only, never over joined rows), then only those products are assembled.
 */
export async function productPage(db: Db, companyId: string, f: PageFilter, limit: number, offset: number): Promise<ListedProduct[]> {
  const { where, shape } = filterSql(companyId, f);
  return db.query<ListedProduct>(
    sql`WITH page AS MATERIALIZED (
          SELECT p.id, p.sort_name FROM products p WHERE ${where} ORDER BY p.sort_name, p.id LIMIT ${limit} OFFSET ${offset})
        ${productSelect(companyId)}
        JOIN page ON page.id = p.id
        WHERE p.company_id = ${companyId}
        ORDER BY page.sort_name, page.id`,
    `catalogue_page_${shape}`,
  );
}

/**
 * The product a detail id names, in full, in one round trip: best match first among product id, variant id,
 * variant SKU, product SKU, barcode (exact, case-sensitive, as SKUs are unique per company). Undefined when
 * nothing matches, or the product is not listed, or the id named an inactive variant.
 */
export async function productByRef(
  db: Db,
  companyId: string,
  ref: string,
): Promise<(ListedProduct & { matched_variant_id: VariantRow['id'] | null }) | undefined> {
  const rows = await db.query<ListedProduct & { matched_variant_id: VariantRow['id'] | null }>(
    sql`WITH m AS MATERIALIZED (
          SELECT product_id, variant_id FROM (
            SELECT id AS product_id, NULL::text AS variant_id, 1 AS rank FROM products WHERE company_id = ${companyId} AND id = ${ref}
            UNION ALL SELECT product_id, id, 2 FROM variants WHERE company_id = ${companyId} AND id = ${ref}
            UNION ALL SELECT product_id, id, 3 FROM variants WHERE company_id = ${companyId} AND sku = ${ref}
            UNION ALL SELECT id, NULL, 4 FROM products WHERE company_id = ${companyId} AND sku = ${ref}
            UNION ALL SELECT product_id, id, 5 FROM variants WHERE company_id = ${companyId} AND barcode = ${ref}
          ) candidates ORDER BY rank LIMIT 1)
        ${productSelect(companyId, sql`m.variant_id AS matched_variant_id,`)}
        JOIN m ON m.product_id = p.id
        LEFT JOIN variants mv ON mv.company_id = p.company_id AND mv.id = m.variant_id
        WHERE p.company_id = ${companyId} AND p.listed AND (m.variant_id IS NULL OR mv.active)`,
    'catalogue_product_by_ref',
  );
  return rows[0];
}

export async function categoryEntries(db: Db, companyId: string) {
  return db.query<Pick<CategoryRow, 'id' | 'name' | 'slug' | 'parent_id'> & { product_count: number }>(
    sql`SELECT c.id, c.name, c.slug, c.parent_id, coalesce(n.count, 0)::int AS product_count
        FROM categories c
        LEFT JOIN (SELECT p.category_id, count(*) FROM products p WHERE p.company_id = ${companyId} AND ${visible} GROUP BY p.category_id) n
          ON n.category_id = c.id
        WHERE c.company_id = ${companyId}
        ORDER BY lower(c.name), c.id`,
    'catalogue_category_entries',
  );
}

export async function brandEntries(db: Db, companyId: string) {
  return db.query<Pick<BrandRow, 'id' | 'name' | 'slug'> & { product_count: number }>(
    sql`SELECT b.id, b.name, b.slug, coalesce(n.count, 0)::int AS product_count
        FROM brands b
        LEFT JOIN (SELECT p.brand_id, count(*) FROM products p WHERE p.company_id = ${companyId} AND ${visible} GROUP BY p.brand_id) n
          ON n.brand_id = b.id
        WHERE b.company_id = ${companyId}
        ORDER BY lower(b.name), b.id`,
    'catalogue_brand_entries',
  );
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
