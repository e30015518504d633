import type { Db } from '../db/index.js';
import type { Tenant } from '../keys/keys.service.js';
import { notFound } from '../contract/errors.js';
import type { MediaService, PhotoLinker } from '../media/media.service.js';
import type { BrowseQuery, CategoriesResult, Product, ProductDetail, Variant } from '../contract/catalogue.js';
import type { Page } from '../contract/paging.js';
import * as q from './catalogue.queries.js';

/**
 * Product row -> the spec's Product shape. Every figure arrives as exact decimal text from SQL (availability
 * and price range over active variants); here only photos, options and the shape are assembled.
 */
function shapeProduct(row: q.ListedProduct, link: PhotoLinker): Product {
  const mainPhoto = row.photos.find((ph) => ph.variant_id === null) ?? row.photos[0];
  const productImage = mainPhoto ? link(mainPhoto.path) : null;
  const options: Record<string, string[]> = {};

  const variants: Variant[] = row.variants.map((v) => {
    const attributes: Record<string, string> = {};
    for (const [name, value] of Object.entries(v.attributes ?? {})) {
      attributes[name] = String(value);
      const values = (options[name] ??= []);
      if (!values.includes(attributes[name])) values.push(attributes[name]);
    }
    const own = row.photos.find((ph) => ph.variant_id === v.id);
    return {
      variant_id: v.id,
      sku: v.sku,
      barcode: v.barcode,
      name: v.name,
      attributes,
      selling_price: v.selling_price,
      mrp: v.mrp,
      available: v.available,
      available_total: v.available_total,
      in_stock: v.in_stock,
      image_url: own ? link(own.path) : productImage,
    };
  });

  return {
    product_id: row.id,
    sku: row.sku,
    name: row.name,
    description: row.description,
    category: row.category_id ? { id: row.category_id, name: row.category_name ?? '', slug: row.category_slug ?? '', parent: row.category_parent } : null,
    brand: row.brand_id ? { id: row.brand_id, name: row.brand_name ?? '' } : null,
    unit: row.unit,
    hsn_code: row.hsn_code,
    tax_rate: row.tax_rate,
    currency: 'INR',
    price_range: { min: row.price_min ?? '0.00', max: row.price_max ?? '0.00' },
    options,
    available: row.available,
    available_total: row.available_total,
    in_stock: row.in_stock,
    image_url: productImage,
    variants,
  };
}

export function createCatalogueService({ db, media }: { db: Db; media: Pick<MediaService, 'linker'> }) {
  return {
    /** GET /catalog/products: the page (ids from the browse index, then those products in full) and the exact total, in parallel. */
    async browse(tenant: Tenant, query: BrowseQuery, origin: string): Promise<Page<Product>> {
      const { companyId } = tenant;
      const { limit, offset } = query;
      const empty = { rows: [], total: 0 };
      const filter: q.PageFilter = { words: q.searchWords(query.search), inStock: query.in_stock === true };
      if (query.category) {
        filter.categoryIds = await q.categoryTreeIds(db, companyId, query.category);
        if (filter.categoryIds.length === 0) return empty;
      }
      if (query.brand) {
        filter.brandIds = await q.brandIds(db, companyId, query.brand);
        if (filter.brandIds.length === 0) return empty;
      }
      const [rows, total, link] = await Promise.all([
        q.productPage(db, companyId, filter, limit, offset),
        q.countProducts(db, companyId, filter),
        media.linker(origin),
      ]);
      return { rows: rows.map((row) => shapeProduct(row, link)), total };
    },

    /** GET /catalog/products/{id}: by product id or SKU, or a variant's id, SKU or barcode. */
    async getProduct(tenant: Tenant, id: string, origin: string): Promise<ProductDetail> {
      const { companyId } = tenant;
      const [row, link] = await Promise.all([q.productByRef(db, companyId, id), media.linker(origin)]);
      if (!row || row.variants.length === 0) throw notFound(`no product "${id}" in this catalogue`);
      return {
        ...shapeProduct(row, link),
        matched_variant_id: row.matched_variant_id,
        images: row.photos.map((ph) => ({ url: link(ph.path), alt: ph.alt, variant_id: ph.variant_id })),
      };
    },

    /** GET /catalog/categories. */
    async listCategories(tenant: Tenant): Promise<CategoriesResult> {
      const [categories, brands] = await Promise.all([q.categoryEntries(db, tenant.companyId), q.brandEntries(db, tenant.companyId)]);
      return { categories, brands };
    },
  };
}

export type CatalogueService = ReturnType<typeof createCatalogueService>;
