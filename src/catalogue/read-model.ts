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
}

/** What an identifier names: a listed product (and the variant it named, if any), or something not shown (null). */
type Ref = { product: ModelProduct; variantId: string | null } | null;

/** One company's catalogue in memory, at one version. */
export interface CatalogueModel {
  version: string;
  /** listed products in browse order */
  products: ModelProduct[];
  categories: ModelCategoryRow[];
  brands: ModelBrandRow[];
  /** identifier maps in the detail route's order of precedence: product id, variant id, variant SKU, product SKU, barcode */
  refs: [Map<string, Ref>, Map<string, Ref>, Map<string, Ref>, Map<string, Ref>, Map<string, Ref>];
  /** an estimate of the model's heap size, for the cache's cap */
  bytes: number;
}

const numericOrder = (a: string, b: string) => Number(a) - Number(b);

/** Rough heap bytes of a string (UTF-16, header) and of an object's slots: the cap needs an order of magnitude, not a count. */
const str = (s: string | null | undefined) => (s ? 16 + 2 * s.length : 0);
const OBJECT = 64;

export function buildModel(rows: CatalogueRows): CatalogueModel {
  const byId = new Map<string, ModelProduct>();
  const categoryById = new Map(rows.categories.map((c) => [c.id, c]));
  const brandById = new Map(rows.brands.map((b) => [b.id, b]));
  const map = () => new Map<string, Ref>();
  const refs: CatalogueModel['refs'] = [map(), map(), map(), map(), map()];
  let bytes = 0;

  const products: ModelProduct[] = [];
  for (const p of rows.products) {
    if (!p.listed) {
      // named but not shown: an id or SKU of it is refused, as the database's resolution did
      refs[0].set(p.id, null);
      refs[3].set(p.sku, null);
      continue;
    }
    const cat = p.category_id ? categoryById.get(p.category_id) : undefined;
    const parent = cat?.parent_id ? categoryById.get(cat.parent_id) : undefined;
    const brand = p.brand_id ? brandById.get(p.brand_id) : undefined;
    const product: ModelProduct = {
      id: p.id,
      sku: p.sku,
      name: p.name,
      description: p.description,
      unit: p.unit,
      hsn_code: p.hsn_code,
      tax_rate: p.tax_rate,
      category: cat ? { id: cat.id, name: cat.name, slug: cat.slug, parent: parent?.name ?? null } : null,
      brand: brand ? { id: brand.id, name: brand.name } : null,
      categoryId: p.category_id,
      brandId: p.brand_id,
      variants: [],
      photos: [],
      price_min: '0.00',
      price_max: '0.00',
    };
    products.push(product);
    byId.set(p.id, product);
    refs[0].set(p.id, { product, variantId: null });
    refs[3].set(p.sku, { product, variantId: null });
    bytes += OBJECT * 3 + str(p.id) * 2 + str(p.sku) * 2 + str(p.name) + str(p.description) + str(p.unit) + str(p.hsn_code) + str(p.tax_rate);
  }

  const activeVariants = new Set<string>();
  for (const v of rows.variants) {
    const product = byId.get(v.product_id);
    const named: Ref = product && v.active ? { product, variantId: v.id } : null;
    // a variant of an unlisted product, or an inactive one: its identifiers resolve to "not shown"
    if (!refs[1].has(v.id)) refs[1].set(v.id, named);
    if (!refs[2].has(v.sku)) refs[2].set(v.sku, named);
    if (v.barcode && !refs[4].has(v.barcode)) refs[4].set(v.barcode, named);
    bytes += OBJECT * 2 + str(v.id) * 2 + str(v.sku) * 2 + str(v.barcode) * 2;
    if (!product || !v.active) continue;
    const attributes: Record<string, string> = {};
    for (const [name, value] of Object.entries(v.attributes ?? {})) {
      attributes[name] = String(value);
      bytes += OBJECT / 2 + str(name) + str(attributes[name]);
    }
    product.variants.push({ id: v.id, sku: v.sku, barcode: v.barcode, name: v.name, attributes, selling_price: v.selling_price, mrp: v.mrp });
    activeVariants.add(v.id);
    bytes += OBJECT * 2 + str(v.name) + str(v.selling_price) + str(v.mrp);
  }
  for (const product of products) {
    const prices = product.variants.map((v) => v.selling_price).sort(numericOrder);
    if (prices.length) {
      product.price_min = prices[0];
      product.price_max = prices[prices.length - 1];
    }
  }
  for (const ph of rows.photos) {
    const product = byId.get(ph.product_id);
    if (!product || (ph.variant_id !== null && !activeVariants.has(ph.variant_id))) continue;
    product.photos.push({ path: ph.path, alt: ph.alt, variant_id: ph.variant_id });
    bytes += OBJECT + str(ph.path) + str(ph.alt);
  }
  for (const c of rows.categories) bytes += OBJECT + str(c.id) + str(c.name) + str(c.slug);
  for (const b of rows.brands) bytes += OBJECT + str(b.id) + str(b.name) + str(b.slug);

  return { version: rows.version, products, categories: rows.categories, brands: rows.brands, refs, bytes };
}

/** The product and variant an identifier names, in the detail route's order; undefined when nothing shown matches. */
export function resolveRef(model: CatalogueModel, ref: string): { product: ModelProduct; variantId: string | null } | undefined {
  for (const map of model.refs) {
    const hit = map.get(ref);
    if (hit !== undefined) return hit ?? undefined;
  }
  return undefined;
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
