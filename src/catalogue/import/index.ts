import type { Db } from '../../db/index.js';
import { analyzeCatalogue } from '../catalogue.queries.js';
import { checkCatalogue } from './check.js';
import { exportCatalogue } from './export.js';
import { copyPhotos } from './photos.js';
import { writeCatalogue, type ImportOptions, type ImportSummary } from './write.js';

export type { ImportOptions, ImportSummary } from './write.js';

/**
 * Catalogue import and export (docs/catalogue-import.md). Import checks the whole file first and
 * reports every problem with its place; then upserts everything by SKU/slug/code in one transaction.
 */
export function createCatalogueImportService({ db, mediaDir }: { db: Db; mediaDir: string }) {
  return {
    /** Checks everything, copies photos (content-addressed, so re-imports reuse them), then writes in one transaction. */
    async importCatalogue(companyId: string, input: unknown, opts: ImportOptions): Promise<ImportSummary> {
      const { file, photos } = await checkCatalogue(db, companyId, input, opts.baseDir);
      copyPhotos(mediaDir, companyId, photos.values());
      const summary = await db.tx((tx) => writeCatalogue(tx, companyId, file, photos, opts.onProgress));
      await analyzeCatalogue(db);
      return summary;
    },

    /**
     * The company's catalogue in the import format. Photos are named `<photoPrefix><file name>`; the
     * caller copies `photos` (absolute source in MEDIA_DIR -> that name) beside the written file.
     */
    exportCatalogue: (companyId: string, photoPrefix = 'photos/') => exportCatalogue(db, mediaDir, companyId, photoPrefix),
  };
}

export type CatalogueImportService = ReturnType<typeof createCatalogueImportService>;
