import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError, type FieldIssue } from '../../contract/errors.js';
import type { Db } from '../../db/index.js';
import { recordAudit, type Actor } from '../../db/audit-log.js';
import { analyzeCatalogue } from '../catalogue.queries.js';
import { checkCatalogue } from './check.js';
import { exportCatalogue } from './export.js';
import { firstShipFromCode } from './import.queries.js';
import { DEFAULT_PHOTO_FETCH, fetchPhotos, isPhotoUrl, type Fetched, type PhotoFetchPolicy } from './photo-fetch.js';
import { copyPhotos } from './photos.js';
import { placeOf, readStorefrontExport, TaxMapping, type StorefrontFormat } from './storefront/index.js';
import { writeCatalogue, type ImportOptions, type ImportSummary } from './write.js';

export type { ImportOptions, ImportSummary } from './write.js';
export { STOREFRONT_FORMATS, type StorefrontFormat } from './storefront/index.js';

/** Options of an import from a Shopify or WooCommerce export (docs/catalogue-import.md). */
export interface StorefrontImportOptions extends ImportOptions {
  format?: StorefrontFormat;
  /** GST rate and HSN code for every product, refined by `taxMap` (a CSV: match, tax_rate, hsn_code) */
  taxRate?: string;
  hsn?: string;
  taxMap?: string;
  /** the location code the export's stock goes to; default the one that ships orders (MAIN is made when none is) */
  location?: string;
}

interface PhotoRef {
  file: string;
}
type Entry = { photos?: PhotoRef[]; variants?: { photos?: PhotoRef[] }[] };

/** Every photo `file` of the (unchecked) input that is a URL. */
function photoUrls(input: unknown): string[] {
  const products = (input as { products?: unknown } | null)?.products;
  if (!Array.isArray(products)) return [];
  const urls: string[] = [];
  const take = (photos: unknown) => {
    if (Array.isArray(photos)) for (const ph of photos as PhotoRef[]) if (typeof ph?.file === 'string' && isPhotoUrl(ph.file)) urls.push(ph.file);
  };
  for (const p of products as Entry[]) {
    take(p?.photos);
    if (Array.isArray(p?.variants)) for (const v of p.variants) take(v?.photos);
  }
  return urls;
}

/** The input without the photos that could not be fetched (the import goes on without them). */
function withoutPhotos(input: unknown, failed: Set<string>): unknown {
  const copy = structuredClone(input) as { products: Entry[] };
  const keep = (photos?: PhotoRef[]) => photos?.filter((ph) => !failed.has(ph.file));
  for (const p of copy.products) {
    if (Array.isArray(p.photos)) p.photos = keep(p.photos);
    if (Array.isArray(p.variants)) for (const v of p.variants) if (Array.isArray(v.photos)) v.photos = keep(v.photos);
  }
  return copy;
}

/**
 * Catalogue import and export (docs/catalogue-import.md). Import checks the whole file first and
 * reports every problem with its place; then upserts everything by SKU/slug/code in one transaction.
 */
export function createCatalogueImportService({ db, mediaDir, photoFetch = DEFAULT_PHOTO_FETCH }: { db: Db; mediaDir: string; photoFetch?: PhotoFetchPolicy }) {
  /** Checks everything, copies photos (content-addressed, so re-imports reuse them), then writes in one transaction. */
  async function importCatalogue(
    companyId: string,
    actor: Actor,
    input: unknown,
    opts: ImportOptions,
    format: 'json' | StorefrontFormat = 'json',
  ): Promise<ImportSummary> {
    const urls = photoUrls(input);
    const dir = urls.length ? mkdtempSync(join(tmpdir(), 'import-photos-')) : undefined;
    try {
      let fetched = new Map<string, Fetched>();
      if (dir) {
        fetched = await fetchPhotos(urls, dir, photoFetch, opts.onPhotoProgress);
        const failed = [...fetched].flatMap(([url, f]) => ('problem' in f ? [[url, f.problem] as const] : []));
        if (failed.length && opts.skipBadPhotos) {
          input = withoutPhotos(input, new Set(failed.map(([url]) => url)));
          for (const [, problem] of failed) opts.onNote?.(`photo left out: ${problem}`);
        }
      }
      const { file, photos } = await checkCatalogue(db, companyId, input, opts.baseDir, fetched);
      copyPhotos(mediaDir, companyId, photos.values());
      const summary = await db.tx(async (tx) => {
        const written = await writeCatalogue(tx, companyId, file, photos, opts.onProgress);
        // counts only; a seller block in the file also set the tax profile
        await recordAudit(tx, companyId, actor, { action: 'catalogue.imported', detail: { format, ...written, tax_profile: Boolean(file.seller) } });
        return written;
      });
      await analyzeCatalogue(db);
      return summary;
    } finally {
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  }

  return {
    importCatalogue: (companyId: string, actor: Actor, input: unknown, opts: ImportOptions) => importCatalogue(companyId, actor, input, opts),

    /**
     * A Shopify or WooCommerce product export: read into our format (every problem with its line and column), then
     * imported with the same checks, one transaction and upsert. Notes say what the seller should know (products
     * without an HSN code, SKUs made, stock not tracked, photos left out).
     */
    async importStorefront(
      companyId: string,
      actor: Actor,
      text: string,
      opts: StorefrontImportOptions,
    ): Promise<{ format: StorefrontFormat; summary: ImportSummary; notes: string[] }> {
      const shipFromCode = await firstShipFromCode(db, companyId);
      const location = opts.location ?? shipFromCode ?? 'MAIN';
      const tax = new TaxMapping({ tax_rate: opts.taxRate ?? null, hsn_code: opts.hsn ?? null }, opts.taxMap);
      const converted = readStorefrontExport(text, {
        format: opts.format,
        tax,
        location,
        newLocation: opts.location || shipFromCode !== undefined ? undefined : { code: 'MAIN', name: 'Main warehouse' },
      });
      const notes = [...converted.notes];
      try {
        const summary = await importCatalogue(companyId, actor, converted.file, { ...opts, onNote: (n) => notes.push(n) }, converted.format);
        return { format: converted.format, summary, notes };
      } catch (err) {
        // the import's own problems (a SKU taken by another product, a photo, a price below MRP) told by line and column
        if (err instanceof AppError && Array.isArray(err.details)) {
          const details = (err.details as FieldIssue[]).map((d) => ({ ...d, path: placeOf(d.path, converted.origins) }));
          throw new AppError(err.kind, `${err.message}; first: ${details[0]?.path}: ${details[0]?.message}`, details);
        }
        throw err;
      }
    },

    /**
     * The company's catalogue in the import format. Photos are named `<photoPrefix><file name>`; the
     * caller copies `photos` (absolute source in MEDIA_DIR -> that name) beside the written file.
     */
    exportCatalogue: (companyId: string, photoPrefix = 'photos/') => exportCatalogue(db, mediaDir, companyId, photoPrefix),
  };
}

export type CatalogueImportService = ReturnType<typeof createCatalogueImportService>;
