import { z } from 'zod';

/** The catalogue file format (docs/catalogue-import.md), read by import and written by export. */

const MONEY = /^\d{1,10}(\.\d{1,2})?$/;
const QUANTITY = /^\d{1,11}(\.\d{1,3})?$/;

/** A decimal as a string (or a plain JSON number, taken by its text, so 0.1 stays 0.1). */
const decimal = (pattern: RegExp, message: string) =>
  z
    .union([z.string(), z.number()], { error: message })
    .transform((v) => String(v).trim())
    .pipe(z.string().regex(pattern, message));

export const money = decimal(MONEY, 'must be a decimal with up to 2 places');
export const quantityText = decimal(QUANTITY, 'must be a non-negative decimal with up to 3 places');
const taxRate = decimal(MONEY, 'must be a GST percentage such as "18" or "5.00"').refine((v) => Number(v) <= 100, 'must be at most 100');

const text = (max: number) => z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const optionalText = (max: number) =>
  z
    .string({ error: 'must be a string or null' })
    .trim()
    .max(max, `must be at most ${max} characters`)
    .nullish()
    .transform((v) => (v ? v : null));
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
  description: optionalText(5000),
  unit: text(20).default('PCS'),
  hsn_code: z
    .union([z.string(), z.number()], { error: 'must be a string of 4-8 digits' })
    .transform(String)
    .pipe(z.string().regex(/^\d{4,8}$/, 'must be 4-8 digits'))
    .nullish()
    .transform((v) => v ?? null),
  tax_rate: taxRate,
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
