import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { createMediaService } from '../media/media.service.js';
import { createCatalogueImportService } from './import/index.js';
import { createCatalogueService } from './catalogue.service.js';

/** The catalogue's services (photo links, browse/detail, import/export), spread into createServices. */
export function createCatalogueServices({ db, config }: { db: Db; config: Config }) {
  const media = createMediaService({ db, config });
  return {
    media,
    catalogue: createCatalogueService({ db, media }),
    catalogueImport: createCatalogueImportService({ db, mediaDir: config.MEDIA_DIR }),
  };
}
