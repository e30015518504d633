/**
 * The service as bench/public-links.ts measures it: the real app, with one switch. BENCH_DRAW_EACH_TIME=1 gives the
 * invoice links a store that never keeps anything, so every fetch draws its PDF again (as before the PDFs were stored);
 * otherwise the stored bytes are served as in production. Limits come from the environment like the service's.
 */
import { buildApp } from '../src/app.js';
import { openMigratedDatabase } from '../src/boot.js';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services.js';
import { createInvoiceFilesService } from '../src/fulfilment/invoice-files.service.js';
import { createOrderViews } from '../src/fulfilment/order-view.js';
import { serveBench } from './harness.js';

const config = loadConfig({ LOG_LEVEL: 'warn', SEED_DEMO: 'false', ...process.env });
const db = await openMigratedDatabase(config);
const services = createServices({ db, config });
if (process.env.BENCH_DRAW_EACH_TIME === '1') {
  const views = createOrderViews({ db, clock: () => new Date() });
  const files = createInvoiceFilesService({ db, views, store: { find: () => Promise.resolve(undefined), save: () => Promise.resolve() } });
  services.fulfilment = { ...services.fulfilment, documentPdf: files.byId.bind(files), documentStats: files.stats };
}
const app = await buildApp({ config, db, services });
app.get('/bench/document-stats', async () => services.fulfilment.documentStats());
await serveBench(app, [() => db.close()]);
