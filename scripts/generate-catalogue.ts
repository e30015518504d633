/**
 * Large synthetic catalogue for benchmarks:
 *   npx tsx scripts/generate-catalogue.ts --company <id|slug> --products 100000 [--variants 3]
 * Uses DATABASE_URL (or the embedded database in DATA_DIR), like the server. Progress on stderr.
 */
import { parseArgs } from 'node:util';
import { openMigratedDatabase } from '../src/boot.js';
import { loadConfig } from '../src/config.js';
import { generateCatalogue } from '../src/catalogue/catalogue.generate.js';
import { createServices } from '../src/services.js';
import { progress } from '../src/cli/output.js';

const { values } = parseArgs({ options: { company: { type: 'string' }, products: { type: 'string' }, variants: { type: 'string', default: '3' } } });
const products = Number(values.products);
if (!values.company || !Number.isInteger(products) || products < 1) {
  process.stderr.write('usage: npx tsx scripts/generate-catalogue.ts --company <id|slug> --products <n> [--variants <n>]\n');
  process.exit(2);
}
const config = loadConfig();
const db = await openMigratedDatabase(config);
try {
  const company = await createServices({ db, config }).companies.get(values.company);
  const started = Date.now();
  const made = await generateCatalogue(db, company.id, {
    products,
    variantsPerProduct: Number(values.variants),
    onProgress: (done, total) => progress('generated', done, total, 'products'),
  });
  process.stderr.write(`${made.products} products, ${made.variants} variants in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  await db.query((await import('drizzle-orm')).sql`ANALYZE products, variants, stock_levels`);
} finally {
  await db.close();
}
