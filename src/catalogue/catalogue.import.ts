import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, isAbsolute, join, resolve } from 'node:path';
import { sql } from 'drizzle-orm';
import { Decimal } from 'decimal.js';
import type { Db } from '../db/index.js';
import { validationError, type FieldIssue } from '../contract/errors.js';
import { newId } from '../lib/ids.js';
import { issuesToDetails } from '../contract/validation.js';
import { catalogueSections, productEntry, type CatalogueFile, type ProductEntry } from '../contract/catalogue-file.js';
import { analyzeCatalogue, refreshSearchText } from './catalogue.queries.js';

const PHOTO_TYPES = new Set(['.png', '.jpg', '.jpeg', '.webp', '.gif', '.svg', '.avif']);
const MAX_PHOTO_BYTES = 10 * 1024 * 1024;
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
}

interface PhotoCopy {
  source: string;
  /** path inside MEDIA_DIR: <company_id>/<content hash><ext> */
  target: string;
}

/**
 * Catalogue import and export (docs/catalogue-import.md). Import checks the whole file first and
 * reports every problem with its place; then upserts everything by SKU/slug/code in one transaction.
 */
export function createCatalogueImportService({ db, mediaDir }: { db: Db; mediaDir: string }) {
  async function check(companyId: string, input: unknown, baseDir: string): Promise<{ file: CatalogueFile; photos: Map<string, PhotoCopy> }> {
    const problems: FieldIssue[] = [];
    const problem = (path: string, message: string) => problems.push({ path, message });
    // Sections first, then each product on its own: a bad product does not hide the problems of the others.
    const sections = catalogueSections.safeParse(input);
    if (!sections.success) {
      const top = sections.error.issues.filter((i) => i.path.length === 0 || (i.path[0] === 'products' && i.path.length === 1));
      if (top.length) throw validationError(issuesToDetails(top, '(file)'), 'the catalogue file has problems; nothing was changed');
      problems.push(...issuesToDetails(sections.error.issues, '(file)'));
    }
    const raw = input as Record<string, unknown>;
    const section = <K extends 'locations' | 'categories' | 'brands'>(name: K): CatalogueFile[K] | undefined => {
      const one = catalogueSections.shape[name].safeParse(raw[name]);
      return one.success ? (one.data as CatalogueFile[K]) : undefined; // undefined: broken, its references are not checked
    };
    const fileLocations = section('locations');
    const fileCategories = section('categories');
    const fileBrands = section('brands');
    const products: (ProductEntry | undefined)[] = (Array.isArray(raw.products) ? raw.products : []).map((entry, i) => {
      const one = productEntry.safeParse(entry);
      if (one.success) return one.data;
      problems.push(...issuesToDetails(one.error.issues.map((is) => ({ ...is, path: ['products', i, ...is.path] }))));
      return undefined;
    });
    const file: CatalogueFile = {
      format: 'commerce-catalogue/1',
      locations: fileLocations ?? [],
      categories: fileCategories ?? [],
      brands: fileBrands ?? [],
      products: products.filter((p): p is ProductEntry => p !== undefined),
    };

    const [dbCats, dbBrands, dbLocs, dbVariants] = await Promise.all([
      db.query<{ slug: string; parent: string | null }>(sql`SELECT c.slug, pc.slug AS parent FROM categories c
        LEFT JOIN categories pc ON pc.company_id = c.company_id AND pc.id = c.parent_id WHERE c.company_id = ${companyId}`),
      db.query<{ slug: string }>(sql`SELECT slug FROM brands WHERE company_id = ${companyId}`),
      db.query<{ code: string }>(sql`SELECT code FROM stock_locations WHERE company_id = ${companyId}`),
      db.query<{ sku: string; barcode: string | null; product_sku: string }>(sql`SELECT v.sku, v.barcode, p.sku AS product_sku
        FROM variants v JOIN products p ON p.company_id = v.company_id AND p.id = v.product_id WHERE v.company_id = ${companyId}`),
    ]);

    const firstSeen = <T>(items: T[], key: (t: T) => string, where: string, what: string) => {
      const seen = new Map<string, number>();
      items.forEach((item, i) => {
        const k = key(item);
        if (seen.has(k)) problem(`${where}[${i}].${what}`, `"${k}" is already used by ${where}[${seen.get(k)}]`);
        else seen.set(k, i);
      });
    };
    firstSeen(file.locations, (l) => l.code, 'locations', 'code');
    firstSeen(file.categories, (c) => c.slug, 'categories', 'slug');
    firstSeen(file.brands, (b) => b.slug, 'brands', 'slug');
    const seenSku = new Map<string, number>();
    products.forEach((p, i) => {
      if (!p) return;
      if (seenSku.has(p.sku)) problem(`products[${i}].sku`, `"${p.sku}" is already used by products[${seenSku.get(p.sku)}]`);
      else seenSku.set(p.sku, i);
    });
    const shipping = file.locations.flatMap((l, i) => (l.ships_orders ? [i] : []));
    for (const i of shipping.slice(1)) problem(`locations[${i}].ships_orders`, `only one location ships orders; locations[${shipping[0]}] already does`);

    // Category tree as it will be after the import: no unknown parent, no cycle.
    const parentOf = new Map(dbCats.map((c) => [c.slug, c.parent]));
    for (const c of file.categories) parentOf.set(c.slug, c.parent);
    file.categories.forEach((c, i) => {
      if (c.parent && !parentOf.has(c.parent)) problem(`categories[${i}].parent`, `no category with slug "${c.parent}" in the file or the catalogue`);
      const path = new Set([c.slug]);
      for (let p = c.parent; p; p = parentOf.get(p) ?? null) {
        if (path.has(p)) {
          problem(`categories[${i}].parent`, `"${c.parent}" makes a cycle (${[...path, p].join(' > ')})`);
          break;
        }
        path.add(p);
      }
    });
    const brands = new Set([...dbBrands.map((b) => b.slug), ...file.brands.map((b) => b.slug)]);
    const locations = new Set([...dbLocs.map((l) => l.code), ...file.locations.map((l) => l.code)]);
    const dbVariant = new Map(dbVariants.map((v) => [v.sku, v]));
    const dbBarcode = new Map(dbVariants.filter((v) => v.barcode).map((v) => [v.barcode as string, v.sku]));
    const fileVariant = new Map<string, string>();
    const fileBarcode = new Map<string, string>();
    const photos = new Map<string, PhotoCopy>();
    const checkPhoto = (where: string, name: string) => {
      const source = isAbsolute(name) ? name : resolve(baseDir, name);
      const ext = extname(source).toLowerCase();
      if (!PHOTO_TYPES.has(ext)) return problem(where, `must be an image file (${[...PHOTO_TYPES].join(', ')})`);
      const info = existsSync(source) ? statSync(source) : undefined;
      if (!info?.isFile()) return problem(where, `no such file: ${source}`);
      if (info.size > MAX_PHOTO_BYTES) return problem(where, `larger than ${MAX_PHOTO_BYTES / 1024 / 1024} MB`);
      const hash = createHash('sha256').update(readFileSync(source)).digest('hex').slice(0, 24);
      photos.set(name, { source, target: `${companyId}/${hash}${ext}` });
    };

    products.forEach((p, i) => {
      if (!p) return;
      const at = `products[${i}]`;
      if (p.category && fileCategories && !parentOf.has(p.category)) problem(`${at}.category`, `no category with slug "${p.category}" in the file or the catalogue`);
      if (p.brand && fileBrands && !brands.has(p.brand)) problem(`${at}.brand`, `no brand with slug "${p.brand}" in the file or the catalogue`);
      p.photos.forEach((ph, k) => checkPhoto(`${at}.photos[${k}].file`, ph.file));
      p.variants.forEach((v, j) => {
        const vat = `${at}.variants[${j}]`;
        if (fileVariant.has(v.sku)) problem(`${vat}.sku`, `"${v.sku}" is already used by ${fileVariant.get(v.sku)}`);
        else fileVariant.set(v.sku, vat);
        const existing = dbVariant.get(v.sku);
        if (existing && existing.product_sku !== p.sku) problem(`${vat}.sku`, `"${v.sku}" is a variant of product "${existing.product_sku}" in the catalogue`);
        if (v.barcode) {
          if (fileBarcode.has(v.barcode)) problem(`${vat}.barcode`, `"${v.barcode}" is already used by ${fileBarcode.get(v.barcode)}`);
          else fileBarcode.set(v.barcode, vat);
          const owner = dbBarcode.get(v.barcode);
          if (owner && owner !== v.sku && !fileVariant.has(owner)) problem(`${vat}.barcode`, `"${v.barcode}" belongs to variant "${owner}" in the catalogue`);
        }
        if (v.mrp !== undefined && new Decimal(v.mrp).lt(v.selling_price)) problem(`${vat}.mrp`, `must be at least selling_price (${v.selling_price})`);
        for (const code of Object.keys(v.stock)) {
          if (fileLocations && !locations.has(code)) problem(`${vat}.stock.${code}`, `no stock location with code "${code}" in the file or the catalogue`);
        }
        v.photos.forEach((ph, k) => checkPhoto(`${vat}.photos[${k}].file`, ph.file));
      });
    });
    if (problems.length) throw validationError(problems, `the catalogue file has ${problems.length} problem(s); nothing was changed`);
    return { file, photos };
  }

  async function write(tx: Db, companyId: string, file: CatalogueFile, photos: Map<string, PhotoCopy>, onProgress?: ImportOptions['onProgress']): Promise<ImportSummary> {
    const summary: ImportSummary = { locations: 0, categories: 0, brands: 0, products: 0, variants: 0, photos: 0 };
    const shipFrom = file.locations.find((l) => l.ships_orders);
    if (shipFrom) await tx.query(sql`UPDATE stock_locations SET ships_orders = false WHERE company_id = ${companyId} AND code <> ${shipFrom.code} AND ships_orders`);
    for (const l of file.locations) {
      await tx.query(sql`INSERT INTO stock_locations (company_id, id, code, name, kind, active, ships_orders)
        VALUES (${companyId}, ${newId('loc')}, ${l.code}, ${l.name}, ${l.kind}, ${l.active}, ${l.ships_orders})
        ON CONFLICT (company_id, code) DO UPDATE SET name = EXCLUDED.name, kind = EXCLUDED.kind, active = EXCLUDED.active, ships_orders = EXCLUDED.ships_orders`);
      summary.locations++;
    }
    for (const c of file.categories) {
      await tx.query(sql`INSERT INTO categories (company_id, id, name, slug) VALUES (${companyId}, ${newId('cat')}, ${c.name}, ${c.slug})
        ON CONFLICT (company_id, slug) DO UPDATE SET name = EXCLUDED.name`);
      summary.categories++;
    }
    for (const c of file.categories) {
      await tx.query(sql`UPDATE categories c SET parent_id = (SELECT id FROM categories WHERE company_id = ${companyId} AND slug = ${c.parent})
        WHERE c.company_id = ${companyId} AND c.slug = ${c.slug}`);
    }
    for (const b of file.brands) {
      await tx.query(sql`INSERT INTO brands (company_id, id, name, slug) VALUES (${companyId}, ${newId('brand')}, ${b.name}, ${b.slug})
        ON CONFLICT (company_id, slug) DO UPDATE SET name = EXCLUDED.name`);
      summary.brands++;
    }
    const idsOf = async (table: 'categories' | 'brands' | 'stock_locations', key: 'slug' | 'code') => {
      const rows = await tx.query<{ id: string; k: string }>(sql`SELECT id, ${sql.identifier(key)} AS k FROM ${sql.identifier(table)} WHERE company_id = ${companyId}`);
      return new Map(rows.map((r) => [r.k, r.id]));
    };
    // one connection in a transaction: one statement at a time
    const categoryId = await idsOf('categories', 'slug');
    const brandId = await idsOf('brands', 'slug');
    const locationId = await idsOf('stock_locations', 'code');

    // Barcodes may move between variants of this file: clear them first so the unique index never trips midway.
    const fileSkus = file.products.flatMap((p) => p.variants.map((v) => v.sku));
    if (fileSkus.length) await tx.query(sql`UPDATE variants SET barcode = NULL WHERE company_id = ${companyId} AND sku = ANY(${sql.param(fileSkus)}::text[]) AND barcode IS NOT NULL`);

    let pending: string[] = [];
    for (const [i, p] of file.products.entries()) {
      const [{ id: productId }] = await tx.query<{ id: string }>(sql`
        INSERT INTO products (company_id, id, sku, name, sort_name, description, unit, hsn_code, tax_rate, active, category_id, brand_id)
        VALUES (${companyId}, ${newId('prod')}, ${p.sku}, ${p.name}, ${p.name.toLowerCase()}, ${p.description}, ${p.unit}, ${p.hsn_code}, ${p.tax_rate},
                ${p.active}, ${p.category ? categoryId.get(p.category) : null}, ${p.brand ? brandId.get(p.brand) : null})
        ON CONFLICT (company_id, sku) DO UPDATE SET name = EXCLUDED.name, sort_name = EXCLUDED.sort_name, description = EXCLUDED.description,
          unit = EXCLUDED.unit, hsn_code = EXCLUDED.hsn_code, tax_rate = EXCLUDED.tax_rate, active = EXCLUDED.active,
          category_id = EXCLUDED.category_id, brand_id = EXCLUDED.brand_id, updated_at = now()
        RETURNING id`);
      await tx.query(sql`DELETE FROM product_photos WHERE company_id = ${companyId} AND product_id = ${productId}`);
      let position = 0;
      const addPhoto = async (ph: { file: string; alt: string | null }, variantId: string | null) => {
        await tx.query(sql`INSERT INTO product_photos (company_id, id, product_id, variant_id, path, alt, position)
          VALUES (${companyId}, ${newId('photo')}, ${productId}, ${variantId}, ${photos.get(ph.file)!.target}, ${ph.alt}, ${position++})`);
        summary.photos++;
      };
      for (const ph of p.photos) await addPhoto(ph, null);
      for (const [j, v] of p.variants.entries()) {
        const name = v.name ?? (Object.values(v.attributes).join(' / ') || p.name);
        const [{ id: variantId }] = await tx.query<{ id: string }>(sql`
          INSERT INTO variants (company_id, id, product_id, sku, barcode, name, attributes, position, selling_price, mrp, active)
          VALUES (${companyId}, ${newId('var')}, ${productId}, ${v.sku}, ${v.barcode}, ${name}, ${JSON.stringify(v.attributes)}::jsonb, ${j},
                  ${v.selling_price}, ${v.mrp ?? v.selling_price}, ${v.active})
          ON CONFLICT (company_id, sku) DO UPDATE SET barcode = EXCLUDED.barcode, name = EXCLUDED.name, attributes = EXCLUDED.attributes,
            position = EXCLUDED.position, selling_price = EXCLUDED.selling_price, mrp = EXCLUDED.mrp, active = EXCLUDED.active, updated_at = now()
          RETURNING id`);
        for (const [code, onHand] of Object.entries(v.stock)) {
          await tx.query(sql`INSERT INTO stock_levels (company_id, variant_id, location_id, on_hand) VALUES (${companyId}, ${variantId}, ${locationId.get(code)}, ${onHand})
            ON CONFLICT (company_id, variant_id, location_id) DO UPDATE SET on_hand = EXCLUDED.on_hand, updated_at = now()`);
        }
        for (const ph of v.photos) await addPhoto(ph, variantId);
        summary.variants++;
      }
      summary.products++;
      pending.push(productId);
      if (pending.length >= CHUNK || i === file.products.length - 1) {
        await refreshSearchText(tx, companyId, pending);
        pending = [];
        onProgress?.(i + 1, file.products.length);
      }
    }
    return summary;
  }

  return {
    /** Checks everything, copies photos (content-addressed, so re-imports reuse them), then writes in one transaction. */
    async importCatalogue(companyId: string, input: unknown, opts: ImportOptions): Promise<ImportSummary> {
      const { file, photos } = await check(companyId, input, opts.baseDir);
      for (const { source, target } of photos.values()) {
        const dest = join(mediaDir, target);
        if (!existsSync(dest)) {
          mkdirSync(join(mediaDir, companyId), { recursive: true });
          writeFileSync(dest, readFileSync(source));
        }
      }
      const summary = await db.tx((tx) => write(tx, companyId, file, photos, opts.onProgress));
      await analyzeCatalogue(db);
      return summary;
    },

    /**
     * The company's catalogue in the import format. Photos are named `<photoPrefix><file name>`; the
     * caller copies `photos` (absolute source in MEDIA_DIR -> that name) beside the written file.
     */
    async exportCatalogue(companyId: string, photoPrefix = 'photos/'): Promise<{ file: CatalogueFile; photos: Map<string, string> }> {
      const [locs, cats, brands, products, variants, stock, photoRows] = await Promise.all([
        db.query<CatalogueFile['locations'][number]>(sql`SELECT code, name, kind, active, ships_orders FROM stock_locations WHERE company_id = ${companyId} ORDER BY code`),
        db.query<{ slug: string; name: string; parent: string | null; depth: number }>(sql`
          WITH RECURSIVE t AS (
            SELECT id, slug, name, NULL::text AS parent, 0 AS depth FROM categories WHERE company_id = ${companyId} AND parent_id IS NULL
            UNION ALL
            SELECT c.id, c.slug, c.name, t.slug, t.depth + 1 FROM categories c JOIN t ON c.parent_id = t.id WHERE c.company_id = ${companyId}
          ) SELECT slug, name, parent, depth FROM t ORDER BY depth, slug`),
        db.query<{ slug: string; name: string }>(sql`SELECT slug, name FROM brands WHERE company_id = ${companyId} ORDER BY slug`),
        db.query<{ id: string; sku: string; name: string; description: string | null; unit: string; hsn_code: string | null; tax_rate: string; active: boolean; category: string | null; brand: string | null }>(sql`
          SELECT p.id, p.sku, p.name, p.description, p.unit, p.hsn_code, p.tax_rate::text AS tax_rate, p.active, c.slug AS category, b.slug AS brand
          FROM products p
          LEFT JOIN categories c ON c.company_id = p.company_id AND c.id = p.category_id
          LEFT JOIN brands b ON b.company_id = p.company_id AND b.id = p.brand_id
          WHERE p.company_id = ${companyId} ORDER BY p.sku`),
        db.query<{ id: string; product_id: string; sku: string; barcode: string | null; name: string; attributes: Record<string, string>; selling_price: string; mrp: string; active: boolean }>(sql`
          SELECT id, product_id, sku, barcode, name, attributes, selling_price::text AS selling_price, mrp::text AS mrp, active
          FROM variants WHERE company_id = ${companyId} ORDER BY product_id, position, id`),
        db.query<{ variant_id: string; code: string; on_hand: string }>(sql`
          SELECT sl.variant_id, loc.code, sl.on_hand::text AS on_hand FROM stock_levels sl
          JOIN stock_locations loc ON loc.company_id = sl.company_id AND loc.id = sl.location_id
          WHERE sl.company_id = ${companyId} ORDER BY loc.code`),
        db.query<{ product_id: string; variant_id: string | null; path: string; alt: string | null }>(sql`
          SELECT product_id, variant_id, path, alt FROM product_photos WHERE company_id = ${companyId} ORDER BY product_id, position, id`),
      ]);
      const photos = new Map<string, string>();
      const photoEntry = (ph: { path: string; alt: string | null }) => {
        const name = `${photoPrefix}${ph.path.split('/').at(-1)}`;
        photos.set(resolve(mediaDir, ph.path), name);
        return { file: name, alt: ph.alt };
      };
      const group = <T, K extends keyof T>(rows: T[], key: K) => {
        const m = new Map<T[K], T[]>();
        for (const r of rows) m.set(r[key], [...(m.get(r[key]) ?? []), r]);
        return m;
      };
      const variantsOf = group(variants, 'product_id');
      const stockOf = group(stock, 'variant_id');
      const photosOf = group(photoRows, 'product_id');
      const file: CatalogueFile = {
        format: 'commerce-catalogue/1',
        locations: locs,
        categories: cats.map(({ slug, name, parent }) => ({ slug, name, parent })),
        brands,
        products: products.map((p) => {
          const ph = photosOf.get(p.id) ?? [];
          return {
            sku: p.sku,
            name: p.name,
            description: p.description,
            unit: p.unit,
            hsn_code: p.hsn_code,
            tax_rate: p.tax_rate,
            active: p.active,
            category: p.category,
            brand: p.brand,
            photos: ph.filter((x) => x.variant_id === null).map(photoEntry),
            variants: (variantsOf.get(p.id) ?? []).map((v) => ({
              sku: v.sku,
              barcode: v.barcode,
              name: v.name,
              attributes: v.attributes,
              selling_price: v.selling_price,
              mrp: v.mrp,
              active: v.active,
              photos: ph.filter((x) => x.variant_id === v.id).map(photoEntry),
              stock: Object.fromEntries((stockOf.get(v.id) ?? []).map((s) => [s.code, s.on_hand])),
            })),
          };
        }),
      };
      return { file, photos };
    },
  };
}

export type CatalogueImportService = ReturnType<typeof createCatalogueImportService>;
