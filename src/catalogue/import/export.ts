import { resolve } from 'node:path';
import type { Db } from '../../db/index.js';
import { findTaxProfile } from '../../companies/companies.queries.js';
import type { CatalogueFile } from '../../contract/catalogue-file.js';
import { pickFields, PRODUCT_FIELD_NAMES } from '../../contract/product-fields.js';
import { catalogueRows } from './import.queries.js';

/**
 * The company's catalogue in the import format. Photos are named `<photoPrefix><file name>`; the
 * caller copies `photos` (absolute source in MEDIA_DIR -> that name) beside the written file.
 */
export async function exportCatalogue(
  db: Db,
  mediaDir: string,
  companyId: string,
  photoPrefix = 'photos/',
): Promise<{ file: CatalogueFile; photos: Map<string, string> }> {
  const [locs, cats, brands, products, variants, stock, photoRows] = await catalogueRows(db, companyId);
  const photos = new Map<string, string>();
  const photoEntry = (ph: { path: string; alt: string | null }) => {
    const name = `${photoPrefix}${ph.path.split('/').at(-1)}`;
    photos.set(resolve(mediaDir, ph.path), name);
    return { file: name, alt: ph.alt };
  };
  const group = <T, K extends keyof T>(rows: T[], key: K) => {
    const m = new Map<T[K], T[]>();
    for (const r of rows) m.set(r[key], [...(m.get(r[key]) ?? []), r]);
    return m;
  };
  const variantsOf = group(variants, 'product_id');
  const stockOf = group(stock, 'variant_id');
  const photosOf = group(photoRows, 'product_id');
  const seller = await findTaxProfile(db, companyId);
  const file: CatalogueFile = {
    format: 'commerce-catalogue/1',
    ...(seller ? { seller } : {}),
    locations: locs,
    categories: cats.map(({ slug, name, parent }) => ({ slug, name, parent })),
    brands,
    products: products.map((p) => {
      const ph = photosOf.get(p.id) ?? [];
      return {
        sku: p.sku,
        name: p.name,
        ...pickFields(p, PRODUCT_FIELD_NAMES),
        active: p.active,
        category: p.category,
        brand: p.brand,
        photos: ph.filter((x) => x.variant_id === null).map(photoEntry),
        variants: (variantsOf.get(p.id) ?? []).map((v) => ({
          sku: v.sku,
          barcode: v.barcode,
          name: v.name,
          attributes: v.attributes,
          selling_price: v.selling_price,
          mrp: v.mrp,
          active: v.active,
          photos: ph.filter((x) => x.variant_id === v.id).map(photoEntry),
          stock: Object.fromEntries((stockOf.get(v.id) ?? []).map((s) => [s.code, s.on_hand])),
        })),
      };
    }),
  };
  return { file, photos };
}
