/**
 * What a log line or a trace span may say of a request. A path can carry a secret or personal data:
 * a feed's secret (`/feeds/meta/<company>/<secret>.csv`), an invoice link's signature, an order's external reference
 * holding a phone number (`/orders/wa-919812345678-1`). So a request is shown by its route template
 * (`/api/v1/commerce/orders/:reference`), with the values of the few parameters that are plain ids beside it; the path
 * of a request that matched no route keeps only its word-like segments; a query keeps the values of paging and
 * catalogue filters only. Everything else is `***`, names kept where they are plain words so a reader sees what was asked.
 */

export const MASK = '***';

/** Route parameters whose values are ids (a product, a webhook endpoint, a company, a company's UCP slug), shown beside the template. */
const SHOWN_PARAMS = new Set(['id', 'company', 'slug']);
/** Query parameters whose values are shown: paging and catalogue filters. Phones, e-mails, signatures, expiry times and any name not listed are masked. */
const SHOWN_QUERY = new Set(['search', 'category', 'brand', 'in_stock', 'limit', 'offset', 'recent_orders']);
/** A value that reads like a phone number (7 or more digits, however spaced) or an e-mail address is masked even under a shown name. */
const PERSONAL = /@|\d(?:[\s().+-]{0,2}\d){6,}/;
/** A path segment or a parameter name shown as it is: a plain word (`orders`, `catalog`, `messaging-opt-out`, `recent_orders`) or an API version. */
const WORD = /^(?:[A-Za-z][A-Za-z_-]{0,39}|v\d{1,3})$/;

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

function maskedQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decode(eq === -1 ? pair : pair.slice(0, eq))?.trim();
      if (name === undefined || !WORD.test(name)) return `${MASK}=${MASK}`;
      const value = eq === -1 ? '' : pair.slice(eq + 1);
      const text = decode(value);
      const shown = SHOWN_QUERY.has(name.toLowerCase()) && text !== undefined && !PERSONAL.test(text);
      return `${name}=${shown ? value : MASK}`;
    })
    .join('&');
}

/** A path that matched no route, with every segment that is not a plain word masked. */
function maskedPath(path: string): string {
  return path
    .split('/')
    .map((segment) => (segment === '' || WORD.test(segment) ? segment : MASK))
    .join('/');
}

/**
 * The URL as a log line shows it: `template` (the matched route, e.g. `/api/v1/commerce/orders/:reference`) or, without
 * one, the path masked segment by segment; then the query with only paging and filter values kept.
 */
export function maskUrl(url: string | undefined, template?: string): string | undefined {
  if (typeof url !== 'string') return undefined;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const shownPath = typeof template === 'string' && template !== '' ? template : maskedPath(path);
  return q === -1 || q === url.length - 1 ? shownPath : `${shownPath}?${maskedQuery(url.slice(q + 1))}`;
}

/** The values of a matched route's id parameters; undefined when it has none. */
export function shownParams(params: unknown): Record<string, string> | undefined {
  if (!params || typeof params !== 'object') return undefined;
  const shown: Record<string, string> = {};
  for (const name of SHOWN_PARAMS) {
    const value = (params as Record<string, unknown>)[name];
    if (typeof value === 'string' && !PERSONAL.test(value)) shown[name] = value.slice(0, 100);
  }
  return Object.keys(shown).length ? shown : undefined;
}

/** What a Fastify request (or a bare IncomingMessage) is read for; any of it may be missing. */
interface RequestLike {
  method?: unknown;
  url?: unknown;
  params?: unknown;
  routeOptions?: { url?: unknown };
  host?: unknown;
  ip?: unknown;
  socket?: { remotePort?: unknown };
}

/** The request's URL and id parameters as a log line or a span shows them (see the top of this file). */
export function requestTarget(req: RequestLike): { url: string | undefined; params?: Record<string, string> } {
  const template = typeof req.routeOptions?.url === 'string' ? req.routeOptions.url : undefined;
  const url = maskUrl(typeof req.url === 'string' ? req.url : undefined, template);
  const params = template ? shownParams(req.params) : undefined;
  return params ? { url, params } : { url };
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * pino's `req` serializer (Fastify's "incoming request" line and any line logged with `req`): method, masked target,
 * host and peer. Total: whatever is logged under `req` (a string, null, a getter that throws) gives a line, never an
 * exception.
 */
export function serializeRequest(req: unknown): Record<string, unknown> {
  if (!req || typeof req !== 'object') return { url: undefined };
  try {
    const r = req as RequestLike;
    const port = r.socket?.remotePort;
    return {
      method: text(r.method),
      ...requestTarget(r),
      host: text(r.host),
      remoteAddress: text(r.ip),
      remotePort: typeof port === 'number' ? port : undefined,
    };
  } catch {
    return { url: undefined };
  }
}
