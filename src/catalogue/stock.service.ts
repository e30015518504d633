import type { Db } from '../db/index.js';
import { AppError, validationError, type FieldIssue } from '../contract/errors.js';
import type { StockField, StockRowInput, StockUpdateResult, UnreadableStockRow } from '../contract/stock.js';
import { Decimal, qty } from '../lib/money.js';
import { isWholeUnit, wholeNumberMessage } from '../lib/units.js';
import { refreshInStockOfVariants } from './catalogue.queries.js';
import { locationsOf, setOnHand, variantsByKeys } from './stock.queries.js';

/** Where a row's field is, in the caller's words: `items[3].sku` over REST, `row 5, column sku` in a CSV file. */
export type RowPlace = (index: number, field: StockField) => string;

/** Problems reported at most, so a file with every row wrong still gives a readable answer. */
const MAX_PROBLEMS = 100;

/**
 * Setting on-hand quantities for many variants at once: every row is checked first (each variant and
 * location exists, no (variant, location) twice, a whole figure for a product sold in counted units), every problem
 * is reported with its place, and then all rows are written in one transaction, or none. A file's rows that did not
 * read come with their problems, reported in the same answer. `onChecked` runs once every row has passed, before
 * anything is written. Reservations are never touched: `available` is on_hand − reserved.
 */
export function createStockService({ db }: { db: Db }) {
  return {
    async set(companyId: string, rows: (StockRowInput | UnreadableStockRow)[], place: RowPlace, onChecked: () => void = () => {}): Promise<StockUpdateResult> {
      return db.tx(async (tx) => {
        const readable = rows.filter((r): r is StockRowInput => !('problems' in r));
        const skus = [...new Set(readable.flatMap((r) => (r.sku ? [r.sku] : [])))];
        const barcodes = [...new Set(readable.flatMap((r) => (r.barcode ? [r.barcode] : [])))];
        const [variants, locations] = await Promise.all([variantsByKeys(tx, companyId, skus, barcodes), locationsOf(tx, companyId)]);
        const bySku = new Map(variants.map((v) => [v.sku, v]));
        const byBarcode = new Map(variants.flatMap((v) => (v.barcode ? [[v.barcode, v] as const] : [])));
        const byCode = new Map(locations.map((l) => [l.code, l]));
        const shipping = locations.find((l) => l.ships_orders && l.active);

        const problems: FieldIssue[] = [];
        let total = 0;
        const problem = (path: string, message: string) => {
          total++;
          if (problems.length < MAX_PROBLEMS) problems.push({ path, message });
        };
        const seen = new Map<string, number>();
        const writes: { variantId: string; locationId: string; onHand: string; sku: string; location: string }[] = [];
        rows.forEach((r, i) => {
          if ('problems' in r) {
            for (const p of r.problems) problem(place(i, p.field), p.message);
            return;
          }
          const variant = r.sku ? bySku.get(r.sku) : byBarcode.get(r.barcode!);
          if (!variant) problem(place(i, r.sku ? 'sku' : 'barcode'), `no variant with this ${r.sku ? 'SKU' : 'barcode'}`);
          const location = r.location ? byCode.get(r.location) : shipping;
          if (!location)
            problem(
              place(i, 'location'),
              r.location ? `no stock location with code "${r.location}"` : 'the company has no active location that ships orders; name one',
            );
          if (variant && isWholeUnit(variant.unit) && !new Decimal(r.on_hand).isInteger())
            problem(place(i, 'on_hand'), wholeNumberMessage(variant.unit, variant.sku));
          if (!variant || !location) return;
          const key = `${variant.id} ${location.id}`;
          const first = seen.get(key);
          if (first !== undefined) {
            problem(place(i, r.sku ? 'sku' : 'barcode'), `the same variant and location as ${place(first, r.sku ? 'sku' : 'barcode')}; give each once`);
            return;
          }
          seen.set(key, i);
          writes.push({ variantId: variant.id, locationId: location.id, onHand: qty(new Decimal(r.on_hand)), sku: variant.sku, location: location.code });
        });
        if (total) {
          const more = total > MAX_PROBLEMS ? ` (the first ${MAX_PROBLEMS} shown)` : '';
          const first = `${problems[0].path}: ${problems[0].message}`;
          throw validationError(problems, `${total} problem${total === 1 ? '' : 's'}${more}, nothing was changed; first: ${first}`);
        }
        if (writes.length === 0) throw new AppError('validation_failed', 'no rows to apply');
        onChecked();

        const written = await setOnHand(tx, companyId, writes);
        // the in-stock flags of the products whose stock changed, after their stock rows (lock order: stock, then products)
        await refreshInStockOfVariants(tx, companyId, [...new Set(written.map((w) => w.variant_id))]);
        const names = new Map(writes.map((w) => [`${w.variantId} ${w.locationId}`, w]));
        const short = written
          .filter((w) => new Decimal(w.on_hand).lt(w.reserved))
          .map((w) => {
            const row = names.get(`${w.variant_id} ${w.location_id}`)!;
            return { sku: row.sku, location: row.location, on_hand: qty(w.on_hand), reserved: qty(w.reserved) };
          });
        return { rows: rows.length, updated: written.length, unchanged: writes.length - written.length, short };
      });
    },
  };
}
