import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppError, type FieldIssue } from '../../contract/errors.js';
import { generateCatalogue } from '../../catalogue/catalogue.generate.js';
import { readStockFile } from '../../catalogue/stock-file.js';
import { STOREFRONT_FORMATS, type StorefrontFormat } from '../../catalogue/import/index.js';
import { parse, str, UsageError } from '../args.js';
import type { CommandGroup } from '../command.js';

const companyFlag = { company: { type: 'string' } } as const;

type Ctx = Parameters<CommandGroup[string]['run']>[1];

/** The company named by --company (a usage error when it is missing). */
async function companyOf(values: Record<string, unknown>, ctx: Ctx) {
  const slug = str(values.company);
  if (!slug) throw new UsageError('--company is required');
  return ctx.services.companies.get(slug);
}

/** Text decoded, or a validation error naming the file it came from. */
function decoded<T>(path: string, text: () => string, decode: (text: string) => T): T {
  try {
    return decode(text());
  } catch (err) {
    throw new AppError('validation_failed', `cannot read ${path}: ${(err as Error).message}`);
  }
}

/** A file given on the command line, read and decoded; a file that cannot be read or decoded is a validation error. */
function readInput<T>(ctx: Ctx, file: string, decode: (text: string) => T): { path: string; value: T } {
  const path = ctx.file(file);
  return { path, value: decoded(path, () => readFileSync(path, 'utf8'), decode) };
}

const isLoopback = (origin: string) => ['localhost', '127.0.0.1', '[::1]'].includes(new URL(origin).hostname);

/** A refusal with a list of problems: each on its own line (or the list as JSON with --json); nothing was changed. */
function printProblems(err: unknown, ctx: Ctx): void {
  if (!(err instanceof AppError) || !Array.isArray(err.details)) return;
  if (ctx.json) ctx.out(JSON.stringify({ error: err.message, problems: err.details }, null, 2));
  else for (const p of err.details as FieldIssue[]) ctx.err(`  ${p.path}: ${p.message}\n`);
}

/**
 * `catalog import|export|generate`. Import problems are printed one a line with their place in the file;
 * nothing is changed when there is any.
 */
export const catalogCommands: CommandGroup = {
  'catalog import': {
    usage:
      'catalog import --company <id|slug> <file.json | shopify.csv | woocommerce.csv> [--format json|shopify|woocommerce] [--tax-rate <GST %>] [--hsn <code>] [--tax-map <map.csv>] [--location <code>] [--skip-bad-photos]',
    summary: 'import (upsert by SKU/slug/code) our catalogue file or a Shopify/WooCommerce product export in one transaction; see docs/catalogue-import.md',
    async run(argv, ctx) {
      const { values, pos } = parse(
        argv,
        {
          ...companyFlag,
          format: { type: 'string' },
          'tax-rate': { type: 'string' },
          hsn: { type: 'string' },
          'tax-map': { type: 'string' },
          location: { type: 'string' },
          'skip-bad-photos': { type: 'boolean' },
        },
        ['file'],
      );
      const company = await companyOf(values, ctx);
      const format = str(values.format);
      if (format !== undefined && format !== 'json' && !(STOREFRONT_FORMATS as readonly string[]).includes(format))
        throw new UsageError('--format must be json, shopify or woocommerce');
      const photoProgress = (done: number, total: number, failed: number) => {
        if (done % 25 === 0 || done === total) ctx.progress('photos', done, total, `fetched${failed ? `, ${failed} failed` : ''}`);
      };
      const imported = (done: number, total: number) => ctx.progress('imported', done, total, 'products');
      const opts = { onProgress: imported, onPhotoProgress: photoProgress, skipBadPhotos: values['skip-bad-photos'] === true };
      try {
        let summary;
        let notes: string[] = [];
        let read = 'catalogue file';
        const { path, value: text } = readInput(ctx, pos[0], (t) => t);
        // our format is JSON; an export is CSV (told apart by its first character unless --format names it)
        if (
          format === 'json' ||
          (format === undefined &&
            text
              .replace(/^\uFEFF/, '')
              .trimStart()
              .startsWith('{'))
        ) {
          const input = decoded(
            path,
            () => text,
            (t): unknown => JSON.parse(t),
          ); // the text already read
          summary = await ctx.services.catalogueImport.importCatalogue(company.id, ctx.actor, input, {
            ...opts,
            baseDir: dirname(path),
            onNote: (n) => notes.push(n),
          });
        } else {
          const taxMap = values['tax-map'] ? readInput(ctx, str(values['tax-map'])!, (t) => t).value : undefined;
          const result = await ctx.services.catalogueImport.importStorefront(company.id, ctx.actor, text, {
            ...opts,
            baseDir: dirname(path),
            format: format as StorefrontFormat | undefined,
            taxRate: str(values['tax-rate']),
            hsn: str(values.hsn),
            taxMap,
            location: str(values.location),
          });
          ({ summary, notes } = result);
          read = `${result.format === 'shopify' ? 'Shopify' : 'WooCommerce'} export`;
        }
        ctx.out(
          ctx.json
            ? JSON.stringify({ ...summary, notes }, null, 2)
            : [
                `imported ${read} into ${company.slug}: ${Object.entries(summary)
                  .map(([k, n]) => `${n} ${k}`)
                  .join(', ')}`,
                ...notes.map((n) => `  note: ${n}`),
              ].join('\n'),
        );
      } catch (err) {
        printProblems(err, ctx);
        throw err;
      }
    },
  },
  'catalog export': {
    usage: 'catalog export --company <id|slug> [file.json]',
    summary: 'write the catalogue in the import format (to stdout, or to a file with its photos in <file dir>/photos/)',
    async run(argv, ctx) {
      const { values, pos } = parse(argv, companyFlag, ['file.json?']);
      const company = await companyOf(values, ctx);
      const target = pos[0] ? ctx.file(pos[0]) : undefined;
      const { file, photos } = await ctx.services.catalogueImport.exportCatalogue(company.id, target ? 'photos/' : '');
      const text = JSON.stringify(file, null, 2);
      if (!target) {
        // To stdout: photo names are left relative to MEDIA_DIR's company folder.
        ctx.out(text);
        return;
      }
      for (const [source, name] of photos) {
        mkdirSync(dirname(join(dirname(target), name)), { recursive: true });
        copyFileSync(source, join(dirname(target), name));
      }
      writeFileSync(target, `${text}\n`);
      ctx.err(`exported ${file.products.length} products and ${photos.size} photos to ${target}\n`);
    },
  },
  'catalog stock': {
    usage: 'catalog stock --company <id|slug> <stock.csv>',
    summary: 'set on-hand stock from a CSV (columns sku or barcode, on_hand, location?) in one transaction; reservations untouched',
    async run(argv, ctx) {
      const { values, pos } = parse(argv, companyFlag, ['stock.csv']);
      const company = await companyOf(values, ctx);
      const { path, value: text } = readInput(ctx, pos[0], (t) => t);
      const started = Date.now();
      try {
        const file = readStockFile(text);
        // said once every row has passed: a refused file is reported whole, and nothing is applied
        const applying = () => ctx.err(`checked ${file.rows.length} rows of ${path}; applying in one transaction\n`);
        const result = await ctx.services.stock.set(company.id, file.rows, (i, field) => `line ${file.lines[i]}, column ${field}`, applying);
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        ctx.out(
          ctx.json
            ? JSON.stringify(result, null, 2)
            : [
                `${company.slug}: ${result.rows} rows, ${result.updated} stock levels changed, ${result.unchanged} unchanged, in ${seconds} s`,
                ...result.short.map((s) => `  short: ${s.sku} at ${s.location} has ${s.on_hand} on hand for ${s.reserved} reserved by open orders`),
              ].join('\n'),
        );
      } catch (err) {
        printProblems(err, ctx);
        throw err;
      }
    },
  },
  'catalog feed': {
    usage: 'catalog feed --company <id|slug> [--template <https://…{sku}…>] [--rotate] [--out <file.csv>]',
    summary:
      'the WhatsApp (Meta) catalogue feed: --template turns it on (product page URL with {sku} or {product_sku}), --rotate gives a new secret URL, --out writes the CSV',
    async run(argv, ctx) {
      const { values } = parse(argv, { ...companyFlag, template: { type: 'string' }, rotate: { type: 'boolean' }, out: { type: 'string' } });
      const slug = str(values.company);
      if (!slug) throw new UsageError('--company is required');
      if (!values.template && !values.rotate && !values.out) throw new UsageError('give --template, --rotate or --out');
      const company = await ctx.services.companies.get(slug);
      // The service's own address when the command runs inside it; else this process's PUBLIC_URL, HOST and PORT.
      const origin = ctx.serviceOrigin ?? ctx.services.media.configuredOrigin();
      const lines: string[] = [];
      const result: Record<string, unknown> = {};
      if (values.template || values.rotate) {
        const { token, template } = await ctx.services.feeds.rotate(company.id, ctx.actor, str(values.template));
        result.url = `${origin}/feeds/meta/${company.id}/${token}.csv`;
        result.template = template;
        lines.push(`feed URL for Meta Commerce Manager (shown once; --rotate replaces it):\n  ${String(result.url)}`, `product links: ${template}`);
        if (isLoopback(origin)) ctx.err(`note: Meta cannot fetch from ${origin}; set PUBLIC_URL to the address the service is reached on from the internet\n`);
      }
      if (values.out) {
        const target = ctx.file(str(values.out)!);
        const feed = await ctx.services.feeds.csv(company.id, origin);
        writeFileSync(target, feed.csv);
        Object.assign(result, { file: target, rows: feed.rows, left_out: feed.leftOut });
        lines.push(`wrote ${feed.rows} rows to ${target}`, ...feed.leftOut.map((l) => `  left out ${l.sku}: ${l.reason}`));
      }
      ctx.out(ctx.json ? JSON.stringify(result, null, 2) : lines.join('\n'));
    },
  },
  'catalog generate': {
    usage: 'catalog generate --company <id|slug> --products <n> [--variants <per product, default 3>]',
    summary: 'insert a large synthetic catalogue (benchmarks); batched, with progress',
    async run(argv, ctx) {
      const { values } = parse(argv, { ...companyFlag, products: { type: 'string' }, variants: { type: 'string' } });
      const slug = str(values.company);
      const products = Number(values.products);
      const variants = Number(values.variants ?? 3);
      if (!slug) throw new UsageError('--company is required');
      if (!Number.isInteger(products) || products < 1) throw new UsageError('--products must be a whole number of at least 1');
      if (!Number.isInteger(variants) || variants < 1 || variants > 20) throw new UsageError('--variants must be a whole number from 1 to 20');
      const company = await ctx.services.companies.get(slug);
      const started = Date.now();
      const made = await generateCatalogue(ctx.db, company.id, {
        products,
        variantsPerProduct: variants,
        onProgress: (done, total) => ctx.progress('generated', done, total, 'products'),
      });
      ctx.out(
        ctx.json ? JSON.stringify(made) : `generated ${made.products} products, ${made.variants} variants in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    },
  },
};
