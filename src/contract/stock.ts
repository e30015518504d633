import { z } from 'zod';
import { MAX_ON_HAND, quantityText } from './catalogue-file.js';

/** Setting on-hand stock for many variants at once: PUT {base}/catalog/stock and `catalog stock`. */

/** Rows one REST request may set; the admin CLI takes a file of any size (docs/catalogue-import.md). */
export const MAX_STOCK_ROWS = 5000;

const identifier = (what: string) =>
  z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional().describe(what);

export const stockRowInput = z
  .object({
    sku: identifier('The variant SKU (give sku or barcode).'),
    barcode: identifier('The variant barcode (GTIN/EAN), when no sku is given.'),
    location: z
      .string({ error: 'must be a string' })
      .trim()
      .min(1, 'must not be empty')
      .max(40, 'must be at most 40 characters')
      .optional()
      .describe('Stock location code; default: the location that ships orders.'),
    on_hand: quantityText.describe(
      `Units physically on hand at the location, a non-negative decimal string with up to 3 places (e.g. "12" or "2.500"), at most ${MAX_ON_HAND}; a whole number for a product sold in counted units (PCS, BOX...; the product's unit).`,
    ),
  })
  .superRefine((row, ctx) => {
    if (!row.sku && !row.barcode) ctx.addIssue({ code: 'custom', path: ['sku'], message: 'give sku or barcode' });
    if (row.sku && row.barcode) ctx.addIssue({ code: 'custom', path: ['barcode'], message: 'give sku or barcode, not both' });
  });
export type StockRowInput = z.output<typeof stockRowInput>;
export type StockField = 'sku' | 'barcode' | 'location' | 'on_hand';

/** A row read from a file that did not pass `stockRowInput`: its problems by column, reported with every other row's. */
export interface UnreadableStockRow {
  problems: { field: StockField; message: string }[];
}

export const setStockBody = z.object({
  items: z
    .array(stockRowInput, { error: 'must be a list of { sku or barcode, location?, on_hand }' })
    .min(1, 'must list at least one row')
    .max(MAX_STOCK_ROWS, `must list at most ${MAX_STOCK_ROWS} rows; split larger updates (the admin CLI takes any size)`)
    .describe(`Up to ${MAX_STOCK_ROWS} rows, applied together in one transaction: all or nothing.`),
});

export const stockUpdateResult = z.object({
  rows: z.number().int().describe('Rows received.'),
  updated: z.number().int().describe('Stock levels whose on-hand quantity changed (or were created).'),
  unchanged: z.number().int().describe('Rows that already had this quantity.'),
  short: z
    .array(z.object({ sku: z.string(), location: z.string(), on_hand: z.string(), reserved: z.string() }))
    .describe('Levels now holding fewer units than open orders have reserved: those orders still stand; nothing new can be sold there.'),
});
export type StockUpdateResult = z.infer<typeof stockUpdateResult>;
