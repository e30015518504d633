import { writeTaxProfile } from '../../companies/companies.queries.js';
import { checkTaxProfile } from '../../companies/tax-profile.service.js';
import type { Db } from '../../db/index.js';
import type { CatalogueFile } from '../../contract/catalogue-file.js';
import { refreshInStockOfCompany, refreshListing, refreshSearchText } from '../catalogue.queries.js';
import { bumpCatalogueVersion } from '../read-model.queries.js';
import {
  activeShipFromId,
  clearBarcodes,
  clearShipFromExcept,
  deleteProductPhotos,
  idsByKey,
  insertPhoto,
  setCategoryParent,
  upsertBrand,
  upsertCategory,
  upsertLocation,
  upsertProduct,
  upsertStockLevel,
  upsertVariant,
} from './import.queries.js';
import type { PhotoCopy } from './photos.js';

const CHUNK = 200;

export interface ImportSummary {
  locations: number;
  categories: number;
  brands: number;
  products: number;
  variants: number;
  photos: number;
}

export interface ImportOptions {
  /** folder photo `file` paths are relative to (the import file's folder) */
  baseDir: string;
  onProgress?: (done: number, total: number) => void;
  /** after each photo named by URL is fetched */
  onPhotoProgress?: (done: number, total: number, failed: number) => void;
  /** a photo that cannot be fetched is left out (and told through onNote) instead of stopping the import */
  skipBadPhotos?: boolean;
  onNote?: (text: string) => void;
}

/** The import's statements: upserts everything by SKU/slug/code inside the caller's transaction (the file is already checked). */
export async function writeCatalogue(
  tx: Db,
  companyId: string,
  file: CatalogueFile,
  photos: Map<string, PhotoCopy>,
  onProgress?: ImportOptions['onProgress'],
): Promise<ImportSummary> {
  const summary: ImportSummary = { locations: 0, categories: 0, brands: 0, products: 0, variants: 0, photos: 0 };
  if (file.seller) await writeTaxProfile(tx, companyId, checkTaxProfile(undefined, file.seller), new Date());
  // the company's active ship-from location, before and after the file's locations: every in-stock flag follows it
  const shipFromBefore = file.locations.length ? await activeShipFromId(tx, companyId) : undefined;
  const shipFrom = file.locations.find((l) => l.ships_orders);
  if (shipFrom) await clearShipFromExcept(tx, companyId, shipFrom.code);
  for (const l of file.locations) {
    await upsertLocation(tx, companyId, l);
    summary.locations++;
  }
  const shipFromMoved = file.locations.length > 0 && (await activeShipFromId(tx, companyId)) !== shipFromBefore;
  for (const c of file.categories) {
    await upsertCategory(tx, companyId, c);
    summary.categories++;
  }
  for (const c of file.categories) await setCategoryParent(tx, companyId, c);
  for (const b of file.brands) {
    await upsertBrand(tx, companyId, b);
    summary.brands++;
  }
  // one connection in a transaction: one statement at a time
  const categoryId = await idsByKey(tx, companyId, 'categories', 'slug');
  const brandId = await idsByKey(tx, companyId, 'brands', 'slug');
  const locationId = await idsByKey(tx, companyId, 'stock_locations', 'code');

  // Barcodes may move between variants of this file: clear them first so the unique index never trips midway.
  const fileSkus = file.products.flatMap((p) => p.variants.map((v) => v.sku));
  if (fileSkus.length) await clearBarcodes(tx, companyId, fileSkus);

  let pending: string[] = [];
  for (const [i, p] of file.products.entries()) {
    const productId = await upsertProduct(tx, companyId, p, p.category ? categoryId.get(p.category) : null, p.brand ? brandId.get(p.brand) : null);
    await deleteProductPhotos(tx, companyId, productId);
    let position = 0;
    const addPhoto = async (ph: { file: string; alt: string | null }, variantId: string | null) => {
      await insertPhoto(tx, companyId, productId, variantId, photos.get(ph.file)!.target, ph.alt, position++);
      summary.photos++;
    };
    for (const ph of p.photos) await addPhoto(ph, null);
    for (const [j, v] of p.variants.entries()) {
      const name = v.name ?? (Object.values(v.attributes).join(' / ') || p.name);
      const variantId = await upsertVariant(tx, companyId, productId, v, name, j);
      for (const [code, onHand] of Object.entries(v.stock)) await upsertStockLevel(tx, companyId, variantId, locationId.get(code), onHand);
      for (const ph of v.photos) await addPhoto(ph, variantId);
      summary.variants++;
    }
    summary.products++;
    pending.push(productId);
    if (pending.length >= CHUNK || i === file.products.length - 1) {
      await refreshSearchText(tx, companyId, pending);
      await refreshListing(tx, companyId, pending);
      pending = [];
      onProgress?.(i + 1, file.products.length);
    }
  }
  if (shipFromMoved) await refreshInStockOfCompany(tx, companyId); // the rule reads another location now
  // categories, brands and photos too: every instance's read model is rebuilt on its next request
  await bumpCatalogueVersion(tx, companyId);
  return summary;
}
