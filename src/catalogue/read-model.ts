import { PRODUCT_FIELD_NAMES, REPEATED_FIELDS, type ProductFieldValues } from '../contract/product-fields.js';
import type { CatalogueFrame, CatalogueSink, ModelBrandRow, ModelCategoryRow, ModelPhotoRow, ModelProductRow, ModelVariantRow } from './read-model.queries.js';

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

/** A listed product as the model holds it: everything but stock (its own fields: contract/product-fields.ts). */
export interface ModelProduct extends ProductFieldValues {
  id: string;
  sku: string;
  name: string;
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

/**
 * Builds a model from what `loadCatalogue` reads, chunk by chunk (the frame first, then products, variants, photos):
 * only the model and the chunk in hand are in memory at once.
 */
export class ModelBuilder implements CatalogueSink {
  private version = '0';
  private categories: ModelCategoryRow[] = [];
  private brands: ModelBrandRow[] = [];
  private readonly categoryOf = new Map<string, ModelProduct['category']>();
  private readonly brandOf = new Map<string, { id: string; name: string }>();
  private readonly products: ModelProduct[] = [];
  /** every product read, listed or not (null), by id */
  private readonly byId = new Map<string, ModelProduct | null>();
  /** every variant read, by id; null: inactive, or of a product not shown */
  private readonly variantsById = new Map<string, ModelVariant | null>();
  /** identifiers in read order, per kind, for the claims of `finish` */
  private readonly productSkus: string[] = [];
  private readonly variantSkus: string[] = [];
  private readonly barcodes: [string, string][] = [];
  private bytes = 0;
  // Short texts repeated across a catalogue (option names and values, prices, units, tax rates, HSN codes) are kept
  // once: each row from the driver carries its own copy (6 MB of 282 on 100,000 generated products).
  private readonly texts = new Map<string, string>();
  private once<T extends string | null>(t: T): T {
    if (t === null || t.length > 40) return t;
    const kept = this.texts.get(t);
    if (kept !== undefined) return kept as T;
    this.texts.set(t, t);
    return t;
  }

  /** The product's own fields from its row, repeated texts kept once, their bytes counted. */
  private fieldsOf(p: ModelProductRow): ProductFieldValues {
    const values = {} as Record<string, string | null>;
    for (const name of PRODUCT_FIELD_NAMES) {
      const value = p[name];
      values[name] = REPEATED_FIELDS.has(name) ? this.once(value) : value;
      this.bytes += str(value);
    }
    return values as ProductFieldValues;
  }

  frame({ version, categories, brands }: CatalogueFrame): void {
    this.version = version;
    this.categories = categories;
    this.brands = brands;
    const categoryById = new Map(categories.map((c) => [c.id, c]));
    // one object per category and brand, shared by its products
    for (const c of categories) {
      const parent = c.parent_id ? categoryById.get(c.parent_id) : undefined;
      this.categoryOf.set(c.id, { id: c.id, name: c.name, slug: c.slug, parent: parent?.name ?? null });
      this.bytes += OBJECT * 2 + str(c.id) + str(c.name) + str(c.slug);
    }
    for (const b of brands) {
      this.brandOf.set(b.id, { id: b.id, name: b.name });
      this.bytes += OBJECT * 2 + str(b.id) + str(b.name) + str(b.slug);
    }
  }

  productRows(rows: ModelProductRow[]): void {
    for (const p of rows) {
      if (this.byId.has(p.id)) continue; // read twice across chunks while the catalogue changed: the version check rebuilds
      this.productSkus.push(p.sku);
      if (!p.listed) {
        this.byId.set(p.id, null);
        this.bytes += str(p.id) + str(p.sku);
        continue;
      }
      const product: ModelProduct = {
        id: p.id,
        sku: p.sku,
        name: p.name,
        ...this.fieldsOf(p),
        category: (p.category_id && this.categoryOf.get(p.category_id)) || null,
        brand: (p.brand_id && this.brandOf.get(p.brand_id)) || null,
        categoryId: p.category_id,
        brandId: p.brand_id,
        variants: [],
        photos: NO_PHOTOS,
        price_min: '0.00',
        price_max: '0.00',
        position: this.products.length,
      };
      this.products.push(product);
      this.byId.set(p.id, product);
      this.bytes += OBJECT * 2 + str(p.id) + str(p.sku) + str(p.name);
    }
  }

  variantRows(rows: ModelVariantRow[]): void {
    for (const v of rows) {
      if (this.variantsById.has(v.id)) continue;
      this.variantSkus.push(v.sku);
      if (v.barcode !== null) this.barcodes.push([v.barcode, v.id]);
      const product = this.byId.get(v.product_id);
      this.bytes += OBJECT + str(v.id) + str(v.sku) + str(v.barcode);
      if (!product || !v.active) {
        this.variantsById.set(v.id, null);
        continue;
      }
      const attributes: Record<string, string> = {};
      for (const [name, value] of Object.entries(v.attributes ?? {})) {
        attributes[this.once(name)] = this.once(String(value));
        this.bytes += OBJECT / 2 + str(name) + str(attributes[name]);
      }
      const variant = {
        id: v.id,
        sku: v.sku,
        barcode: v.barcode,
        name: this.once(v.name),
        attributes,
        selling_price: this.once(v.selling_price),
        mrp: this.once(v.mrp),
        product,
      };
      product.variants.push(variant);
      this.variantsById.set(v.id, variant);
      this.bytes += OBJECT * 2 + str(v.name) + str(v.selling_price) + str(v.mrp);
    }
  }

  photoRows(rows: ModelPhotoRow[]): void {
    for (const ph of rows) {
      const product = this.byId.get(ph.product_id);
      if (!product || (ph.variant_id !== null && !this.variantsById.get(ph.variant_id))) continue;
      if (product.photos === NO_PHOTOS) product.photos = [];
      product.photos.push({ path: ph.path, alt: ph.alt, variant_id: ph.variant_id });
      this.bytes += OBJECT + str(ph.path) + str(ph.alt);
    }
  }

  finish(): CatalogueModel {
    // Every identifier a detail id may be, claimed in the route's order of precedence (product id, variant id, variant
    // SKU, product SKU, barcode): the first kind to claim a string keeps it.
    const refs = new Map<string, Ref>();
    const claim = (key: string, ref: Ref | undefined) => {
      if (!refs.has(key)) refs.set(key, ref ?? null);
    };
    for (const [id, product] of this.byId) claim(id, product);
    for (const [id, variant] of this.variantsById) claim(id, variant);
    for (const [sku, variant] of zip(this.variantSkus, this.variantsById.values())) claim(sku, variant);
    for (const [sku, product] of zip(this.productSkus, this.byId.values())) claim(sku, product);
    for (const [barcode, id] of this.barcodes) claim(barcode, this.variantsById.get(id));
    this.bytes += refs.size * 40;

    for (const product of this.products) {
      const prices = product.variants.map((v) => v.selling_price).sort(numericOrder);
      if (prices.length) {
        product.price_min = prices[0];
        product.price_max = prices[prices.length - 1];
      }
    }
    const words = new WordCache(WordCache.positionsFor(this.products.length));
    return { version: this.version, products: this.products, categories: this.categories, brands: this.brands, refs, words, bytes: this.bytes };
  }
}

/** Pairs of the n-th items of two sequences of equal length. */
function* zip<A, B>(a: Iterable<A>, b: Iterable<B>): Generator<[A, B]> {
  const ib = b[Symbol.iterator]();
  for (const x of a) yield [x, ib.next().value as B];
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
 * product the word matches; later searches with it are answered here. Chat searches repeat their words
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
