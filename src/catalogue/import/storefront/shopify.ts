import {
  BrandSet,
  CategoryTree,
  converted,
  htmlText,
  priceText,
  Problems,
  quantityCell,
  skuOf,
  slugOf,
  withoutHsnNote,
  type Converted,
  type CsvRow,
  type Origins,
  type ReadOptions,
} from './common.js';

/** The columns that make a file a Shopify product export (the header row of Shopify's product CSV). */
export const SHOPIFY_SIGNATURE = ['Handle', 'Title', 'Variant Price'];

const PRODUCT_COLUMNS: Origins['productColumns'] = {
  sku: 'Handle',
  name: 'Title',
  description: 'Body (HTML)',
  brand: 'Vendor',
  category: 'Product Category',
  tax_rate: 'Type',
  hsn_code: 'Type',
  photos: 'Image Src',
  active: 'Status',
  variants: 'Handle',
};
const VARIANT_COLUMNS: Origins['variantColumns'] = {
  sku: 'Variant SKU',
  barcode: 'Variant Barcode',
  name: 'Option1 Value',
  attributes: 'Option1 Value',
  selling_price: 'Variant Price',
  mrp: 'Variant Compare At Price',
  stock: 'Variant Inventory Qty',
  photos: 'Variant Image',
  active: 'Status',
};

interface Group {
  handle: string;
  first: CsvRow;
  variants: CsvRow[];
  images: CsvRow[];
}

/**
 * A Shopify product CSV export: rows grouped by `Handle`; the first row of a handle holds the product (Title,
 * Body (HTML), Vendor, Product Category, Type, Status or Published, Option1..3 Name), every row with a variant
 * field is a variant (Option1..3 Value, Variant SKU/Barcode/Price/Compare At Price/Inventory Qty/Image), and
 * rows with only `Image Src` add photos.
 */
export function readShopify(rows: CsvRow[], opts: ReadOptions): Converted {
  const problems = new Problems();
  const notes: string[] = [];
  const categories = new CategoryTree();
  const brands = new BrandSet();
  const groups = new Map<string, Group>();
  for (const row of rows) {
    const handle = row.cells.Handle ?? '';
    if (!handle) {
      if (Object.values(row.cells).some(Boolean)) problems.add(row.line, 'Handle', 'must not be empty (every row names its product by handle)');
      continue;
    }
    let g = groups.get(handle);
    if (!g) groups.set(handle, (g = { handle, first: row, variants: [], images: [] }));
    const c = row.cells;
    const isVariant = [c['Option1 Value'], c['Variant SKU'], c['Variant Price'], c['Variant Barcode']].some(Boolean);
    if (isVariant) g.variants.push(row);
    if (c['Image Src']) g.images.push(row);
  }

  const products: Record<string, unknown>[] = [];
  const origins: Origins = { products: [], productColumns: PRODUCT_COLUMNS, variantColumns: VARIANT_COLUMNS };
  const noHsn: string[] = [];
  let madeSkus = 0;
  let untracked = 0;
  let negative = 0;
  let droppedMrp = 0;
  for (const g of groups.values()) {
    const p = g.first.cells;
    if (!p.Title) {
      problems.add(g.first.line, 'Title', `must not be empty on the first row of "${g.handle}"`);
      continue;
    }
    if (g.variants.length === 0) {
      problems.add(g.first.line, 'Variant Price', `product "${g.handle}" has no variant row`);
      continue;
    }
    const optionNames = [1, 2, 3].map((n) => p[`Option${n} Name`] ?? '');
    const categoryPath = p['Product Category'] || p.Type || '';
    const tax = opts.tax.ruleFor(categoryPath, p.Type ?? '');
    if (!tax.tax_rate) problems.add(g.first.line, 'Type', `no GST rate for "${p.Title}" (${categoryPath || 'no category'}): give --tax-rate or a mapping file`);
    if (!tax.hsn_code) noHsn.push(g.handle);
    const active = p.Status ? p.Status.toLowerCase() === 'active' : (p.Published ?? 'true').toLowerCase() !== 'false';
    const productSku = skuOf(g.handle);

    // Photos in Image Position order, each address once; alt text from its row.
    const seen = new Set<string>();
    const images = g.images
      .map((r, i) => ({ r, pos: Number(r.cells['Image Position']) || 1000 + i }))
      .sort((a, b) => a.pos - b.pos)
      .filter(({ r }) => !seen.has(r.cells['Image Src']) && seen.add(r.cells['Image Src']));

    const variantLines: number[] = [];
    const variantPhotoLines: number[][] = [];
    const variants = g.variants.map((row) => {
      const c = row.cells;
      const attributes: Record<string, string> = {};
      optionNames.forEach((name, i) => {
        const value = c[`Option${i + 1} Value`] ?? '';
        // a product without options is exported as Option1 Name "Title", Option1 Value "Default Title"
        if (name && value && !(name === 'Title' && value === 'Default Title')) attributes[name] = value;
      });
      let sku = c['Variant SKU'];
      if (!sku) {
        sku = skuOf(
          `${productSku}-${
            Object.values(attributes)
              .map((v) => slugOf(v, 20))
              .join('-') || 'default'
          }`,
        );
        madeSkus++;
      }
      const price = priceText(c['Variant Price'] ?? '');
      if (price === undefined || price === null) problems.add(row.line, 'Variant Price', `"${c['Variant Price'] ?? ''}" is not a price`);
      let mrp = priceText(c['Variant Compare At Price'] ?? '');
      if (mrp === undefined) problems.add(row.line, 'Variant Compare At Price', `"${c['Variant Compare At Price']}" is not a price`);
      else if (mrp !== null && price && Number(mrp) <= Number(price)) {
        // Shopify shows no compare-at price unless it is above the price; neither do we
        if (Number(mrp) < Number(price)) droppedMrp++;
        mrp = null;
      }
      const qty = quantityCell(c['Variant Inventory Qty'] ?? '');
      const stock: Record<string, string> = {};
      if (qty === undefined) problems.add(row.line, 'Variant Inventory Qty', `"${c['Variant Inventory Qty']}" is not a quantity`);
      else if (qty === null) untracked++;
      else if (qty.startsWith('-')) {
        negative++;
        stock[opts.location] = '0';
      } else stock[opts.location] = qty;
      variantLines.push(row.line);
      variantPhotoLines.push(c['Variant Image'] ? [row.line] : []);
      return {
        sku,
        barcode: (c['Variant Barcode'] ?? '').replace(/^'/, '') || null,
        attributes,
        selling_price: price ?? '',
        ...(mrp ? { mrp } : {}),
        active,
        photos: c['Variant Image'] ? [{ file: c['Variant Image'], alt: null }] : [],
        stock,
      };
    });
    origins.products.push({ line: g.first.line, variants: variantLines, photos: images.map(({ r }) => r.line), variantPhotos: variantPhotoLines });
    products.push({
      sku: productSku,
      name: p.Title,
      description: htmlText(p['Body (HTML)'] ?? ''),
      tax_rate: tax.tax_rate ?? '0',
      hsn_code: tax.hsn_code,
      active,
      category: categoryPath ? categories.add(categoryPath) : null,
      brand: brands.add(p.Vendor ?? ''),
      photos: images.map(({ r }) => ({ file: r.cells['Image Src'], alt: r.cells['Image Alt Text'] || null })),
      variants,
    });
  }
  problems.throwIfAny('Shopify export');
  if (madeSkus) notes.push(`${madeSkus} variant(s) had no Variant SKU: each was given <handle>-<option values> (orders send SKUs)`);
  if (untracked) notes.push(`${untracked} variant(s) have no Variant Inventory Qty: they have no stock until it is set (catalog stock)`);
  if (negative) notes.push(`${negative} variant(s) had a negative Variant Inventory Qty (oversold in Shopify): set to 0`);
  if (droppedMrp) notes.push(`${droppedMrp} variant(s) had a Compare At Price below the price: it was left out`);
  notes.push(...withoutHsnNote(noHsn));
  return converted('shopify', opts, { categories, brands, products, origins, notes });
}
