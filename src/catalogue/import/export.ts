import { resolve } from 'node:path';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import { findTaxProfile } from '../../companies/tax-profile.service.js';
import type { CatalogueFile } from '../../contract/catalogue-file.js';
import type { BrandRow, CategoryRow, ProductPhotoRow, ProductRow, StockLevelRow, StockLocationRow, VariantRow } from '../../db/schema/index.js';

/**
 * The company's catalogue in the import format. Photos are named `<photoPrefix><file name>`; the
 * caller copies `photos` (absolute source in MEDIA_DIR -> that name) beside the written file.
 */
export async function exportCatalogue(
  db: Db,
  mediaDir: string,
  companyId: string,
  photoPrefix = 'photos/',
): Promise<{ file: CatalogueFile; photos: Map<string, string> }> {
  const [locs, cats, brands, products, variants, stock, photoRows] = await Promise.all([
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
      Pick<ProductRow, 'id' | 'sku' | 'name' | 'description' | 'unit' | 'hsn_code' | 'tax_rate' | 'active'> & {
        category: CategoryRow['slug'] | null;
        brand: BrandRow['slug'] | null;
      }
    >(sql`
      SELECT p.id, p.sku, p.name, p.description, p.unit, p.hsn_code, p.tax_rate::text AS tax_rate, p.active, c.slug AS category, b.slug AS brand
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
  const photos = new Map<string, string>();
  const photoEntry = (ph: { path: string; alt: string | null }) => {
    const name = `${photoPrefix}${ph.path.split('/').at(-1)}`;
    photos.set(resolve(mediaDir, ph.path), name);
    return { file: name, alt: ph.alt };
  };
  const group = <T, K extends keyof T>(rows: T[], key: K) => {
    const m = new Map<T[K], T[]>();
    for (const r of rows) m.set(r[key], [...(m.get(r[key]) ?? []), r]);
    return m;
  };
  const variantsOf = group(variants, 'product_id');
  const stockOf = group(stock, 'variant_id');
  const photosOf = group(photoRows, 'product_id');
  const seller = await findTaxProfile(db, companyId);
  const file: CatalogueFile = {
    format: 'commerce-catalogue/1',
    ...(seller ? { seller } : {}),
    locations: locs,
    categories: cats.map(({ slug, name, parent }) => ({ slug, name, parent })),
    brands,
    products: products.map((p) => {
      const ph = photosOf.get(p.id) ?? [];
      return {
        sku: p.sku,
        name: p.name,
        description: p.description,
        unit: p.unit,
        hsn_code: p.hsn_code,
        tax_rate: p.tax_rate,
        active: p.active,
        category: p.category,
        brand: p.brand,
        photos: ph.filter((x) => x.variant_id === null).map(photoEntry),
        variants: (variantsOf.get(p.id) ?? []).map((v) => ({
          sku: v.sku,
          barcode: v.barcode,
          name: v.name,
          attributes: v.attributes,
          selling_price: v.selling_price,
          mrp: v.mrp,
          active: v.active,
          photos: ph.filter((x) => x.variant_id === v.id).map(photoEntry),
          stock: Object.fromEntries((stockOf.get(v.id) ?? []).map((s) => [s.code, s.on_hand])),
        })),
      };
    }),
  };
  return { file, photos };
}
