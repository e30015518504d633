import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { createMediaService } from '../media/media.service.js';
import { createCatalogueImportService } from './import/index.js';
import { DEFAULT_PHOTO_FETCH } from './import/photo-fetch.js';
import { createCatalogueService } from './catalogue.service.js';
import { createCatalogueCache } from './catalogue-cache.js';
import { createStockService } from './stock.service.js';
import { createFeedService } from './feed.service.js';

/**
 * The catalogue's services (photo links, browse/detail from the read model, import/export), spread into createServices.
 * Browse, detail and categories, and the models they build, read from `reads` (the replica when there is one).
 */
export function createCatalogueServices({ db, reads = db, config }: { db: Db; reads?: Db; config: Config }) {
  const media = createMediaService({ db, config });
  const catalogueCache = createCatalogueCache({ db: reads, capBytes: config.CATALOGUE_CACHE_MB * 1024 * 1024 });
  return {
    media,
    catalogueCache,
    catalogue: createCatalogueService({ db: reads, media, cache: catalogueCache }),
    catalogueImport: createCatalogueImportService({
      db,
      mediaDir: config.MEDIA_DIR,
      photoFetch: {
        ...DEFAULT_PHOTO_FETCH,
        allowHttp: config.IMPORT_PHOTO_ALLOW_LOCAL,
        allowPrivate: config.IMPORT_PHOTO_ALLOW_LOCAL,
        timeoutMs: config.IMPORT_PHOTO_TIMEOUT_MS,
        concurrency: config.IMPORT_PHOTO_CONCURRENCY,
      },
    }),
    stock: createStockService({ db }),
    feeds: createFeedService({ db, media }),
  };
}
