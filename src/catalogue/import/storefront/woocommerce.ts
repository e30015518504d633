import {
  BrandSet,
  CategoryTree,
  converted,
  htmlText,
  priceText,
  Problems,
  quantityCell,
  skuOf,
  withoutHsnNote,
  type Converted,
  type CsvRow,
  type Origins,
  type ReadOptions,
} from './common.js';

/** The columns that make a file a WooCommerce product export (WooCommerce > Products > Export). */
export const WOOCOMMERCE_SIGNATURE = ['ID', 'Type', 'SKU', 'Name', 'Regular price'];

const GTIN = 'GTIN, UPC, EAN, or ISBN';
const PRODUCT_COLUMNS: Origins['productColumns'] = {
  sku: 'SKU',
  name: 'Name',
  description: 'Description',
  brand: 'Brands',
  category: 'Categories',
  tax_rate: 'Tax class',
  hsn_code: 'Tax class',
  photos: 'Images',
  active: 'Published',
  variants: 'Type',
};
const VARIANT_COLUMNS: Origins['variantColumns'] = {
  sku: 'SKU',
  barcode: GTIN,
  name: 'Attribute 1 value(s)',
  attributes: 'Attribute 1 value(s)',
  selling_price: 'Sale price',
  mrp: 'Regular price',
  stock: 'Stock',
  photos: 'Images',
  active: 'Published',
};

/** A list cell (`Categories`, `Images`, attribute values): comma-separated, `\,` for a comma inside an item. */
const listOf = (cell: string) =>
  cell
    .split(/(?<!\\),/)
    .map((v) => v.replace(/\\,/g, ',').trim())
    .filter(Boolean);

/** `Attribute N name` / `Attribute N value(s)` pairs of a row. */
function attributesOf(c: Record<string, string>): [string, string[]][] {
  const out: [string, string[]][] = [];
  for (let n = 1; c[`Attribute ${n} name`] !== undefined; n++) {
    const name = c[`Attribute ${n} name`];
    const values = listOf(c[`Attribute ${n} value(s)`] ?? '');
    if (name && values.length) out.push([name, values]);
  }
  return out;
}

/**
 * A WooCommerce product CSV export: `simple` products are one variant each; a `variable` product's variants are
 * the `variation` rows whose `Parent` names it (`id:<ID>` or its SKU), with one value per `Attribute N`. Prices:
 * `Regular price` is the MRP and `Sale price`, when lower, the selling price. `Published` 1 is active.
 * `grouped` and `external` products are not sold by the seller and are left out.
 */
export function readWooCommerce(rows: CsvRow[], opts: ReadOptions): Converted {
  const problems = new Problems();
  const notes: string[] = [];
  const categories = new CategoryTree();
  const brands = new BrandSet();
  const typeOf = (r: CsvRow) => (r.cells.Type ?? '').split(',')[0].trim().toLowerCase();
  const parents = rows.filter((r) => ['simple', 'variable'].includes(typeOf(r)));
  const byRef = new Map<string, CsvRow>();
  for (const r of parents) {
    if (r.cells.ID) byRef.set(`id:${r.cells.ID}`, r);
    if (r.cells.SKU) byRef.set(r.cells.SKU, r);
  }
  const children = new Map<CsvRow, CsvRow[]>();
  let leftOut = 0;
  for (const r of rows) {
    const type = typeOf(r);
    if (type === 'variation') {
      const parent = byRef.get(r.cells.Parent ?? '');
      if (!parent || typeOf(parent) !== 'variable')
        problems.add(r.line, 'Parent', `"${r.cells.Parent ?? ''}" is not the ID (id:<n>) or SKU of a variable product in the file`);
      else children.set(parent, [...(children.get(parent) ?? []), r]);
    } else if (type === 'grouped' || type === 'external') leftOut++;
    else if (type !== 'simple' && type !== 'variable') problems.add(r.line, 'Type', `"${r.cells.Type ?? ''}" is not simple, variable or variation`);
  }

  const products: Record<string, unknown>[] = [];
  const origins: Origins = { products: [], productColumns: PRODUCT_COLUMNS, variantColumns: VARIANT_COLUMNS };
  const noHsn: string[] = [];
  let untracked = 0;
  let negative = 0;
  const activeOf = (r: CsvRow) => (r.cells.Published ?? '1') === '1';

  /** One variant from a simple product's row or a variation row. */
  const variantOf = (r: CsvRow, sku: string, attributes: Record<string, string>) => {
    const c = r.cells;
    const regular = priceText(c['Regular price'] ?? '');
    const sale = priceText(c['Sale price'] ?? '');
    if (regular === undefined) problems.add(r.line, 'Regular price', `"${c['Regular price']}" is not a price`);
    if (sale === undefined) problems.add(r.line, 'Sale price', `"${c['Sale price']}" is not a price`);
    if (!regular && !sale) problems.add(r.line, 'Regular price', 'must not be empty (a variant needs a price)');
    const onSale = sale && regular && Number(sale) < Number(regular);
    const qty = quantityCell(c.Stock ?? '');
    const stock: Record<string, string> = {};
    if (qty === undefined) problems.add(r.line, 'Stock', `"${c.Stock}" is not a quantity`);
    else if (qty === null) {
      // stock not managed: "In stock?" 0 means none; otherwise no quantity is known
      if ((c['In stock?'] ?? '') === '0') stock[opts.location] = '0';
      else untracked++;
    } else if (qty.startsWith('-')) {
      negative++;
      stock[opts.location] = '0';
    } else stock[opts.location] = qty;
    const image = listOf(c.Images ?? '')[0];
    return {
      sku,
      barcode: c[GTIN] || null,
      attributes,
      selling_price: (onSale ? sale : (regular ?? sale)) ?? '',
      ...(onSale ? { mrp: regular } : {}),
      active: activeOf(r),
      photos: image ? [{ file: image, alt: null }] : [],
      stock,
    };
  };

  for (const r of parents) {
    const c = r.cells;
    if (!c.Name) {
      problems.add(r.line, 'Name', 'must not be empty');
      continue;
    }
    const productSku = skuOf(c.SKU || `woo-${c.ID}`);
    if (!c.SKU && !c.ID) {
      problems.add(r.line, 'SKU', 'a product needs a SKU or an ID');
      continue;
    }
    // the most specific of the listed categories (the longest path)
    const categoryPath = listOf(c.Categories ?? '').sort((a, b) => b.split('>').length - a.split('>').length)[0] ?? '';
    const tax = opts.tax.ruleFor(categoryPath, c['Tax class'] ?? '');
    if (!tax.tax_rate) problems.add(r.line, 'Tax class', `no GST rate for "${c.Name}" (${categoryPath || 'no category'}): give --tax-rate or a mapping file`);
    if (!tax.hsn_code) noHsn.push(productSku);
    const images = listOf(c.Images ?? '');
    let variants: Record<string, unknown>[];
    let lines: number[];
    let photoLines: number[][];
    if (typeOf(r) === 'simple') {
      // a simple product's attributes describe it (one value each); they are kept on its one variant
      const attrs = Object.fromEntries(attributesOf(c).flatMap(([n, v]) => (v.length === 1 ? [[n, v[0]]] : [])));
      const v = variantOf(r, productSku, attrs);
      v.photos = []; // the product's photos are the product's
      variants = [v];
      lines = [r.line];
      photoLines = [[]];
    } else {
      const rowsOf = children.get(r) ?? [];
      if (rowsOf.length === 0) {
        problems.add(r.line, 'Type', `variable product "${c.Name}" has no variation rows`);
        continue;
      }
      variants = rowsOf.map((v) => {
        const attrs = Object.fromEntries(attributesOf(v.cells).map(([n, vals]) => [n, vals[0]]));
        return variantOf(v, skuOf(v.cells.SKU || `${productSku}-${v.cells.ID || v.line}`), attrs);
      });
      lines = rowsOf.map((v) => v.line);
      photoLines = rowsOf.map((v) => (v.cells.Images ? [v.line] : []));
    }
    origins.products.push({ line: r.line, variants: lines, photos: images.map(() => r.line), variantPhotos: photoLines });
    products.push({
      sku: productSku,
      name: c.Name,
      description: htmlText(c.Description || c['Short description'] || ''),
      tax_rate: tax.tax_rate ?? '0',
      hsn_code: tax.hsn_code,
      active: activeOf(r),
      category: categoryPath ? categories.add(categoryPath) : null,
      brand: brands.add(listOf(c.Brands ?? '')[0] ?? ''),
      photos: images.map((file) => ({ file, alt: null })),
      variants,
    });
  }
  problems.throwIfAny('WooCommerce export');
  if (leftOut) notes.push(`${leftOut} grouped or external product(s) left out (not sold from the seller's stock)`);
  if (untracked) notes.push(`${untracked} variant(s) have no Stock (not managed in WooCommerce): they have no stock until it is set (catalog stock)`);
  if (negative) notes.push(`${negative} variant(s) had a negative Stock (backorders): set to 0`);
  notes.push(...withoutHsnNote(noHsn));
  return converted('woocommerce', opts, { categories, brands, products, origins, notes });
}
