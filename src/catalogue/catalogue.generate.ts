import { randomBytes } from 'node:crypto';
import type { Db } from '../db/index.js';
import { newId } from '../lib/ids.js';
import { generatedBrand, generatedCategory, generatedLocations, insertGeneratedBatch } from './generate.queries.js';
import { analyzeCatalogue, refreshListing, refreshSearchText } from './catalogue.queries.js';
import { bumpCatalogueVersion } from './read-model.queries.js';

/** Word lists so generated names read like a real Indian D2C catalogue and search has something to find. */
const GROUPS = [
  {
    category: 'Apparel',
    unit: 'PCS',
    hsn: '6109',
    tax: '12',
    nouns: ['Shirt', 'T-Shirt', 'Kurta', 'Saree', 'Dupatta', 'Jeans', 'Hoodie', 'Leggings', 'Nehru Jacket', 'Lehenga'],
    adjs: ['Cotton', 'Linen', 'Silk', 'Khadi', 'Printed', 'Embroidered', 'Slim Fit', 'Handloom', 'Chikankari', 'Denim'],
  },
  {
    category: 'Grocery',
    unit: 'KG',
    hsn: '1006',
    tax: '5',
    nouns: ['Basmati Rice', 'Toor Dal', 'Atta', 'Jaggery', 'Moong Dal', 'Poha', 'Rajma', 'Chana', 'Sugar', 'Millet'],
    adjs: ['Organic', 'Premium', 'Unpolished', 'Stone Ground', 'Farm Fresh', 'Aged', 'Whole', 'Sortex', 'Natural', 'Classic'],
  },
  {
    category: 'Personal Care',
    unit: 'PCS',
    hsn: '3401',
    tax: '18',
    nouns: ['Soap', 'Face Wash', 'Shampoo', 'Hair Oil', 'Body Lotion', 'Lip Balm', 'Sunscreen', 'Toothpaste', 'Kajal', 'Serum'],
    adjs: ['Ayurvedic', 'Neem', 'Aloe Vera', 'Sandalwood', 'Turmeric', 'Charcoal', 'Herbal', 'Rose', 'Coconut', 'Saffron'],
  },
  {
    category: 'Electronics',
    unit: 'PCS',
    hsn: '8518',
    tax: '18',
    nouns: ['Earbuds', 'Power Bank', 'Charger', 'Smartwatch', 'Speaker', 'USB Cable', 'Trimmer', 'Headphones', 'Mouse', 'Keyboard'],
    adjs: ['Wireless', 'Fast Charging', 'Bluetooth', 'Noise Cancelling', 'Compact', 'Rugged', 'Pro', 'Mini', 'Smart', 'Portable'],
  },
  {
    category: 'Home',
    unit: 'PCS',
    hsn: '6302',
    tax: '12',
    nouns: ['Bedsheet', 'Cushion Cover', 'Kadai', 'Tawa', 'Pressure Cooker', 'Water Bottle', 'Lunch Box', 'Dohar', 'Curtain', 'Diya'],
    adjs: ['Jaipuri', 'Stainless Steel', 'Copper', 'Brass', 'Cast Iron', 'Block Print', 'Terracotta', 'Bamboo', 'Non-Stick', 'Hand Painted'],
  },
];
const BRANDS = [
  'Desi Threads',
  'Annapurna Farms',
  'Vedic Glow',
  'Voltic',
  'Ghar Sansar',
  'Kalakari',
  'Swadesh Naturals',
  'Bharat Basics',
  'Urban Loom',
  'Neelgiri',
];
const COLOURS = ['Red', 'Blue', 'Black', 'White', 'Green', 'Maroon', 'Mustard', 'Indigo'];
const SIZES = ['S', 'M', 'L', 'XL', 'XXL'];
const PACKS = ['0.500', '1.000', '2.000', '5.000'];

/** Small deterministic PRNG (mulberry32): the same seed gives the same catalogue. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface GenerateOptions {
  products: number;
  variantsPerProduct?: number;
  batchSize?: number;
  seed?: number;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Inserts a synthetic catalogue fast: batched INSERT … SELECT FROM unnest(arrays), one transaction per
 * batch. Uses the company's ship-from location (creating GEN-WH and GEN-STORE when it has none).
 */
export async function generateCatalogue(db: Db, companyId: string, opts: GenerateOptions): Promise<{ products: number; variants: number }> {
  const perProduct = opts.variantsPerProduct ?? 3;
  const batch = opts.batchSize ?? 1000;
  const rand = rng(opts.seed ?? 42);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const run = randomBytes(3).toString('hex').toUpperCase();
  // 13-digit barcodes: 6 digits of this run, then a counter (unique per run up to 10 million variants)
  const barcodeRun = String(parseInt(run, 16) % 1_000_000).padStart(6, '0');

  const { shipFrom, store } = await generatedLocations(db, companyId);

  const categoryIds = new Map<string, string>();
  for (const g of GROUPS)
    categoryIds.set(g.category, await generatedCategory(db, companyId, g.category, `gen-${g.category.toLowerCase().replace(/\s+/g, '-')}`));
  const brandIds: string[] = [];
  for (const b of BRANDS) brandIds.push(await generatedBrand(db, companyId, b, `gen-${b.toLowerCase().replace(/\s+/g, '-')}`));
  await bumpCatalogueVersion(db, companyId); // the categories and brands; each batch of products bumps it again (refresh_listing)

  let variantCount = 0;
  for (let start = 0; start < opts.products; start += batch) {
    const end = Math.min(opts.products, start + batch);
    const p = {
      id: [] as string[],
      sku: [] as string[],
      name: [] as string[],
      sort: [] as string[],
      desc: [] as string[],
      unit: [] as string[],
      hsn: [] as string[],
      tax: [] as string[],
      cat: [] as string[],
      brand: [] as string[],
    };
    const v = {
      id: [] as string[],
      product: [] as string[],
      sku: [] as string[],
      barcode: [] as (string | null)[],
      name: [] as string[],
      attrs: [] as string[],
      pos: [] as number[],
      price: [] as string[],
      mrp: [] as string[],
    };
    const s = { variant: [] as string[], location: [] as string[], onHand: [] as string[] };
    for (let i = start; i < end; i++) {
      const g = pick(GROUPS);
      const brand = Math.floor(rand() * BRANDS.length);
      const name = `${BRANDS[brand]} ${pick(g.adjs)} ${pick(g.nouns)} ${i + 1}`;
      const id = newId('prod');
      const sku = `GEN-${run}-${i + 1}`;
      p.id.push(id);
      p.sku.push(sku);
      p.name.push(name);
      p.sort.push(name.toLowerCase());
      p.desc.push(`${name}: ${pick(g.adjs).toLowerCase()} quality, made in India.`);
      p.unit.push(g.unit);
      p.hsn.push(g.hsn);
      p.tax.push(g.tax);
      p.cat.push(categoryIds.get(g.category)!);
      p.brand.push(brandIds[brand]);
      const base = 49 + Math.floor(rand() * 4950);
      for (let j = 0; j < perProduct; j++) {
        const attrs: Record<string, string> =
          g.unit === 'KG'
            ? { Pack: `${PACKS[j % PACKS.length]} kg` }
            : g.category === 'Apparel'
              ? { Colour: COLOURS[j % COLOURS.length], Size: SIZES[j % SIZES.length] }
              : { Colour: COLOURS[j % COLOURS.length] };
        const vid = newId('var');
        v.id.push(vid);
        v.product.push(id);
        v.sku.push(`${sku}-${j + 1}`);
        v.barcode.push(`${barcodeRun}${String(variantCount).padStart(7, '0')}`);
        v.name.push(Object.values(attrs).join(' / '));
        v.attrs.push(JSON.stringify(attrs));
        v.pos.push(j);
        const price = base + j * 10;
        v.price.push(`${price}.00`);
        v.mrp.push(`${Math.ceil(price * 1.2)}.00`);
        s.variant.push(vid);
        s.location.push(shipFrom);
        s.onHand.push(rand() < 0.1 ? '0' : g.unit === 'KG' ? (rand() * 200).toFixed(3) : String(Math.floor(rand() * 100)));
        if (store && rand() < 0.3) {
          s.variant.push(vid);
          s.location.push(store);
          s.onHand.push(String(Math.floor(rand() * 20)));
        }
        variantCount++;
      }
    }
    await db.tx(async (tx) => {
      await insertGeneratedBatch(tx, companyId, { products: p, variants: v, stock: s });
      await refreshSearchText(tx, companyId, p.id);
      await refreshListing(tx, companyId, p.id);
    });
    opts.onProgress?.(end, opts.products);
  }
  await analyzeCatalogue(db);
  return { products: opts.products, variants: variantCount };
}
