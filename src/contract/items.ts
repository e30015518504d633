import { z } from 'zod';
import { browseQuerySchema, productIdSchema } from './catalogue.js';
import { pageSchema } from './paging.js';

/**
 * The v1.0 flat view kept for earlier agents (MCP search_products / get_product): one row per active
 * variant of an active product. Shapes recorded in docs/decisions.md.
 */
export const itemsQuerySchema = browseQuerySchema.pick({ search: true, limit: true, offset: true }).extend({
  search: browseQuerySchema.shape.search.describe('Words to match (all must match) in product or variant name, SKU, barcode, options. Max 100 characters.'),
  limit: browseQuerySchema.shape.limit.describe('Page size, 1-50 (default 20).'),
  offset: browseQuerySchema.shape.offset.describe('Items to skip, 0-10000 (default 0).'),
});
export type ItemsQuery = z.output<typeof itemsQuerySchema>;

export const itemLookupSchema = productIdSchema.extend({
  id: productIdSchema.shape.id.describe('Variant SKU, variant id or barcode. Max 64 characters.'),
});

export const itemSchema = z.object({
  sku: z.string(),
  name: z.string(),
  price: z.string(),
  available: z.string(),
  in_stock: z.boolean(),
});
export type Item = z.infer<typeof itemSchema>;

export const itemsResponseSchema = pageSchema(itemSchema);

export const itemResponseSchema = z.object({ data: itemSchema });
