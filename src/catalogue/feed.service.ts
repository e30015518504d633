import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/index.js';
import { recordAudit, type Actor } from '../db/audit-log.js';
import { validationError } from '../contract/errors.js';
import { Decimal } from '../lib/money.js';
import type { createMediaService } from '../media/media.service.js';
import { companyName, feedRows, feedSettings, saveFeed, type FeedRow, type FeedSettings } from './feed.queries.js';

/**
 * The WhatsApp catalogue fed from ours: a Meta commerce catalogue data feed (CSV) of the company's active
 * variants with live availability, at a URL Meta fetches on a schedule (`/feeds/meta/<company id>/<secret>.csv`, the
 * secret stored hashed and rotated by the admin), and from the admin CLI. Columns and formats follow Meta's catalogue
 * data-feed specification: required id, title, description, availability, condition, price, link, image_link and
 * brand; item_group_id ties a product's variants together.
 */

export const FEED_COLUMNS = [
  'id',
  'item_group_id',
  'title',
  'description',
  'availability',
  'condition',
  'price',
  'sale_price',
  'link',
  'image_link',
  'brand',
  'color',
  'size',
  'quantity_to_sell_on_facebook',
] as const;

/** Photo links in the feed stay valid this long: Meta fetches the feed daily and keeps images it fetched. */
export const FEED_IMAGE_TTL_SECONDS = 30 * 86400;
/** Meta's limits: title 200, description 9,999, id 100, brand 100 characters. */
const LIMITS = { title: 200, description: 9999, id: 100, brand: 100, color: 200, size: 200 } as const;

const hash = (token: string) => createHash('sha256').update(token, 'utf8').digest();
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** A variant's id in the Meta catalogue this feed fills (its SKU, as the feed's `id` column writes it): WhatsApp's retailer_id. */
export const metaRetailerId = (sku: string): string => clip(sku, LIMITS.id);

/** A CSV field: quoted when it holds a comma, a quote, a line end, or edge spaces (RFC 4180). */
const field = (v: string) => (/[",\r\n]|^\s|\s$/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

/**
 * A cell a spreadsheet would run as a formula (OWASP's CSV injection list: `=`, `+`, `-`, `@`, tab or carriage
 * return first) gets a leading single quote, so it is shown as text. Only in the file a seller opens (`--out`): Meta's
 * feed parser takes cells literally and would show that quote to shoppers, so the served feed is left as written.
 */
const inert = (v: string) => (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v);

function checkTemplate(template: string): string {
  let url: URL | undefined;
  try {
    url = new URL(template.replaceAll('{sku}', 'x').replaceAll('{product_sku}', 'x'));
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'https:' || !/\{(product_)?sku\}/.test(template))
    throw validationError([
      { path: 'template', message: 'must be an https:// URL containing {sku} or {product_sku}, e.g. https://shop.example.in/p/{product_sku}?variant={sku}' },
    ]);
  return template;
}

export type Media = Pick<ReturnType<typeof createMediaService>, 'linker'>;

export function createFeedService({ db, media }: { db: Db; media: Media }) {
  /**
   * The feed as CSV for these settings, and the variants left out (Meta refuses an item without an image);
   * `forSpreadsheet` neutralises cells a spreadsheet would take for formulas.
   */
  async function build(companyId: string, settings: FeedSettings, origin: string, nowMs: number, forSpreadsheet: boolean) {
    const [rows, company, photo] = await Promise.all([
      feedRows(db, companyId),
      companyName(db, companyId),
      media.linker(origin, nowMs, FEED_IMAGE_TTL_SECONDS),
    ]);
    const lines = [FEED_COLUMNS.join(',')];
    const leftOut: { sku: string; reason: string }[] = [];
    for (const r of rows) {
      if (!r.photo) {
        leftOut.push({ sku: r.sku, reason: 'no photo (Meta requires image_link)' });
        continue;
      }
      lines.push(
        feedLine(r, { company, template: settings.product_url_template, image: photo(r.photo) })
          .map((cell) => field(forSpreadsheet ? inert(cell) : cell))
          .join(','),
      );
    }
    return { csv: `${lines.join('\r\n')}\r\n`, rows: lines.length - 1, leftOut };
  }

  return {
    /** Turns the feed on or rotates its secret (the old URL stops working at once); the new URL's secret is shown once. */
    async rotate(companyId: string, actor: Actor, template?: string): Promise<{ token: string; template: string }> {
      const existing = await feedSettings(db, companyId);
      if (!template && !existing) throw validationError([{ path: 'template', message: 'the first time, give the product page URL template' }]);
      const token = `mfd_${randomBytes(24).toString('base64url')}`;
      const saved = await db.tx(async (tx) => {
        const written = await saveFeed(tx, companyId, hash(token), template ? checkTemplate(template) : undefined);
        // the feed by its kind only: its URL holds the secret
        await recordAudit(tx, companyId, actor, {
          action: existing ? 'catalogue.feed_rotated' : 'catalogue.feed_enabled',
          subjectKind: 'catalogue_feed',
          subjectId: 'meta',
          detail: { fields: template ? ['product_url_template'] : [] },
        });
        return written;
      });
      return { token, template: saved.product_url_template };
    },

    /**
     * The feed Meta fetches: its CSV when `token` is the company's current secret (compared in constant time), else
     * undefined (unknown company, wrong or rotated secret, feed off alike). One read of the settings.
     */
    async served(companyId: string, token: string, origin: string): Promise<string | undefined> {
      const settings = await feedSettings(db, companyId);
      const given = hash(token);
      if (!settings || given.length !== settings.token_hash.length || !timingSafeEqual(given, settings.token_hash)) return undefined;
      return (await build(companyId, settings, origin, Date.now(), false)).csv;
    },

    /** The feed as a CSV file for the seller to open (`catalog feed --out`), and the variants left out. */
    async csv(
      companyId: string,
      origin: string,
      nowMs: number = Date.now(),
    ): Promise<{ csv: string; rows: number; leftOut: { sku: string; reason: string }[] }> {
      const settings = await feedSettings(db, companyId);
      if (!settings) throw validationError([{ path: 'company', message: 'the feed is not enabled: run catalog feed with --template first' }]);
      return build(companyId, settings, origin, nowMs, true);
    },
  };
}

function attribute(attrs: Record<string, string>, name: RegExp): string {
  const key = Object.keys(attrs).find((k) => name.test(k));
  return key ? attrs[key] : '';
}

function feedLine(r: FeedRow, ctx: { company: string; template: string; image: string }): string[] {
  const title = r.variant_name && r.variant_name !== r.product_name && r.variant_name !== r.sku ? `${r.product_name} - ${r.variant_name}` : r.product_name;
  const selling = new Decimal(r.selling_price);
  const mrp = new Decimal(r.mrp);
  const onSale = mrp.gt(selling);
  const available = Decimal.max(new Decimal(r.available).floor(), 0);
  const link = ctx.template.replaceAll('{sku}', encodeURIComponent(r.sku)).replaceAll('{product_sku}', encodeURIComponent(r.product_sku));
  const values: Record<(typeof FEED_COLUMNS)[number], string> = {
    id: metaRetailerId(r.sku),
    item_group_id: clip(r.product_sku, LIMITS.id),
    title: clip(title, LIMITS.title),
    description: clip(r.description?.trim() || title, LIMITS.description),
    availability: available.gt(0) ? 'in stock' : 'out of stock',
    condition: 'new',
    price: `${(onSale ? mrp : selling).toFixed(2)} INR`,
    sale_price: onSale ? `${selling.toFixed(2)} INR` : '',
    link,
    image_link: ctx.image,
    brand: clip(r.brand ?? ctx.company, LIMITS.brand),
    color: clip(attribute(r.attributes, /^colou?r$/i), LIMITS.color),
    size: clip(attribute(r.attributes, /^size$/i), LIMITS.size),
    quantity_to_sell_on_facebook: available.toFixed(0),
  };
  return FEED_COLUMNS.map((c) => values[c]);
}
