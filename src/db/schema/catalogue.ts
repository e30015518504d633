import { sql } from 'drizzle-orm';
import { bigint, boolean, foreignKey, index, integer, jsonb, numeric, pgTable, primaryKey, text, unique, uniqueIndex } from 'drizzle-orm/pg-core';
import { bytea, timestamptz } from './columns.js';
import { companies } from './companies.js';

const companyId = () =>
  text()
    .notNull()
    .references(() => companies.id);

/** Migration 0002. */
export const categories = pgTable(
  'categories',
  {
    company_id: companyId(),
    id: text().notNull(),
    parent_id: text(),
    name: text().notNull(),
    slug: text().notNull(),
    created_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    unique().on(t.company_id, t.slug),
    foreignKey({ columns: [t.company_id, t.parent_id], foreignColumns: [t.company_id, t.id] }),
  ],
);

export const brands = pgTable(
  'brands',
  {
    company_id: companyId(),
    id: text().notNull(),
    name: text().notNull(),
    slug: text().notNull(),
    created_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.company_id, t.id] }), unique().on(t.company_id, t.slug)],
);

/**
 * Migrations 0002 and 0006 (`listed`, kept by refresh_listing: src/db/functions/refresh_listing.sql; the browse indexes are partial on it) and 0020
 * (`in_stock`, kept by refresh_in_stock; products_in_stock is the in_stock=true browse).
 */
export const products = pgTable(
  'products',
  {
    company_id: companyId(),
    id: text().notNull(),
    sku: text().notNull(),
    name: text().notNull(),
    // lower(name): the browse sort key, with id as the tie-break.
    sort_name: text().notNull(),
    description: text(),
    unit: text().notNull().default('PCS'),
    hsn_code: text(),
    tax_rate: numeric({ precision: 5, scale: 2 }).notNull().default('0'),
    active: boolean().notNull().default(true),
    category_id: text(),
    brand_id: text(),
    // lower-cased searchable text of the product and its variants, maintained on write.
    search_text: text().notNull().default(''),
    created_at: timestamptz().notNull().defaultNow(),
    updated_at: timestamptz().notNull().defaultNow(),
    listed: boolean().notNull().default(false),
    in_stock: boolean().notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    unique().on(t.company_id, t.sku),
    foreignKey({ columns: [t.company_id, t.category_id], foreignColumns: [categories.company_id, categories.id] }),
    foreignKey({ columns: [t.company_id, t.brand_id], foreignColumns: [brands.company_id, brands.id] }),
    index('products_search').using('gin', t.search_text.op('gin_trgm_ops')),
    index('products_browse')
      .on(t.company_id, t.sort_name, t.id)
      .where(sql`listed`),
    index('products_in_stock')
      .on(t.company_id, t.sort_name, t.id)
      .where(sql`listed AND in_stock`),
    index('products_category')
      .on(t.company_id, t.category_id)
      .where(sql`listed`),
    index('products_brand')
      .on(t.company_id, t.brand_id)
      .where(sql`listed`),
  ],
);

export const variants = pgTable(
  'variants',
  {
    company_id: companyId(),
    id: text().notNull(),
    product_id: text().notNull(),
    sku: text().notNull(),
    barcode: text(),
    name: text().notNull(),
    attributes: jsonb().$type<Record<string, string>>().notNull().default({}),
    position: integer().notNull().default(0),
    selling_price: numeric({ precision: 12, scale: 2 }).notNull(),
    mrp: numeric({ precision: 12, scale: 2 }).notNull(),
    active: boolean().notNull().default(true),
    created_at: timestamptz().notNull().defaultNow(),
    updated_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    unique().on(t.company_id, t.sku),
    foreignKey({ columns: [t.company_id, t.product_id], foreignColumns: [products.company_id, products.id] }),
    uniqueIndex('variants_barcode')
      .on(t.company_id, t.barcode)
      .where(sql`barcode IS NOT NULL`),
    index('variants_product').on(t.company_id, t.product_id, t.position),
    index('variants_active_product')
      .on(t.company_id, t.product_id)
      .where(sql`active`),
  ],
);

export const productPhotos = pgTable(
  'product_photos',
  {
    company_id: companyId(),
    id: text().notNull(),
    product_id: text().notNull(),
    variant_id: text(),
    // path inside the media folder, relative, e.g. <company_id>/<file>
    path: text().notNull(),
    alt: text(),
    position: integer().notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    foreignKey({ columns: [t.company_id, t.product_id], foreignColumns: [products.company_id, products.id] }),
    foreignKey({ columns: [t.company_id, t.variant_id], foreignColumns: [variants.company_id, variants.id] }),
    index('product_photos_product').on(t.company_id, t.product_id, t.position),
  ],
);

export const stockLocations = pgTable(
  'stock_locations',
  {
    company_id: companyId(),
    id: text().notNull(),
    code: text().notNull(),
    name: text().notNull(),
    kind: text({ enum: ['warehouse', 'store'] })
      .notNull()
      .default('warehouse'),
    active: boolean().notNull().default(true),
    ships_orders: boolean().notNull().default(false),
    created_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    unique().on(t.company_id, t.code),
    // Exactly one location per company is where orders ship from.
    uniqueIndex('stock_locations_ship_from')
      .on(t.company_id)
      .where(sql`ships_orders`),
  ],
);

/** reserved is a counter owned by the reservation module, changed only under this row's lock. */
export const stockLevels = pgTable(
  'stock_levels',
  {
    company_id: companyId(),
    variant_id: text().notNull(),
    location_id: text().notNull(),
    on_hand: numeric({ precision: 14, scale: 3 }).notNull().default('0'),
    reserved: numeric({ precision: 14, scale: 3 }).notNull().default('0'),
    updated_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.variant_id, t.location_id] }),
    foreignKey({ columns: [t.company_id, t.variant_id], foreignColumns: [variants.company_id, variants.id] }),
    foreignKey({ columns: [t.company_id, t.location_id], foreignColumns: [stockLocations.company_id, stockLocations.id] }),
  ],
);

/**
 * Listed products per company (migration 0008), kept by refresh_listing (src/db/functions/); the catalogue version (0017);
 * listed products in stock (0020, kept by refresh_in_stock and refresh_listing).
 */
export const catalogueCounts = pgTable('catalogue_counts', {
  company_id: text()
    .primaryKey()
    .references(() => companies.id),
  listed_products: integer().notNull().default(0),
  version: bigint({ mode: 'number' }).notNull().default(0),
  in_stock_products: integer().notNull().default(0),
});

/** The Meta (WhatsApp) catalogue feed per company: its secret's hash and the product link template (migration 0018). */
export const catalogueFeeds = pgTable(
  'catalogue_feeds',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    kind: text({ enum: ['meta'] })
      .notNull()
      .default('meta'),
    token_hash: bytea().notNull(),
    product_url_template: text().notNull(),
    created_at: timestamptz().notNull().defaultNow(),
    rotated_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.company_id, t.kind] })],
);

export type CategoryRow = typeof categories.$inferSelect;
export type BrandRow = typeof brands.$inferSelect;
export type ProductRow = typeof products.$inferSelect;
export type VariantRow = typeof variants.$inferSelect;
export type ProductPhotoRow = typeof productPhotos.$inferSelect;
export type StockLocationRow = typeof stockLocations.$inferSelect;
export type StockLevelRow = typeof stockLevels.$inferSelect;
