import type { CatalogueRows, ModelBrandRow, ModelCategoryRow, ModelPhotoRow } from './read-model.queries.js';

/** An active variant as the model holds it: everything but stock. */
export interface ModelVariant {
  id: string;
  sku: string;
  barcode: string | null;
  name: string;
  attributes: Record<string, string>;
  selling_price: string;
  mrp: string;
  product: ModelProduct;
}

/** A listed product as the model holds it: everything but stock. */
export interface ModelProduct {
  id: string;
  sku: string;
  name: string;
  description: string | null;
  unit: string;
  hsn_code: string | null;
  tax_rate: string;
  category: { id: string; name: string; slug: string; parent: string | null } | null;
  brand: { id: string; name: string } | null;
  categoryId: string | null;
  brandId: string | null;
  variants: ModelVariant[];
  /** the product's photos and its active variants', in position order */
  photos: Pick<ModelPhotoRow, 'path' | 'alt' | 'variant_id'>[];
  price_min: string;
  price_max: string;
  /** the product's place in `CatalogueModel.products` (browse order) */
  position: number;
}

/** What an identifier names: a listed product, an active variant of one, or something not shown (null). */
type Ref = ModelProduct | ModelVariant | null;

/** One company's catalogue in memory, at one version. */
export interface CatalogueModel {
  version: string;
  /** listed products in browse order */
  products: ModelProduct[];
  categories: ModelCategoryRow[];
  brands: ModelBrandRow[];
  /**
   * Every identifier a detail id may be, filled in the route's order of precedence (product id, variant id, variant SKU,
   * product SKU, barcode) with the first kind to claim a string kept: one lookup answers as the ordered search did.
   */
  refs: Map<string, Ref>;
  /** search words already answered at this version: word -> positions in `products` of the products matching it */
  words: WordCache;
  /** an estimate of the model's heap size, for the cache's cap */
  bytes: number;
}

const numericOrder = (a: string, b: string) => Number(a) - Number(b);

/** Rough heap bytes of a string (UTF-16, header) and of an object's slots: the cap needs an order of magnitude, not a count. */
const str = (s: string | null | undefined) => (s ? 16 + 2 * s.length : 0);
const OBJECT = 64;
const NO_PHOTOS: ModelProduct['photos'] = [];

export function buildModel(rows: CatalogueRows): CatalogueModel {
  const byId = new Map<string, ModelProduct>();
  const categoryById = new Map(rows.categories.map((c) => [c.id, c]));
  // one object per category and brand, shared by its products
  const categoryOf = new Map<string, ModelProduct['category']>();
  for (const c of rows.categories) {
    const parent = c.parent_id ? categoryById.get(c.parent_id) : undefined;
    categoryOf.set(c.id, { id: c.id, name: c.name, slug: c.slug, parent: parent?.name ?? null });
  }
  const brandOf = new Map(rows.brands.map((b) => [b.id, { id: b.id, name: b.name }]));
  let bytes = 0;
  // Short texts repeated across a catalogue (option names and values, prices, units, tax rates, HSN codes) are kept
  // once: each row from the driver carries its own copy (6 MB of 282 on 100,000 generated products).
  const texts = new Map<string, string>();
  const once = <T extends string | null>(t: T): T => {
    if (t === null || t.length > 40) return t;
    const kept = texts.get(t);
    if (kept !== undefined) return kept as T;
    texts.set(t, t);
    return t;
  };

  const products: ModelProduct[] = [];
  for (const p of rows.products) {
    if (!p.listed) continue;
    const product: ModelProduct = {
      id: p.id,
      sku: p.sku,
      name: p.name,
      description: p.description,
      unit: once(p.unit),
      hsn_code: once(p.hsn_code),
      tax_rate: once(p.tax_rate),
      category: (p.category_id && categoryOf.get(p.category_id)) || null,
      brand: (p.brand_id && brandOf.get(p.brand_id)) || null,
      categoryId: p.category_id,
      brandId: p.brand_id,
      variants: [],
      photos: NO_PHOTOS,
      price_min: '0.00',
      price_max: '0.00',
      position: products.length,
    };
    products.push(product);
    byId.set(p.id, product);
    bytes += OBJECT * 2 + str(p.id) + str(p.sku) + str(p.name) + str(p.description) + str(p.unit) + str(p.hsn_code) + str(p.tax_rate);
  }

  const variants = new Map<string, ModelVariant | null>(); // by id; null: inactive, or of a product not shown
  for (const v of rows.variants) {
    const product = byId.get(v.product_id);
    bytes += OBJECT + str(v.id) + str(v.sku) + str(v.barcode);
    if (!product || !v.active) {
      variants.set(v.id, null);
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const [name, value] of Object.entries(v.attributes ?? {})) {
      attributes[once(name)] = once(String(value));
      bytes += OBJECT / 2 + str(name) + str(attributes[name]);
    }
    const variant = {
      id: v.id,
      sku: v.sku,
      barcode: v.barcode,
      name: once(v.name),
      attributes,
      selling_price: once(v.selling_price),
      mrp: once(v.mrp),
      product,
    };
    product.variants.push(variant);
    variants.set(v.id, variant);
    bytes += OBJECT * 2 + str(v.name) + str(v.selling_price) + str(v.mrp);
  }

  const refs = new Map<string, Ref>();
  const claim = (key: string | null, ref: Ref) => {
    if (key !== null && !refs.has(key)) refs.set(key, ref);
  };
  for (const p of rows.products) claim(p.id, byId.get(p.id) ?? null);
  for (const v of rows.variants) claim(v.id, variants.get(v.id) ?? null);
  for (const v of rows.variants) claim(v.sku, variants.get(v.id) ?? null);
  for (const p of rows.products) claim(p.sku, byId.get(p.id) ?? null);
  for (const v of rows.variants) claim(v.barcode, variants.get(v.id) ?? null);
  bytes += refs.size * 40;

  for (const product of products) {
    const prices = product.variants.map((v) => v.selling_price).sort(numericOrder);
    if (prices.length) {
      product.price_min = prices[0];
      product.price_max = prices[prices.length - 1];
    }
  }
  for (const ph of rows.photos) {
    const product = byId.get(ph.product_id);
    if (!product || (ph.variant_id !== null && !variants.get(ph.variant_id))) continue;
    if (product.photos === NO_PHOTOS) product.photos = [];
    product.photos.push({ path: ph.path, alt: ph.alt, variant_id: ph.variant_id });
    bytes += OBJECT + str(ph.path) + str(ph.alt);
  }
  for (const c of rows.categories) bytes += OBJECT * 2 + str(c.id) + str(c.name) + str(c.slug);
  for (const b of rows.brands) bytes += OBJECT * 2 + str(b.id) + str(b.name) + str(b.slug);

  const words = new WordCache(WordCache.positionsFor(products.length));
  return { version: rows.version, products, categories: rows.categories, brands: rows.brands, refs, words, bytes };
}

/** The product and variant an identifier names, in the detail route's order; undefined when nothing shown matches. */
export function resolveRef(model: CatalogueModel, ref: string): { product: ModelProduct; variantId: string | null } | undefined {
  const hit = model.refs.get(ref);
  if (!hit) return undefined;
  return 'product' in hit ? { product: hit.product, variantId: hit.id } : { product: hit, variantId: null };
}

/** The listed product with this id, if the model holds one. */
export function productById(model: CatalogueModel, id: string): ModelProduct | undefined {
  const hit = model.refs.get(id);
  return hit && !('product' in hit) && hit.id === id ? hit : undefined;
}

const sameText = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Ids of the categories named by id, slug or name (case-insensitive), with all their sub-categories. */
export function categoryTree(model: CatalogueModel, ref: string): Set<string> {
  const ids = new Set(model.categories.filter((c) => c.id === ref || sameText(c.slug, ref) || sameText(c.name, ref)).map((c) => c.id));
  for (let grew = true; grew;) {
    grew = false;
    for (const c of model.categories) {
      if (c.parent_id !== null && ids.has(c.parent_id) && !ids.has(c.id)) {
        ids.add(c.id);
        grew = true;
      }
    }
  }
  return ids;
}

/** Ids of the brands named by id, slug or name (case-insensitive). */
export function brandSet(model: CatalogueModel, ref: string): Set<string> {
  return new Set(model.brands.filter((b) => b.id === ref || sameText(b.slug, ref) || sameText(b.name, ref)).map((b) => b.id));
}

/**
 * The products each search word matched, kept with the model they describe (so a catalogue change, which replaces the
 * model, forgets them): a word's first search is answered by the database's trigram index, which also returns every
 * product the word matches; later searches with it are answered here (issue 16). Chat searches repeat their words
 * ("kurta", "soap"), so most are. Bounded per model, least recently used out: 1,000 words, and positions in proportion to
 * the catalogue (20 per product, from 2,000 to 2 million: at most 80 bytes per product, 8 MB for 100,000, about 3% of the
 * model, within the error of the size estimate the cache's cap uses, so not added to it).
 */
export class WordCache {
  static readonly MAX_WORDS = 1000;
  /** Positions kept for a catalogue of `products` listed products. */
  static positionsFor(products: number): number {
    return Math.min(2_000_000, Math.max(2_000, 20 * products));
  }
  private readonly held = new Map<string, Int32Array>();
  private positions = 0;

  constructor(readonly maxPositions: number) {}

  get(word: string): Int32Array | undefined {
    const hit = this.held.get(word);
    if (hit) {
      this.held.delete(word);
      this.held.set(word, hit);
    }
    return hit;
  }

  /** Keeps the (ascending) positions a word matched. */
  set(word: string, positions: Int32Array): void {
    const old = this.held.get(word);
    if (old) this.positions -= old.length;
    this.held.delete(word);
    if (positions.length > this.maxPositions) return;
    this.held.set(word, positions);
    this.positions += positions.length;
    for (const [w, p] of this.held) {
      if (this.held.size <= WordCache.MAX_WORDS && this.positions <= this.maxPositions) break;
      this.held.delete(w);
      this.positions -= p.length;
    }
  }

  get size(): number {
    return this.held.size;
  }
}

/** Ascending positions of the listed products among `ids` (ids the model does not show are left out). */
export function positionsOf(model: CatalogueModel, ids: readonly string[]): Int32Array {
  const out: number[] = [];
  for (const id of ids) {
    const p = productById(model, id);
    if (p) out.push(p.position);
  }
  return Int32Array.from(out).sort();
}

/** The products matching every word, in browse order, when every word is cached; undefined when one is not. */
export function productsMatching(model: CatalogueModel, words: readonly string[]): ModelProduct[] | undefined {
  const lists: Int32Array[] = [];
  for (const w of words) {
    const hit = model.words.get(w);
    if (!hit) return undefined;
    lists.push(hit);
  }
  lists.sort((x, y) => x.length - y.length);
  const [first, ...rest] = lists;
  const out: ModelProduct[] = [];
  const cursor = rest.map(() => 0);
  outer: for (const position of first) {
    for (let k = 0; k < rest.length; k++) {
      const list = rest[k];
      let i = cursor[k];
      while (i < list.length && list[i] < position) i++;
      cursor[k] = i;
      if (i === list.length || list[i] !== position) continue outer;
    }
    out.push(model.products[position]);
  }
  return out;
}
