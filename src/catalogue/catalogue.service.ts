import type { Db } from '../db/index.js';
import type { Tenant } from '../keys/keys.service.js';
import { Decimal } from 'decimal.js';
import { notFound } from '../lib/errors.js';
import type { MediaService, PhotoLinker } from '../media/media.service.js';
import type { BrowseQuery, BrowseResult, CategoriesResult, Product, ProductDetail, Variant } from './catalogue.schemas.js';
import * as q from './catalogue.queries.js';

const money = (v: Decimal.Value) => new Decimal(v).toFixed(2);
const quantity = (v: Decimal.Value) => new Decimal(v).toFixed(3);
const notNegative = (v: string) => Decimal.max(new Decimal(v), 0);

/** Product row -> the spec's Product shape; availability and ranges from active variants only. */
function shapeProduct(row: q.ProductRow, link: PhotoLinker): Product {
  const mainPhoto = row.photos.find((ph) => ph.variant_id === null) ?? row.photos[0];
  const productImage = mainPhoto ? link(mainPhoto.path) : null;
  const options: Record<string, string[]> = {};
  let available = new Decimal(0);
  let availableTotal = new Decimal(0);
  let min: Decimal | undefined;
  let max: Decimal | undefined;

  const variants: Variant[] = row.variants.map((v) => {
    const vAvailable = notNegative(v.ship_net);
    const vTotal = notNegative(v.total_net);
    available = available.plus(vAvailable);
    availableTotal = availableTotal.plus(vTotal);
    const price = new Decimal(v.selling_price);
    if (!min || price.lt(min)) min = price;
    if (!max || price.gt(max)) max = price;
    for (const [name, value] of Object.entries(v.attributes ?? {})) {
      const values = (options[name] ??= []);
      if (!values.includes(String(value))) values.push(String(value));
    }
    const own = row.photos.find((ph) => ph.variant_id === v.id);
    return {
      variant_id: v.id,
      sku: v.sku,
      barcode: v.barcode,
      name: v.name,
      attributes: Object.fromEntries(Object.entries(v.attributes ?? {}).map(([k, val]) => [k, String(val)])),
      selling_price: money(v.selling_price),
      mrp: money(v.mrp),
      available: quantity(vAvailable),
      available_total: quantity(vTotal),
      in_stock: vAvailable.gt(0),
      image_url: own ? link(own.path) : productImage,
    };
  });

  return {
    product_id: row.id,
    sku: row.sku,
    name: row.name,
    description: row.description,
    category: row.category_id
      ? { id: row.category_id, name: row.category_name ?? '', slug: row.category_slug ?? '', parent: row.category_parent }
      : null,
    brand: row.brand_id ? { id: row.brand_id, name: row.brand_name ?? '' } : null,
    unit: row.unit,
    hsn_code: row.hsn_code,
    tax_rate: money(row.tax_rate),
    currency: 'INR',
    price_range: { min: money(min ?? 0), max: money(max ?? 0) },
    options,
    available: quantity(available),
    available_total: quantity(availableTotal),
    in_stock: available.gt(0),
    image_url: productImage,
    variants,
  };
}

export function createCatalogueService({ db, media }: { db: Db; media: Pick<MediaService, 'linker'> }) {
  return {
    /** GET /catalog/products: the page (ids from the browse index, then those products in full) and the exact total, in parallel. */
    async browse(tenant: Tenant, query: BrowseQuery, origin: string): Promise<BrowseResult> {
      const { companyId } = tenant;
      const { limit, offset } = query;
      const empty = { data: [], count: 0, total: 0, limit, offset, has_more: false };
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
      const data = rows.map((row) => shapeProduct(row, link));
      return { data, count: data.length, total, limit, offset, has_more: offset + rows.length < total };
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
