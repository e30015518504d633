/**
 * What one company's catalogue read model costs in memory:
 *   node --expose-gc --import tsx scripts/measure-read-model.ts --products 100000 [--variants 3]
 *   node --expose-gc --import tsx scripts/measure-read-model.ts --company <id|slug>
 * Makes a company with a generated catalogue in DATABASE_URL's database (the server's own setting), or takes an
 * existing one, then builds its model and prints the heap and RSS it added, the build time and the cache's estimate.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { openMigratedDatabase } from '../src/boot.js';
import { loadConfig } from '../src/config.js';
import { generateCatalogue } from '../src/catalogue/catalogue.generate.js';
import { createCatalogueCache } from '../src/catalogue/catalogue-cache.js';
import { createServices } from '../src/services.js';
import { progress } from '../src/cli/output.js';

const { values } = parseArgs({
  options: { products: { type: 'string', default: '100000' }, variants: { type: 'string', default: '3' }, company: { type: 'string' } },
});
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc --import tsx');
const config = loadConfig();
const db = await openMigratedDatabase(config);
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
try {
  const companies = createServices({ db, config }).companies;
  const suffix = randomBytes(3).toString('hex');
  const company = values.company
    ? await companies.get(values.company)
    : await companies.create({ kind: 'cli', name: 'bench' }, { name: `Read model ${suffix}`, slug: `read-model-${suffix}` });
  if (!values.company) {
    await generateCatalogue(db, company.id, {
      products: Number(values.products),
      variantsPerProduct: Number(values.variants),
      onProgress: (done, total) => progress('generated', done, total, 'products'),
    });
  }
  const cache = createCatalogueCache({ db, capBytes: Number.MAX_SAFE_INTEGER });
  gc();
  const before = process.memoryUsage();
  const started = performance.now();
  const model = await cache.get(company.id);
  const buildMs = performance.now() - started;
  const peakRss = process.memoryUsage().rss;
  gc();
  const after = process.memoryUsage();
  console.log(
    `${model.products.length} listed products, ${model.products.reduce((n, p) => n + p.variants.length, 0)} active variants: model built in ${(buildMs / 1000).toFixed(1)} s; ` +
      `heap +${mb(after.heapUsed - before.heapUsed)} (${mb(after.heapUsed)} in all), RSS +${mb(after.rss - before.rss)} after GC ` +
      `(${mb(after.rss)} in all; ${mb(peakRss)} right after the build; V8 heap committed ${mb(after.heapTotal)}, external ${mb(after.external)}); ` +
      `the cache's estimate ${mb(model.bytes)}`,
  );
} finally {
  await db.close();
}
