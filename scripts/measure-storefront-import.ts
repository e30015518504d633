/**
 * How long a large Shopify export takes to import:
 *   npx tsx scripts/measure-storefront-import.ts [--products 10000] [--variants 3] [--photos]
 * Writes a Shopify-shaped product CSV (HTML bodies, Indian prices written `1,299.00`, options Colour/Size, Hindi
 * titles on every tenth product), imports it into a new company in DATABASE_URL's database (the server's own
 * setting), imports it again (nothing changes) and prints both times. With --photos every product has one photo
 * served by a local server (IMPORT_PHOTO_ALLOW_LOCAL is set for this process only), so fetching is measured too.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openMigratedDatabase } from '../src/boot.js';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services.js';

const { values } = parseArgs({
  options: { products: { type: 'string', default: '10000' }, variants: { type: 'string', default: '3' }, photos: { type: 'boolean', default: false } },
});
const products = Number(values.products);
const perProduct = Number(values.variants);

const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from(req.url ?? '')]));
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const COLOURS = ['Indigo', 'Madder', 'Mustard', 'Black', 'Ivory'];
const SIZES = ['S', 'M', 'L', 'XL', 'XXL'];
const header =
  'Handle,Title,Body (HTML),Vendor,Product Category,Type,Tags,Published,Option1 Name,Option1 Value,Option2 Name,Option2 Value,Variant SKU,Variant Inventory Qty,Variant Price,Variant Compare At Price,Variant Barcode,Image Src,Image Position,Image Alt Text,Variant Image,Status';
const lines = [header];
for (let i = 0; i < products; i++) {
  const handle = `block-print-kurta-${i}`;
  const title = i % 10 === 0 ? `हाथ से छपा कुर्ता ${i}` : `Block Print Kurta ${i}`;
  for (let j = 0; j < perProduct; j++) {
    const first = j === 0;
    const price = 799 + (i % 40) * 50;
    const cells = [
      handle,
      first ? title : '',
      first ? `"<p>Hand block printed <strong>cotton</strong> kurta no. ${i}.</p>\n<ul><li>Machine wash</li><li>Made in Jaipur</li></ul>"` : '',
      first ? 'Desi Threads' : '',
      first ? 'Apparel & Accessories > Clothing > Kurtas' : '',
      first ? 'Kurta' : '',
      '',
      first ? 'true' : '',
      first ? 'Colour' : '',
      COLOURS[j % COLOURS.length],
      first ? 'Size' : '',
      SIZES[Math.floor(j / COLOURS.length) % SIZES.length],
      `DT-K${i}-${j}`,
      String((i * 7 + j) % 50),
      `"${price.toLocaleString('en-IN')}.00"`,
      `"${(price + 500).toLocaleString('en-IN')}.00"`,
      '',
      first && values.photos ? `${origin}/k${i}.png` : '',
      first && values.photos ? '1' : '',
      '',
      '',
      first ? 'active' : '',
    ];
    lines.push(cells.join(','));
  }
}
const csv = `${lines.join('\r\n')}\r\n`;
process.stderr.write(`wrote a Shopify export of ${products} products, ${products * perProduct} variants (${(csv.length / 1024 / 1024).toFixed(1)} MB)\n`);

process.env.IMPORT_PHOTO_ALLOW_LOCAL = 'true';
process.env.MEDIA_DIR = mkdtempSync(join(tmpdir(), 'measure-import-media-'));
const config = loadConfig();
const db = await openMigratedDatabase(config);
try {
  const services = createServices({ db, config });
  const suffix = randomBytes(3).toString('hex');
  const company = await services.companies.create({ kind: 'cli', name: 'bench' }, { name: `Shopify import ${suffix}`, slug: `shopify-import-${suffix}` });
  for (const round of ['first import', 'same file again']) {
    const started = performance.now();
    const result = await services.catalogueImport.importStorefront(company.id, { kind: 'cli', name: 'bench' }, csv, {
      baseDir: '.',
      taxRate: '5',
      hsn: '6211',
      onProgress: (done, total) => {
        if (done % 2000 === 0 || done === total) process.stderr.write(`  imported ${done}/${total} products\n`);
      },
      onPhotoProgress: (done, total) => {
        if (done % 2000 === 0 || done === total) process.stderr.write(`  photos ${done}/${total}\n`);
      },
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`${round}: ${JSON.stringify(result.summary)} in ${seconds} s; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  }
} finally {
  await db.close();
  server.close();
}
