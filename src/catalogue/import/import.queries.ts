import { sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import type { BrandRow, CategoryRow, ProductPhotoRow, ProductRow, StockLevelRow, StockLocationRow, VariantRow } from '../../db/schema/index.js';
import type { CatalogueFile, ProductEntry, VariantEntry } from '../../contract/catalogue-file.js';
import { PRODUCT_FIELD_NAMES, type ProductFieldName } from '../../contract/product-fields.js';
import { newId } from '../../lib/ids.js';
import { productFieldColumns } from '../catalogue.queries.js';

/** The catalogue file's statements: what the check compares the file with, the import's upserts and the export's reads. */

/** What a file's references and identifiers are checked against: categories (with parents), brands, locations and variant SKUs. */
export function catalogueKeys(db: Db, companyId: string) {
  return Promise.all([
    db.query<Pick<CategoryRow, 'slug'> & { parent: CategoryRow['slug'] | null }>(sql`SELECT c.slug, pc.slug AS parent FROM categories c
      LEFT JOIN categories pc ON pc.company_id = c.company_id AND pc.id = c.parent_id WHERE c.company_id = ${companyId}`),
    db.query<Pick<BrandRow, 'slug'>>(sql`SELECT slug FROM brands WHERE company_id = ${companyId}`),
    db.query<Pick<StockLocationRow, 'code'>>(sql`SELECT code FROM stock_locations WHERE company_id = ${companyId}`),
    db.query<Pick<VariantRow, 'sku' | 'barcode'> & { product_sku: ProductRow['sku'] }>(sql`SELECT v.sku, v.barcode, p.sku AS product_sku
      FROM variants v JOIN products p ON p.company_id = v.company_id AND p.id = v.product_id WHERE v.company_id = ${companyId}`),
  ]);
}

/** The code of the first location that ships orders (by code), if any. */
export async function firstShipFromCode(db: Db, companyId: string): Promise<string | undefined> {
  const [shipFrom] = await db.query<Pick<StockLocationRow, 'code'>>(
    sql`SELECT code FROM stock_locations WHERE company_id = ${companyId} AND ships_orders ORDER BY code LIMIT 1`,
  );
  return shipFrom?.code;
}

/** The company's active ship-from location's id. */
export async function activeShipFromId(tx: Db, companyId: string): Promise<string | undefined> {
  return (await tx.query<{ id: string }>(sql`SELECT id FROM stock_locations WHERE company_id = ${companyId} AND ships_orders AND active`))[0]?.id;
}

/** Every other location stops shipping orders: the one coded `code` is to. */
export async function clearShipFromExcept(tx: Db, companyId: string, code: string): Promise<void> {
  await tx.query(sql`UPDATE stock_locations SET ships_orders = false WHERE company_id = ${companyId} AND code <> ${code} AND ships_orders`);
}

export async function upsertLocation(tx: Db, companyId: string, l: CatalogueFile['locations'][number]): Promise<void> {
  await tx.query(sql`INSERT INTO stock_locations (company_id, id, code, name, kind, active, ships_orders)
      VALUES (${companyId}, ${newId('loc')}, ${l.code}, ${l.name}, ${l.kind}, ${l.active}, ${l.ships_orders})
      ON CONFLICT (company_id, code) DO UPDATE SET name = EXCLUDED.name, kind = EXCLUDED.kind, active = EXCLUDED.active, ships_orders = EXCLUDED.ships_orders`);
}

export async function upsertCategory(tx: Db, companyId: string, c: CatalogueFile['categories'][number]): Promise<void> {
  await tx.query(sql`INSERT INTO categories (company_id, id, name, slug) VALUES (${companyId}, ${newId('cat')}, ${c.name}, ${c.slug})
      ON CONFLICT (company_id, slug) DO UPDATE SET name = EXCLUDED.name`);
}

/** Sets the category's parent by slug (none: a top category). */
export async function setCategoryParent(tx: Db, companyId: string, c: CatalogueFile['categories'][number]): Promise<void> {
  await tx.query(sql`UPDATE categories c SET parent_id = (SELECT id FROM categories WHERE company_id = ${companyId} AND slug = ${c.parent})
      WHERE c.company_id = ${companyId} AND c.slug = ${c.slug}`);
}

export async function upsertBrand(tx: Db, companyId: string, b: CatalogueFile['brands'][number]): Promise<void> {
  await tx.query(sql`INSERT INTO brands (company_id, id, name, slug) VALUES (${companyId}, ${newId('brand')}, ${b.name}, ${b.slug})
      ON CONFLICT (company_id, slug) DO UPDATE SET name = EXCLUDED.name`);
}

/** Key (slug or code) -> id of the company's categories, brands or locations. */
export async function idsByKey(
  tx: Db,
  companyId: string,
  table: 'categories' | 'brands' | 'stock_locations',
  key: 'slug' | 'code',
): Promise<Map<string, string>> {
  // id and the key column (slug or code, both text) of the table named
  const rows = await tx.query<{ id: string; k: string }>(
    sql`SELECT id, ${sql.identifier(key)} AS k FROM ${sql.identifier(table)} WHERE company_id = ${companyId}`,
  );
  return new Map(rows.map((r) => [r.k, r.id]));
}

/** Clears the barcodes of these variant SKUs, so barcodes may move between them without tripping the unique index. */
export async function clearBarcodes(tx: Db, companyId: string, skus: string[]): Promise<void> {
  await tx.query(sql`UPDATE variants SET barcode = NULL WHERE company_id = ${companyId} AND sku = ANY(${sql.param(skus)}::text[]) AND barcode IS NOT NULL`);
}

/** The product fields' columns, their values in `p`, and their updates on conflict (contract/product-fields.ts). */
const FIELD_COLUMNS = sql.raw(PRODUCT_FIELD_NAMES.join(', '));
const FIELD_UPDATES = sql.raw(PRODUCT_FIELD_NAMES.map((name) => `${name} = EXCLUDED.${name}`).join(', '));
const fieldValues = (p: ProductEntry) =>
  sql.join(
    PRODUCT_FIELD_NAMES.map((name) => sql`${p[name]}`),
    sql`, `,
  );

/** Inserts or updates the product by SKU; its id. */
export async function upsertProduct(
  tx: Db,
  companyId: string,
  p: ProductEntry,
  categoryId: string | null | undefined,
  brandId: string | null | undefined,
): Promise<string> {
  const [{ id: productId }] = await tx.query<Pick<ProductRow, 'id'>>(sql`
      INSERT INTO products (company_id, id, sku, name, sort_name, ${FIELD_COLUMNS}, active, category_id, brand_id)
      VALUES (${companyId}, ${newId('prod')}, ${p.sku}, ${p.name}, ${p.name.toLowerCase()}, ${fieldValues(p)},
              ${p.active}, ${categoryId}, ${brandId})
      ON CONFLICT (company_id, sku) DO UPDATE SET name = EXCLUDED.name, sort_name = EXCLUDED.sort_name, ${FIELD_UPDATES}, active = EXCLUDED.active,
        category_id = EXCLUDED.category_id, brand_id = EXCLUDED.brand_id, updated_at = EXCLUDED.updated_at
      RETURNING id`);
  return productId;
}

export async function deleteProductPhotos(tx: Db, companyId: string, productId: string): Promise<void> {
  await tx.query(sql`DELETE FROM product_photos WHERE company_id = ${companyId} AND product_id = ${productId}`);
}

export async function insertPhoto(
  tx: Db,
  companyId: string,
  productId: string,
  variantId: string | null,
  path: string,
  alt: string | null,
  position: number,
): Promise<void> {
  await tx.query(sql`INSERT INTO product_photos (company_id, id, product_id, variant_id, path, alt, position)
        VALUES (${companyId}, ${newId('photo')}, ${productId}, ${variantId}, ${path}, ${alt}, ${position})`);
}

/** Inserts or updates the variant by SKU, at `position` under `productId`, named `name`; its id. */
export async function upsertVariant(tx: Db, companyId: string, productId: string, v: VariantEntry, name: string, position: number): Promise<string> {
  const [{ id: variantId }] = await tx.query<Pick<VariantRow, 'id'>>(sql`
        INSERT INTO variants (company_id, id, product_id, sku, barcode, name, attributes, position, selling_price, mrp, active)
        VALUES (${companyId}, ${newId('var')}, ${productId}, ${v.sku}, ${v.barcode}, ${name}, ${JSON.stringify(v.attributes)}::jsonb, ${position},
                ${v.selling_price}, ${v.mrp ?? v.selling_price}, ${v.active})
        ON CONFLICT (company_id, sku) DO UPDATE SET barcode = EXCLUDED.barcode, name = EXCLUDED.name, attributes = EXCLUDED.attributes,
          position = EXCLUDED.position, selling_price = EXCLUDED.selling_price, mrp = EXCLUDED.mrp, active = EXCLUDED.active, updated_at = EXCLUDED.updated_at
        RETURNING id`);
  return variantId;
}

/** Sets the variant's on-hand figure at a location. */
export async function upsertStockLevel(tx: Db, companyId: string, variantId: string, locationId: string | undefined, onHand: string): Promise<void> {
  await tx.query(sql`INSERT INTO stock_levels (company_id, variant_id, location_id, on_hand) VALUES (${companyId}, ${variantId}, ${locationId}, ${onHand})
          ON CONFLICT (company_id, variant_id, location_id) DO UPDATE SET on_hand = EXCLUDED.on_hand, updated_at = EXCLUDED.updated_at`);
}

const EXPORT_FIELDS = sql.raw(productFieldColumns('p.'));

/** Everything the export writes of a company: locations, categories (parents first), brands, products, variants, stock, photos. */
export function catalogueRows(db: Db, companyId: string) {
  return Promise.all([
    db.query<Pick<StockLocationRow, 'code' | 'name' | 'kind' | 'active' | 'ships_orders'>>(
      sql`SELECT code, name, kind, active, ships_orders FROM stock_locations WHERE company_id = ${companyId} ORDER BY code`,
    ),
    db.query<Pick<CategoryRow, 'slug' | 'name'> & { parent: CategoryRow['slug'] | null; depth: number }>(sql`
      WITH RECURSIVE t AS (
        SELECT id, slug, name, NULL::text AS parent, 0 AS depth FROM categories WHERE company_id = ${companyId} AND parent_id IS NULL
        UNION ALL
        SELECT c.id, c.slug, c.name, t.slug, t.depth + 1 FROM categories c JOIN t ON c.parent_id = t.id WHERE c.company_id = ${companyId}
      ) SELECT slug, name, parent, depth FROM t ORDER BY depth, slug`),
    db.query<Pick<BrandRow, 'slug' | 'name'>>(sql`SELECT slug, name FROM brands WHERE company_id = ${companyId} ORDER BY slug`),
    db.query<
      Pick<ProductRow, 'id' | 'sku' | 'name' | ProductFieldName | 'active'> & {
        category: CategoryRow['slug'] | null;
        brand: BrandRow['slug'] | null;
      }
    >(sql`
      SELECT p.id, p.sku, p.name, ${EXPORT_FIELDS}, p.active, c.slug AS category, b.slug AS brand
      FROM products p
      LEFT JOIN categories c ON c.company_id = p.company_id AND c.id = p.category_id
      LEFT JOIN brands b ON b.company_id = p.company_id AND b.id = p.brand_id
      WHERE p.company_id = ${companyId} ORDER BY p.sku`),
    db.query<Pick<VariantRow, 'id' | 'product_id' | 'sku' | 'barcode' | 'name' | 'attributes' | 'selling_price' | 'mrp' | 'active'>>(sql`
      SELECT id, product_id, sku, barcode, name, attributes, selling_price::text AS selling_price, mrp::text AS mrp, active
      FROM variants WHERE company_id = ${companyId} ORDER BY product_id, position, id`),
    db.query<Pick<StockLevelRow, 'variant_id' | 'on_hand'> & Pick<StockLocationRow, 'code'>>(sql`
      SELECT sl.variant_id, loc.code, sl.on_hand::text AS on_hand FROM stock_levels sl
      JOIN stock_locations loc ON loc.company_id = sl.company_id AND loc.id = sl.location_id
      WHERE sl.company_id = ${companyId} ORDER BY loc.code`),
    db.query<Pick<ProductPhotoRow, 'product_id' | 'variant_id' | 'path' | 'alt'>>(sql`
      SELECT product_id, variant_id, path, alt FROM product_photos WHERE company_id = ${companyId} ORDER BY product_id, position, id`),
  ]);
}
