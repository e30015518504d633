import { sql, type SQL } from 'drizzle-orm';
import type { ProductFieldName } from '../contract/product-fields.js';
import { productFieldColumns } from './catalogue.queries.js';
import type { Db } from '../db/index.js';
import type { BrandRow, CategoryRow, ProductPhotoRow, ProductRow, VariantRow } from '../db/schema/index.js';
import type { TenantReader } from '../keys/key-check.js';

/** The company's catalogue version (migration 0017) as text; '0' before its first catalogue write. */
const versionSql = (companyId: string) => sql`coalesce((SELECT version FROM catalogue_counts WHERE company_id = ${companyId}), 0)::text`;

/** Moves the company's catalogue version: called in the transaction of a write refresh_listing does not cover. */
export async function bumpCatalogueVersion(db: Db, companyId: string): Promise<void> {
  await db.query(sql`SELECT bump_catalogue_version(${companyId})`);
}

export type ModelProductRow = Pick<ProductRow, 'id' | 'sku' | 'name' | ProductFieldName | 'category_id' | 'brand_id' | 'listed'>;
export type ModelVariantRow = Pick<VariantRow, 'id' | 'product_id' | 'sku' | 'barcode' | 'name' | 'attributes' | 'selling_price' | 'mrp' | 'active'>;
export type ModelPhotoRow = Pick<ProductPhotoRow, 'product_id' | 'path' | 'alt' | 'variant_id'>;
export type ModelCategoryRow = Pick<CategoryRow, 'id' | 'name' | 'slug' | 'parent_id'> & { product_count: number };
export type ModelBrandRow = Pick<BrandRow, 'id' | 'name' | 'slug'> & { product_count: number };

/** What the model is built from, besides the products and variants that `loadCatalogue` hands over in chunks. */
export interface CatalogueFrame {
  version: string;
  categories: ModelCategoryRow[];
  brands: ModelBrandRow[];
}

/** Rows read per statement while a model is built: the driver's row objects of one chunk are garbage before the next. */
export const LOAD_CHUNK_ROWS = 20_000;

/** Where `loadCatalogue` puts what it reads, in this order: the frame, product chunks, variant chunks, photos. */
export interface CatalogueSink {
  frame(frame: CatalogueFrame): void;
  productRows(rows: ModelProductRow[]): void;
  variantRows(rows: ModelVariantRow[]): void;
  photoRows(rows: ModelPhotoRow[]): void;
}

const PRODUCT_COLUMNS = sql.raw(`id, sku, name, ${productFieldColumns()}, category_id, brand_id, listed, sort_name`);
const VARIANT_COLUMNS = sql`id, product_id, sku, barcode, name, attributes, selling_price::text AS selling_price, mrp::text AS mrp, active, position`;

/**
 * Reads a keyset-paged statement chunk by chunk into `take`, the next chunk's read started before the current one is
 * taken (one in flight, one in hand). `page(after)` reads the chunk after the last row of the one before (none: the first).
 */
async function paged<R>(page: (after: R | undefined) => Promise<R[]>, take: (rows: R[]) => void, chunkRows: number): Promise<void> {
  let rows = await page(undefined);
  while (rows.length > 0) {
    const next = rows.length === chunkRows ? page(rows[rows.length - 1]) : Promise.resolve([]);
    next.catch(() => {}); // awaited below; a failure while this chunk is taken must not go unhandled
    take(rows);
    rows = await next;
  }
}

/**
 * Everything the read model holds of a company, into `sink`. The version is read first and the rest after it: the
 * data is then at least as new as the version, so a change that lands during the build leaves a model tagged older
 * than its data, which the next request's version check rebuilds; never the reverse. Products come in browse order
 * (the database's collation), listed ones first, then the unlisted (only so an id or SKU naming them is refused, as
 * the database did); variants active or not for the same reason. Products and variants are read in chunks of
 * LOAD_CHUNK_ROWS by key (not all at once), so a large catalogue's rows never sit in memory beside its whole model.
 */
export async function loadCatalogue(db: Db, companyId: string, sink: CatalogueSink, chunkRows = LOAD_CHUNK_ROWS): Promise<void> {
  const [{ version }] = await db.query<{ version: string }>(sql`SELECT ${versionSql(companyId)} AS version`, 'catalogue_model_version');
  const [categories, brands] = await Promise.all([
    db.query<ModelCategoryRow>(
      sql`SELECT c.id, c.name, c.slug, c.parent_id, coalesce(n.count, 0)::int AS product_count
          FROM categories c
          LEFT JOIN (SELECT p.category_id, count(*) FROM products p WHERE p.company_id = ${companyId} AND p.listed GROUP BY p.category_id) n
            ON n.category_id = c.id
          WHERE c.company_id = ${companyId}
          ORDER BY lower(c.name), c.id`,
      'catalogue_model_categories',
    ),
    db.query<ModelBrandRow>(
      sql`SELECT b.id, b.name, b.slug, coalesce(n.count, 0)::int AS product_count
          FROM brands b
          LEFT JOIN (SELECT p.brand_id, count(*) FROM products p WHERE p.company_id = ${companyId} AND p.listed GROUP BY p.brand_id) n
            ON n.brand_id = b.id
          WHERE b.company_id = ${companyId}
          ORDER BY lower(b.name), b.id`,
      'catalogue_model_brands',
    ),
  ]);
  sink.frame({ version, categories, brands });
  type P = ModelProductRow & { sort_name: string };
  await paged<P>(
    (after) =>
      db.query<P>(
        after
          ? sql`SELECT ${PRODUCT_COLUMNS} FROM products WHERE company_id = ${companyId} AND listed AND (sort_name, id) > (${after.sort_name}, ${after.id})
                ORDER BY sort_name, id LIMIT ${chunkRows}`
          : sql`SELECT ${PRODUCT_COLUMNS} FROM products WHERE company_id = ${companyId} AND listed ORDER BY sort_name, id LIMIT ${chunkRows}`,
        after ? 'catalogue_model_products_next' : 'catalogue_model_products',
      ),
    (rows) => sink.productRows(rows),
    chunkRows,
  );
  await paged<P>(
    (after) =>
      db.query<P>(
        sql`SELECT ${PRODUCT_COLUMNS} FROM products WHERE company_id = ${companyId} AND NOT listed AND id > ${after?.id ?? ''}
            ORDER BY id LIMIT ${chunkRows}`,
        'catalogue_model_unlisted',
      ),
    (rows) => sink.productRows(rows),
    chunkRows,
  );
  type V = ModelVariantRow & { position: number };
  await paged<V>(
    (after) =>
      db.query<V>(
        after
          ? sql`SELECT ${VARIANT_COLUMNS} FROM variants WHERE company_id = ${companyId}
                  AND (product_id, position, id) > (${after.product_id}, ${after.position}, ${after.id})
                ORDER BY product_id, position, id LIMIT ${chunkRows}`
          : sql`SELECT ${VARIANT_COLUMNS} FROM variants WHERE company_id = ${companyId} ORDER BY product_id, position, id LIMIT ${chunkRows}`,
        after ? 'catalogue_model_variants_next' : 'catalogue_model_variants',
      ),
    (rows) => sink.variantRows(rows),
    chunkRows,
  );
  sink.photoRows(
    await db.query<ModelPhotoRow>(
      sql`SELECT product_id, path, alt, variant_id FROM product_photos WHERE company_id = ${companyId} ORDER BY product_id, position, id`,
      'catalogue_model_photos',
    ),
  );
}

/** Live stock of one page: per active variant, exact decimal text with 3 places, never negative. */
export interface PageStock {
  version: string;
  /** variant id -> [available at the ship-from location, available at every active location]; absent: no stock row */
  variants: Record<string, [string, string]> | null;
}

/**
 * The stock figures of the variants `wanted` names (CTEs ending in `wanted(id)`) and the company's catalogue version, in
 * one statement: the version tells the caller whether its model still describes these variants. Only their stock
 * rows are read: which variants a page shows, and the sums per product, come from the model (the caller's).
 *
 * The sums are numeric(17,3): what MAX_STOCK_LOCATIONS rows of numeric(14,3) can add up to (contract/catalogue-file.ts).
 *
 * Its plan is made once per connection, not per request. A named statement is planned with its values five times, then
 * PostgreSQL keeps a generic plan only if that plan's estimated cost is no higher than theirs. Two things keep the two
 * estimates alike, so the generic plan is kept: the stock rows are probed per variant (LATERAL … OFFSET 0: always
 * nested index probes, whatever the number of variants is estimated at), and a model-chosen page comes as a jsonb
 * array (`stockOf`), whose row estimate is the same with or without its value (an array's `unnest` is sized from a
 * known value only, so one product's detail was re-planned on every request: 0.29 ms of planning for 0.05 ms of work).
 */
function stockSql(companyId: string, wanted: SQL, extra: SQL = sql``): SQL {
  return sql`WITH ${wanted},
    st AS MATERIALIZED (
      SELECT sl.variant_id,
             stock_available(sum(sl.on_hand) FILTER (WHERE loc.ships_orders), sum(sl.reserved) FILTER (WHERE loc.ships_orders))::numeric(17, 3) AS available,
             stock_available(sum(sl.on_hand), sum(sl.reserved))::numeric(17, 3) AS available_total
      FROM wanted
      CROSS JOIN LATERAL (
        SELECT s.variant_id, s.location_id, s.on_hand, s.reserved FROM stock_levels s
        WHERE s.company_id = ${companyId} AND s.variant_id = wanted.id OFFSET 0
      ) sl
      JOIN stock_locations loc ON loc.company_id = ${companyId} AND loc.id = sl.location_id AND loc.active
      GROUP BY sl.variant_id)
    SELECT ${versionSql(companyId)} AS version, ${extra}
      (SELECT json_object_agg(variant_id, json_build_array(available::text, available_total::text)) FROM st) AS variants`;
}

/** The version and the live stock of the named variants (a page's, as the model holds them, or none: the version alone). */
export async function stockOf(reader: TenantReader, variantIds: string[]): Promise<PageStock> {
  const wanted = sql`wanted AS (SELECT DISTINCT jsonb_array_elements_text(${JSON.stringify(variantIds)}::jsonb) AS id)`;
  return (await reader.one<PageStock>(stockSql(reader.companyId, wanted), 'catalogue_stock_of'))!;
}

/**
 * A page chosen by the database's indexes (search words, in_stock): its product ids in browse order, the exact total,
 * the version and the page's live stock, in one statement. `where` filters `products p`; `shape` names the statement.
 * Options: `inStockOnly` (the filter is in_stock and nothing else) takes the total from the company's in-stock counter
 * (migration 0020), kept exact by the writers, instead of counting every product in stock; `remember` (LIKE patterns of
 * search words the caller's model has not seen yet) adds, per pattern, the ids of every listed product it matches, so
 * the model answers those words itself next time.
 */
export async function indexedPage(
  reader: TenantReader,
  where: SQL,
  shape: string,
  limit: number,
  offset: number,
  { inStockOnly = false, remember = [] }: { inStockOnly?: boolean; remember?: string[] } = {},
): Promise<PageStock & { ids: string[]; total: number; matches: string[][] | null }> {
  const { companyId } = reader;
  const page = sql`SELECT p.id, p.sort_name FROM products p WHERE ${where} ORDER BY p.sort_name, p.id LIMIT ${limit} OFFSET ${offset}`;
  const total = inStockOnly
    ? sql`coalesce((SELECT in_stock_products FROM catalogue_counts WHERE company_id = ${companyId}), 0)`
    : sql`(SELECT count(*)::int FROM products p WHERE ${where})`;
  const matches = remember.length
    ? sql`json_build_array(${sql.join(
        remember.map(
          (pattern) =>
            sql`(SELECT coalesce(json_agg(m.id), '[]'::json) FROM products m WHERE m.company_id = ${companyId} AND m.listed AND m.search_text LIKE ${pattern})`,
        ),
        sql`, `,
      )})`
    : sql`NULL::json`;
  // the page's active variants, probed per product (as stockSql probes stock rows per variant)
  const wanted = sql`page AS MATERIALIZED (${page}),
    wanted AS (SELECT v.id FROM page CROSS JOIN LATERAL (
      SELECT v.id FROM variants v WHERE v.company_id = ${companyId} AND v.active AND v.product_id = page.id OFFSET 0) v)`;
  const extra = sql`(SELECT coalesce(json_agg(id ORDER BY sort_name, id), '[]'::json) FROM page) AS ids, ${total} AS total, ${matches} AS matches,`;
  const name = `catalogue_indexed_page_${shape}${inStockOnly ? '_counted' : ''}_r${remember.length}`;
  return (await reader.one<PageStock & { ids: string[]; total: number; matches: string[][] | null }>(stockSql(companyId, wanted, extra), name))!;
}
