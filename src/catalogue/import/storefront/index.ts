import { validationError } from '../../../contract/errors.js';
import { readCsv, type Converted, type ReadOptions } from './common.js';
import { readShopify, SHOPIFY_SIGNATURE } from './shopify.js';
import { readWooCommerce, WOOCOMMERCE_SIGNATURE } from './woocommerce.js';

export { placeOf, TaxMapping, type Converted, type Origins } from './common.js';

export const STOREFRONT_FORMATS = ['shopify', 'woocommerce'] as const;
export type StorefrontFormat = (typeof STOREFRONT_FORMATS)[number];

/**
 * A Shopify or WooCommerce product export as our catalogue file. The format is told by the header row (or named);
 * a file that is neither is refused with the columns each needs.
 */
export function readStorefrontExport(text: string, opts: ReadOptions & { format?: StorefrontFormat }): Converted {
  const { header, rows } = readCsv(text);
  const has = (cols: string[]) => cols.every((c) => header.includes(c));
  const format = opts.format ?? (has(SHOPIFY_SIGNATURE) ? 'shopify' : has(WOOCOMMERCE_SIGNATURE) ? 'woocommerce' : undefined);
  const need = format === 'woocommerce' ? WOOCOMMERCE_SIGNATURE : SHOPIFY_SIGNATURE;
  if (!format || !has(need))
    throw validationError(
      [
        {
          path: 'line 1',
          message: format
            ? `a ${format} export's header names ${need.join(', ')}; missing: ${need.filter((c) => !header.includes(c)).join(', ')}`
            : `not a Shopify export (header with ${SHOPIFY_SIGNATURE.join(', ')}) nor a WooCommerce export (${WOOCOMMERCE_SIGNATURE.join(', ')})`,
        },
      ],
      'the file is not a product export this import reads; nothing was changed',
    );
  if (rows.length === 0) throw validationError([{ path: 'line 2', message: 'the export has no product rows' }]);
  return format === 'shopify' ? readShopify(rows, opts) : readWooCommerce(rows, opts);
}
