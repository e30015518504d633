import { z } from 'zod';
import { decimal, optionalText, text } from './file-values.js';
import { productFileShape } from './product-fields.js';

/** The catalogue file format (docs/catalogue-import.md), read by import and written by export. */

/**
 * The bounds of the file's figures (docs/decisions.md, "Numeric bounds"). A price fits its numeric(12,2) column; an
 * on-hand figure is at most MAX_ON_HAND at one location and a company has at most MAX_STOCK_LOCATIONS locations, so
 * the catalogue's sum over locations always fits (read-model.queries.ts) and a location's figure keeps room for
 * returned goods to come back on top of it.
 */
export const MAX_PRICE = '9999999999.99';
export const MAX_ON_HAND = '999999999.999';
export const MAX_STOCK_LOCATIONS = 1000;

export const money = decimal(MAX_PRICE, 2, `must be a decimal with up to 2 places, at most ${MAX_PRICE}`);
export const quantityText = decimal(MAX_ON_HAND, 3, `must be a non-negative decimal with up to 3 places, at most ${MAX_ON_HAND}`);
const slug = z
  .string({ error: 'must be a string' })
  .regex(/^[a-z0-9][a-z0-9-]{0,79}$/, 'must be 1-80 lower-case letters, digits or "-", starting with a letter or digit');
const sku = text(64).refine((v) => !/\s/.test(v), 'must not contain spaces');

const photo = z.object({ file: text(500), alt: optionalText(300) });

export const variantEntry = z.object({
  sku,
  barcode: optionalText(64),
  name: optionalText(200),
  attributes: z.record(text(60), z.union([z.string(), z.number()]).transform(String).pipe(text(120))).default({}),
  selling_price: money,
  mrp: money.optional(),
  active: z.boolean({ error: 'must be true or false' }).default(true),
  photos: z.array(photo).max(20).default([]),
  /** on hand per location code */
  stock: z.record(text(40), quantityText).default({}),
});

export const productEntry = z.object({
  sku,
  name: text(300),
  ...productFileShape,
  active: z.boolean({ error: 'must be true or false' }).default(true),
  category: slug.nullish().transform((v) => v ?? null),
  brand: slug.nullish().transform((v) => v ?? null),
  photos: z.array(photo).max(20).default([]),
  variants: z.array(variantEntry).min(1, 'a product needs at least one variant').max(500),
});

const optionalField = z.string({ error: 'must be a string' }).nullish();
/** The seller's GST tax profile (optional): shape here; GSTIN, state, PIN and prefix are checked by the import. */
export const sellerEntry = z.object({
  legal_name: z.string({ error: 'must be a string' }),
  trade_name: optionalField,
  gstin: optionalField,
  address_line1: z.string({ error: 'must be a string' }),
  address_line2: optionalField,
  city: z.string({ error: 'must be a string' }),
  state: z.string({ error: 'must be a string' }),
  pincode: z.string({ error: 'must be a string' }),
  invoice_prefix: optionalField,
});

export const catalogueFile = z.object({
  format: z.literal('commerce-catalogue/1', { error: 'must be "commerce-catalogue/1"' }).optional(),
  seller: sellerEntry.optional(),
  locations: z
    .array(
      z.object({
        code: text(40),
        name: text(200),
        kind: z.enum(['warehouse', 'store'], { error: 'must be "warehouse" or "store"' }).default('warehouse'),
        active: z.boolean({ error: 'must be true or false' }).default(true),
        ships_orders: z.boolean({ error: 'must be true or false' }).default(false),
      }),
    )
    .default([]),
  categories: z.array(z.object({ slug, name: text(200), parent: slug.nullish().transform((v) => v ?? null) })).default([]),
  brands: z.array(z.object({ slug, name: text(200) })).default([]),
  products: z.array(productEntry).default([]),
});

/** The file with products left unparsed, so each product can be checked on its own (every problem reported). */
export const catalogueSections = catalogueFile.extend({ products: z.array(z.unknown(), { error: 'must be an array of products' }).default([]) });

export type CatalogueFile = z.output<typeof catalogueFile>;
export type ProductEntry = z.output<typeof productEntry>;
export type VariantEntry = z.output<typeof variantEntry>;
