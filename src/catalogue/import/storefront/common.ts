import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { convert } from 'html-to-text';
import { validationError, type FieldIssue } from '../../../contract/errors.js';

/**
 * What the Shopify and WooCommerce readers share: the CSV read as spreadsheets write it, prices as sellers type
 * them, HTML descriptions as plain text, category paths as nested categories, and GST rate/HSN code from flags or
 * a mapping file (the exports carry neither). The readers turn a file into our catalogue format
 * (`commerce-catalogue/1`), so the import's own checks, transaction and upsert apply unchanged.
 */

export interface CsvRow {
  /** the file line the row starts on (a quoted multi-line cell makes a row span several lines) */
  line: number;
  cells: Record<string, string>;
}

/** Reads a CSV with a header row: byte-order mark, Windows or Unix line ends, quoted multi-line cells, blank lines. */
export function readCsv(text: string): { header: string[]; rows: CsvRow[] } {
  const buf = Buffer.from(text);
  let records: { record: Record<string, string>; info: { bytes: number } }[];
  let header: string[] = [];
  try {
    records = parse(buf, {
      bom: true,
      columns: (h: string[]) => (header = h.map((c) => c.trim())),
      record_delimiter: ['\r\n', '\n'],
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
    });
  } catch (err) {
    throw validationError([{ path: '(file)', message: `not a readable CSV file: ${(err as Error).message}` }]);
  }
  // A row's line is where it starts: the first byte after the previous row (info.bytes is where a row ends), past
  // blank lines; counted here because a quoted cell may hold line breaks of either kind.
  const breaks: number[] = [];
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) breaks.push(i);
  const lineAt = (offset: number) => {
    let lo = 0;
    let hi = breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (breaks[mid] < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
  let end = (breaks[0] ?? buf.length) + 1;
  return {
    header,
    rows: records.map(({ record, info }) => {
      let start = end;
      while (buf[start] === 10 || buf[start] === 13) start++;
      end = info.bytes;
      const cells: Record<string, string> = {};
      for (const [k, v] of Object.entries(record)) cells[k] = (v ?? '').trim();
      return { line: lineAt(start), cells };
    }),
  };
}

/** Problems found while reading an export, each with its line and column; they stop the import like any other. */
export class Problems {
  readonly list: FieldIssue[] = [];
  add(line: number, column: string, message: string) {
    this.list.push({ path: `line ${line}, column ${column}`, message });
  }
  throwIfAny(what: string) {
    if (this.list.length)
      throw validationError(
        this.list,
        `the ${what} has ${this.list.length} problem(s); nothing was changed; first: ${this.list[0].path}: ${this.list[0].message}`,
      );
  }
}

/**
 * A price as sellers write it: `1299`, `1,299.00`, `1,29,999.50` (Indian grouping), `₹ 499`, `Rs. 499`. Returns the
 * plain decimal text (the import checks places and range), null for an empty cell, or undefined when it is no price.
 */
export function priceText(raw: string): string | null | undefined {
  const v = raw
    .replace(/^(₹|rs\.?|inr)\s*/i, '')
    .replace(/\s*(inr)$/i, '')
    .trim();
  if (v === '') return null;
  if (/^\d+(\.\d+)?$/.test(v)) return v;
  if (/^\d{1,3}(,\d{2,3})+(\.\d+)?$/.test(v)) return v.replace(/,/g, '');
  return undefined;
}

/** A stock quantity: a whole or decimal number, possibly negative (oversold in the shop); undefined when it is none. */
export function quantityCell(raw: string): string | null | undefined {
  if (raw === '') return null;
  const v = raw.replace(/,/g, '');
  return /^-?\d+(\.\d+)?$/.test(v) ? v : undefined;
}

/** An HTML description as plain text: paragraphs and list items on their own lines, links as their text, no images. */
export function htmlText(html: string, max = 5000): string | null {
  if (!html.trim()) return null;
  const text = convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'h1', options: { uppercase: false } },
      { selector: 'h2', options: { uppercase: false } },
      { selector: 'h3', options: { uppercase: false } },
      { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    ],
  })
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return text ? [...text].slice(0, max).join('') : null;
}

const short = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);

/**
 * A slug (lower-case letters, digits, `-`, up to `max`) for a name in any script: Latin letters are kept (accents
 * dropped); a name with none (Hindi, Tamil…) gets a stable one from its hash, so re-imports find the same slug.
 */
export function slugOf(name: string, max = 80): string {
  const latin = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const base = latin || `c-${short(name)}`;
  return base.length <= max ? base : `${base.slice(0, max - 9).replace(/-+$/, '')}-${short(name)}`;
}

/** A SKU (up to 64 characters, no spaces) from text that may be longer or hold spaces, stable across imports. */
export function skuOf(text: string): string {
  const v = text.trim().replace(/\s+/g, '-');
  return v.length <= 64 ? v : `${v.slice(0, 55)}-${short(v)}`;
}

export interface CategoryEntry {
  slug: string;
  name: string;
  parent: string | null;
}

/**
 * Category paths (`Home > Kitchen > Cookware`) as nested categories. A category's slug is made from its whole
 * path, so `Men > Shirts` and `Women > Shirts` stay two categories.
 */
export class CategoryTree {
  private readonly bySlug = new Map<string, CategoryEntry>();
  /** The slug of the deepest category of `path`, adding the path's categories; null for an empty path. */
  add(path: string): string | null {
    const names = path
      .split('>')
      .map((n) => n.trim())
      .filter(Boolean);
    let parent: string | null = null;
    for (let i = 0; i < names.length; i++) {
      const slug = slugOf(names.slice(0, i + 1).join(' '));
      if (!this.bySlug.has(slug)) this.bySlug.set(slug, { slug, name: [...names[i]].slice(0, 200).join(''), parent });
      parent = slug;
    }
    return parent;
  }
  get entries(): CategoryEntry[] {
    return [...this.bySlug.values()];
  }
}

/** Brands by name (Shopify `Vendor`, WooCommerce `Brands`). */
export class BrandSet {
  private readonly bySlug = new Map<string, { slug: string; name: string }>();
  add(name: string): string | null {
    if (!name.trim()) return null;
    const slug = slugOf(name);
    if (!this.bySlug.has(slug)) this.bySlug.set(slug, { slug, name: [...name.trim()].slice(0, 200).join('') });
    return slug;
  }
  get entries() {
    return [...this.bySlug.values()];
  }
}

/** GST rate and HSN code for products, which the exports do not carry. */
export interface TaxRule {
  tax_rate: string | null;
  hsn_code: string | null;
}

/**
 * The GST mapping: `--tax-rate`/`--hsn` for every product, refined by a mapping file (CSV: `match`, `tax_rate`,
 * `hsn_code`) whose `match` is a category path (covering its subcategories; the deepest match wins), a product
 * type (Shopify `Type`, WooCommerce `Tax class`), or `*` for everything else.
 */
export class TaxMapping {
  private readonly byPath = new Map<string, TaxRule>();
  private readonly byType = new Map<string, TaxRule>();
  private any: TaxRule | undefined;
  constructor(
    private readonly defaults: TaxRule = { tax_rate: null, hsn_code: null },
    mappingCsv?: string,
  ) {
    if (mappingCsv === undefined) return;
    const { header, rows } = readCsv(mappingCsv);
    const problems = new Problems();
    const cols = header.map((h) => h.toLowerCase());
    if (!cols.includes('match') || (!cols.includes('tax_rate') && !cols.includes('hsn_code')))
      problems.add(1, '(header)', 'the mapping file needs the columns match and tax_rate and/or hsn_code');
    problems.throwIfAny('mapping file');
    for (const { line, cells } of rows) {
      const lower = Object.fromEntries(Object.entries(cells).map(([k, v]) => [k.toLowerCase(), v]));
      const rate = lower.tax_rate ?? '';
      const hsn = lower.hsn_code ?? '';
      if (rate && !/^\d{1,3}(\.\d{1,2})?$/.test(rate)) problems.add(line, 'tax_rate', 'must be a GST percentage such as 5 or 18');
      if (hsn && !/^\d{4,8}$/.test(hsn)) problems.add(line, 'hsn_code', 'must be 4-8 digits');
      if (!lower.match) problems.add(line, 'match', 'must name a category path, a product type or *');
      const rule = { tax_rate: rate || null, hsn_code: hsn || null };
      if (lower.match === '*') this.any = rule;
      else if (lower.match?.includes('>')) this.byPath.set(normPath(lower.match), rule);
      else if (lower.match) {
        // one word may be a top-level category or a product type: it is tried as both
        this.byPath.set(normPath(lower.match), rule);
        this.byType.set(lower.match.toLowerCase(), rule);
      }
    }
    problems.throwIfAny('mapping file');
  }

  /** The rule for a product: each of rate and code from the most specific source that has it. */
  ruleFor(categoryPath: string, type: string): TaxRule {
    const candidates: TaxRule[] = [];
    const names = normPath(categoryPath).split(' > ').filter(Boolean);
    for (let i = names.length; i > 0; i--) {
      const r = this.byPath.get(names.slice(0, i).join(' > '));
      if (r) candidates.push(r);
    }
    const t = type ? this.byType.get(type.toLowerCase()) : undefined;
    if (t) candidates.push(t);
    if (this.any) candidates.push(this.any);
    candidates.push(this.defaults);
    return {
      tax_rate: candidates.find((c) => c.tax_rate)?.tax_rate ?? null,
      hsn_code: candidates.find((c) => c.hsn_code)?.hsn_code ?? null,
    };
  }
}

const normPath = (p: string) =>
  p
    .split('>')
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean)
    .join(' > ');

/** Where each product of the converted file came from, so the import's own problems are told by line and column. */
export interface Origins {
  products: {
    line: number;
    variants: number[];
    photos: number[];
    variantPhotos: number[][];
  }[];
  /** our field -> the export's column, for products and for variants */
  productColumns: Record<string, string>;
  variantColumns: Record<string, string>;
}

/** `products[3].variants[1].selling_price` -> `line 14, column Variant Price` (other paths are kept as they are). */
export function placeOf(path: string, origins: Origins): string {
  const m = /^products\[(\d+)\](?:\.variants\[(\d+)\])?(?:\.([a-z_]+))?(?:\[(\d+)\])?/.exec(path);
  const p = m ? origins.products[Number(m[1])] : undefined;
  if (!m || !p) return path;
  const field = m[3] ?? 'sku';
  if (m[2] !== undefined) {
    const j = Number(m[2]);
    const line = field === 'photos' && m[4] !== undefined ? (p.variantPhotos[j]?.[Number(m[4])] ?? p.variants[j]) : p.variants[j];
    return `line ${line ?? p.line}, column ${origins.variantColumns[field] ?? field}`;
  }
  const line = field === 'photos' && m[4] !== undefined ? (p.photos[Number(m[4])] ?? p.line) : p.line;
  return `line ${line}, column ${origins.productColumns[field] ?? field}`;
}

/** What a reader gives: our catalogue file, where each product came from, and notes for the seller. */
export interface Converted {
  format: 'shopify' | 'woocommerce';
  file: {
    format: 'commerce-catalogue/1';
    locations: { code: string; name: string; kind: 'warehouse'; ships_orders: boolean }[];
    categories: CategoryEntry[];
    brands: { slug: string; name: string }[];
    products: Record<string, unknown>[];
  };
  origins: Origins;
  /** things the import did on the seller's behalf or could not fill (no HSN code, a made-up SKU, stock not tracked) */
  notes: string[];
}

export interface ReadOptions {
  tax: TaxMapping;
  /** the code of the location the export's stock goes to (the one that ships orders) */
  location: string;
  /** a location to create when the company has none */
  newLocation?: { code: string; name: string };
}

/** A reader's result: the catalogue file its products make, with the categories and brands they named. */
export function converted(
  format: Converted['format'],
  opts: ReadOptions,
  parts: { categories: CategoryTree; brands: BrandSet; products: Record<string, unknown>[]; origins: Origins; notes: string[] },
): Converted {
  return {
    format,
    file: {
      format: 'commerce-catalogue/1',
      locations: opts.newLocation ? [{ ...opts.newLocation, kind: 'warehouse', ships_orders: true }] : [],
      categories: parts.categories.entries,
      brands: parts.brands.entries,
      products: parts.products,
    },
    origins: parts.origins,
    notes: parts.notes,
  };
}

/** The notes for products left without an HSN code, one line naming them (the first 20). */
export function withoutHsnNote(names: string[]): string[] {
  if (names.length === 0) return [];
  const shown = names.slice(0, 20).join(', ');
  return [`${names.length} product(s) have no HSN code (give --hsn or a mapping file; invoices need it): ${shown}${names.length > 20 ? ', …' : ''}`];
}
