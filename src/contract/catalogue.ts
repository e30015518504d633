import { z } from 'zod';
import { pageSchema } from './paging.js';
import { productOutputShape } from './product-fields.js';
import { queryInt } from './validation.js';

/** Only real booleans and the strings "true"/"false": z.coerce.boolean would read "false" as true. */
const queryBoolean = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')], {
  error: 'must be true or false',
});

/**
 * Optional text filter; blank means no filter. A NUL is refused here: the catalogue's filters are matched in memory,
 * where PostgreSQL's refusal of NUL in text no longer turns it into a 400.
 */
const filterText = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, `must be at most ${max} characters`)
    .refine((v) => !v.includes('\u0000'), 'must not contain NUL (\\u0000) characters')
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** GET /catalog/products query, and the browse_catalog tool's arguments. */
export const browseQuerySchema = z.object({
  search: filterText(100).describe(
    "Words to match; every word must match somewhere in the product's name, SKU or description or in a variant's SKU, barcode, name or option values. Empty lists everything. Max 100 characters.",
  ),
  category: filterText(80).describe('Category id, slug or name (from the categories list); includes its sub-categories. Max 80 characters.'),
  brand: filterText(80).describe('Brand id, slug or name. Max 80 characters.'),
  in_stock: queryBoolean.optional().describe('When true, only products with at least one variant orderable now.'),
  limit: queryInt(1, 50, 20).describe('Page size, 1-50 (default 20).'),
  offset: queryInt(0, 10_000, 0).describe('Products to skip, 0-10000 (default 0).'),
});
export type BrowseQuery = z.output<typeof browseQuerySchema>;

/** GET /catalog/products/{id} path, and the get_product_details tool's arguments. */
export const productIdSchema = z.object({
  id: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, 'must not be empty')
    .max(64, 'must be at most 64 characters')
    .describe("Product id or SKU, or a variant's SKU, id or barcode. Max 64 characters."),
});

const decimal = z.string();

export const variantSchema = z.object({
  variant_id: z.string(),
  sku: z.string(),
  barcode: z.string().nullable(),
  name: z.string(),
  attributes: z.record(z.string(), z.string()),
  selling_price: decimal,
  mrp: decimal,
  available: decimal,
  available_total: decimal,
  in_stock: z.boolean(),
  image_url: z.string().nullable(),
});

export const productSchema = z.object({
  product_id: z.string(),
  sku: z.string(),
  name: z.string(),
  ...productOutputShape.besideName,
  category: z.object({ id: z.string(), name: z.string(), slug: z.string(), parent: z.string().nullable() }).nullable(),
  brand: z.object({ id: z.string(), name: z.string() }).nullable(),
  ...productOutputShape.details,
  currency: z.literal('INR'),
  price_range: z.object({ min: decimal, max: decimal }),
  options: z.record(z.string(), z.array(z.string())),
  available: decimal,
  available_total: decimal,
  in_stock: z.boolean(),
  image_url: z.string().nullable(),
  variants: z.array(variantSchema),
});

export const productDetailSchema = productSchema.extend({
  matched_variant_id: z.string().nullable(),
  images: z.array(z.object({ url: z.string(), alt: z.string().nullable(), variant_id: z.string().nullable() })),
});

export const browseResponseSchema = pageSchema(productSchema);

export const productDetailResponseSchema = z.object({ data: productDetailSchema });

export const categoryEntrySchema = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  parent_id: z.string().nullable(),
  product_count: z.number().int(),
});

export const brandEntrySchema = z.object({ id: z.string(), name: z.string(), slug: z.string(), product_count: z.number().int() });

export const categoriesResponseSchema = z.object({
  data: z.object({ categories: z.array(categoryEntrySchema), brands: z.array(brandEntrySchema) }),
});

export type Product = z.infer<typeof productSchema>;
export type Variant = z.infer<typeof variantSchema>;
export type ProductDetail = z.infer<typeof productDetailSchema>;
export type CategoriesResult = z.infer<typeof categoriesResponseSchema>['data'];
