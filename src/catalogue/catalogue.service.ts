import type { Tenant } from '../keys/keys.service.js';
import { notFound } from '../contract/errors.js';
import { Decimal, qty } from '../lib/money.js';
import type { MediaService, PhotoLinker } from '../media/media.service.js';
import type { BrowseQuery, CategoriesResult, Product, ProductDetail, Variant } from '../contract/catalogue.js';
import { BESIDE_NAME, DETAILS, pickFields } from '../contract/product-fields.js';
import type { Page } from '../contract/paging.js';
import type { Db } from '../db/index.js';
import { filterSql, likeWord, searchWords, type PageFilter } from './catalogue.queries.js';
import { tenantReader } from '../keys/key-check.js';
import { indexedPage, stockOf, type PageStock } from './read-model.queries.js';
import { brandSet, categoryTree, positionsOf, productById, productsMatching, resolveRef, type CatalogueModel, type ModelProduct } from './read-model.js';
import type { CatalogueCache } from './catalogue-cache.js';

const NO_STOCK: [string, string] = ['0.000', '0.000'];
const positive = (quantity: string) => !/^0\.0+$/.test(quantity);

/**
 * A product of the model with the live stock of this request -> the spec's Product shape. Every figure is exact
 * decimal text: prices from the model, each variant's availability as the statement computed it, the product's the
 * sum over its variants (decimal.js).
 */
function shapeProduct(p: ModelProduct, stock: PageStock, link: PhotoLinker): Product {
  const mainPhoto = p.photos.find((ph) => ph.variant_id === null) ?? p.photos[0];
  const productImage = mainPhoto ? link(mainPhoto.path) : null;
  const options: Record<string, string[]> = {};
  let sum = new Decimal(0);
  let sumTotal = new Decimal(0);
  const variants: Variant[] = p.variants.map((v) => {
    for (const [name, value] of Object.entries(v.attributes)) {
      const values = (options[name] ??= []);
      if (!values.includes(value)) values.push(value);
    }
    const own = p.photos.find((ph) => ph.variant_id === v.id);
    const [available, availableTotal] = stock.variants?.[v.id] ?? NO_STOCK;
    sum = sum.plus(available);
    sumTotal = sumTotal.plus(availableTotal);
    return {
      variant_id: v.id,
      sku: v.sku,
      barcode: v.barcode,
      name: v.name,
      attributes: v.attributes,
      selling_price: v.selling_price,
      mrp: v.mrp,
      available,
      available_total: availableTotal,
      in_stock: positive(available),
      image_url: own ? link(own.path) : productImage,
    };
  });
  // the product's figures: the sums over its active variants (the model's), as exact as theirs
  const available = qty(sum);
  const availableTotal = qty(sumTotal);
  return {
    product_id: p.id,
    sku: p.sku,
    name: p.name,
    ...pickFields(p, BESIDE_NAME),
    category: p.category,
    brand: p.brand,
    ...pickFields(p, DETAILS),
    currency: 'INR',
    price_range: { min: p.price_min, max: p.price_max },
    options,
    available,
    available_total: availableTotal,
    in_stock: positive(available),
    image_url: productImage,
    variants,
  };
}

/** A model read cannot settle after this many rebuilds in one request only if the catalogue changes that often. */
const ATTEMPTS = 3;

/**
 * The catalogue answered from the company's read model (products, variants, photos, categories, brands; no stock)
 * held by `cache`, and the live stock of the products shown, read with the catalogue version in one statement per
 * request. A request whose statement shows another version than its model's rebuilds the model and answers again, so
 * a catalogue change shows from the next request on every instance; stock is never cached.
 */
export function createCatalogueService({ db, media, cache }: { db: Db; media: Pick<MediaService, 'linker'>; cache: CatalogueCache }) {
  /**
   * Runs `read` against the current model until the version its statement saw is the model's own. The first statement
   * goes through the request's reader, which settles the key before anything of the company is used (a rebuild included).
   */
  async function settled<T extends { version: string }>(
    tenant: Tenant,
    read: (model: CatalogueModel) => Promise<T>,
    reuse?: (model: CatalogueModel, seen: T) => boolean,
  ): Promise<{ model: CatalogueModel; seen: T }> {
    const { companyId } = tenant;
    let model = await cache.get(companyId);
    let seen = await read(model);
    for (let attempt = 1; seen.version !== model.version && attempt < ATTEMPTS; attempt++) {
      model = await cache.refresh(companyId, model);
      // the statement's own answer stands when the rebuilt model is at the version it saw (database-chosen pages)
      if (seen.version === model.version && reuse?.(model, seen)) break;
      seen = await read(model);
    }
    return { model, seen };
  }

  return {
    /** GET /catalog/products: the page from the model, or from the database's indexes for in_stock and unseen search words. */
    async browse(tenant: Tenant, query: BrowseQuery, origin: string): Promise<Page<Product>> {
      const { companyId } = tenant;
      const reader = tenantReader(db, tenant);
      const { limit, offset } = query;
      const words = searchWords(query.search);
      const inStock = query.in_stock === true;
      const linking = media.linker(origin);
      linking.catch(() => {}); // awaited below; a refusal before then must not go unhandled

      /** The filter's category and brand ids from the model; undefined ids: no filter; an empty set matches nothing. */
      const filterOf = (model: CatalogueModel) => ({
        categories: query.category ? categoryTree(model, query.category) : undefined,
        brands: query.brand ? brandSet(model, query.brand) : undefined,
      });

      /**
       * The page chosen by the model: every listed product, or those of the category and brand, and of the search words
       * when the model has seen each of them (WordCache); undefined when it has not, or for in_stock (the database).
       */
      const pick = (model: CatalogueModel) => {
        if (inStock) return undefined;
        const { categories, brands } = filterOf(model);
        let all = words.length ? productsMatching(model, words) : model.products;
        if (!all) return undefined;
        if (categories || brands)
          all = all.filter(
            (p) => (!categories || (p.categoryId !== null && categories.has(p.categoryId))) && (!brands || (p.brandId !== null && brands.has(p.brandId))),
          );
        return { model, rows: all.slice(offset, offset + limit), total: all.length };
      };

      /** One statement: the version and the page's stock, and the page itself when the database's indexes choose it. */
      const read = async (model: CatalogueModel) => {
        const picked = pick(model);
        if (picked)
          return {
            ...(await stockOf(
              reader,
              picked.rows.flatMap((p) => p.variants.map((v) => v.id)),
            )),
            picked,
          };
        const { categories, brands } = filterOf(model);
        if ((categories && categories.size === 0) || (brands && brands.size === 0)) return { ...(await stockOf(reader, [])), ids: [], total: 0 };
        const f: PageFilter = { words, inStock, categoryIds: categories && [...categories], brandIds: brands && [...brands] };
        const { where, shape } = filterSql(companyId, f);
        const inStockOnly = inStock && words.length === 0 && !f.categoryIds && !f.brandIds;
        const unseen = words.filter((w) => !model.words.get(w));
        const seen = await indexedPage(reader, where, shape, limit, offset, { inStockOnly, remember: unseen.map(likeWord) });
        // the words' matches describe this model only if the statement saw its version
        if (seen.matches && seen.version === model.version) unseen.forEach((w, i) => model.words.set(w, positionsOf(model, seen.matches![i])));
        return seen;
      };
      const reuse = (model: CatalogueModel, seen: Awaited<ReturnType<typeof read>>) => 'ids' in seen && seen.ids.every((id) => productById(model, id));
      const { model, seen } = await settled(tenant, read, reuse);
      const link = await linking;
      if ('picked' in seen && seen.picked?.model === model) {
        return { rows: seen.picked.rows.map((p) => shapeProduct(p, seen, link)), total: seen.picked.total };
      }
      const ids = 'ids' in seen ? seen.ids : [];
      const rows = ids.map((id) => productById(model, id)).filter((p): p is ModelProduct => p !== undefined);
      return { rows: rows.map((p) => shapeProduct(p, seen, link)), total: 'total' in seen ? seen.total : 0 };
    },

    /** GET /catalog/products/{id}: by product id or SKU, or a variant's id, SKU or barcode. */
    async getProduct(tenant: Tenant, id: string, origin: string): Promise<ProductDetail> {
      const linking = media.linker(origin);
      linking.catch(() => {}); // awaited below; a 404 before then must not leave it unhandled
      const reader = tenantReader(db, tenant);
      const { model, seen } = await settled(tenant, (m) => {
        const hit = resolveRef(m, id);
        return stockOf(reader, hit ? hit.product.variants.map((v) => v.id) : []);
      });
      const hit = resolveRef(model, id);
      if (!hit || hit.product.variants.length === 0) throw notFound(`no product "${id}" in this catalogue`);
      const link = await linking;
      return {
        ...shapeProduct(hit.product, seen, link),
        matched_variant_id: hit.variantId,
        images: hit.product.photos.map((ph) => ({ url: link(ph.path), alt: ph.alt, variant_id: ph.variant_id })),
      };
    },

    /** GET /catalog/categories: from the model, after the version check every read makes. */
    async listCategories(tenant: Tenant): Promise<CategoriesResult> {
      const { model } = await settled(tenant, () => stockOf(tenantReader(db, tenant), []));
      return { categories: model.categories, brands: model.brands };
    },
  };
}

export type CatalogueService = ReturnType<typeof createCatalogueService>;
