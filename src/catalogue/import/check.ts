import { Decimal } from 'decimal.js';
import type { Db } from '../../db/index.js';
import { AppError, validationError, type FieldIssue } from '../../contract/errors.js';
import { checkTaxProfile } from '../../companies/tax-profile.service.js';
import { issuesToDetails } from '../../contract/validation.js';
import { catalogueSections, MAX_STOCK_LOCATIONS, productEntry, type CatalogueFile, type ProductEntry } from '../../contract/catalogue-file.js';
import { isWholeUnit, wholeNumberMessage } from '../../lib/units.js';
import { catalogueKeys } from './import.queries.js';
import { isPhotoUrl, type Fetched } from './photo-fetch.js';
import { locatePhoto, type PhotoCopy } from './photos.js';

/** Checks the whole file against itself and the catalogue, reporting every problem with its place; changes nothing. */
export async function checkCatalogue(
  db: Db,
  companyId: string,
  input: unknown,
  baseDir: string,
  fetched: Map<string, Fetched> = new Map(),
): Promise<{ file: CatalogueFile; photos: Map<string, PhotoCopy> }> {
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
    problems.push(...issuesToDetails(one.error.issues, '', ['products', i]));
    return undefined;
  });
  // The seller's tax profile, whole (it replaces the company's): shape by the schema, then GSTIN, state, PIN and prefix.
  let seller: CatalogueFile['seller'];
  const sellerSection = catalogueSections.shape.seller.safeParse(raw.seller ?? undefined);
  if (sellerSection.success && sellerSection.data) {
    try {
      seller = checkTaxProfile(undefined, sellerSection.data);
    } catch (err) {
      if (!(err instanceof AppError) || !Array.isArray(err.details)) throw err;
      for (const d of err.details as FieldIssue[]) problem(`seller.${d.path}`, d.message);
    }
  }
  const file: CatalogueFile = {
    format: 'commerce-catalogue/1',
    seller,
    locations: fileLocations ?? [],
    categories: fileCategories ?? [],
    brands: fileBrands ?? [],
    products: products.filter((p): p is ProductEntry => p !== undefined),
  };

  const [dbCats, dbBrands, dbLocs, dbVariants] = await catalogueKeys(db, companyId);

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
  if (locations.size > MAX_STOCK_LOCATIONS)
    problem('locations', `a company has at most ${MAX_STOCK_LOCATIONS} stock locations; with this file it would have ${locations.size}`);
  const dbVariant = new Map(dbVariants.map((v) => [v.sku, v]));
  const dbBarcode = new Map(dbVariants.filter((v) => v.barcode).map((v) => [v.barcode as string, v.sku]));
  const fileVariant = new Map<string, string>();
  const fileBarcode = new Map<string, string>();
  const photos = new Map<string, PhotoCopy>();
  const checkPhoto = (where: string, name: string) => {
    // a photo named by URL was fetched before the check (photo-fetch.ts); its file is checked like any other
    const got = isPhotoUrl(name) ? (fetched.get(name) ?? { problem: `${name} was not fetched` }) : undefined;
    if (got && 'problem' in got) return problem(where, got.problem);
    const found = locatePhoto(companyId, baseDir, got ? got.path : name);
    if ('problem' in found) problem(where, found.problem);
    else photos.set(name, found);
  };

  products.forEach((p, i) => {
    if (!p) return;
    const at = `products[${i}]`;
    if (p.category && fileCategories && !parentOf.has(p.category))
      problem(`${at}.category`, `no category with slug "${p.category}" in the file or the catalogue`);
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
      for (const [code, onHand] of Object.entries(v.stock)) {
        if (fileLocations && !locations.has(code)) problem(`${vat}.stock.${code}`, `no stock location with code "${code}" in the file or the catalogue`);
        if (isWholeUnit(p.unit) && !new Decimal(onHand).isInteger()) problem(`${vat}.stock.${code}`, wholeNumberMessage(p.unit, v.sku));
      }
      v.photos.forEach((ph, k) => checkPhoto(`${vat}.photos[${k}].file`, ph.file));
    });
  });
  if (problems.length) throw validationError(problems, `the catalogue file has ${problems.length} problem(s); nothing was changed`);
  return { file, photos };
}
