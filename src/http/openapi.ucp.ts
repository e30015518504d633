import { z } from 'zod';
import { completeCheckoutBody, createCheckoutBody, ucpCheckoutSchema, updateCheckoutBody } from '../contract/ucp-checkout.js';
import { UCP_VERSION } from '../contract/ucp-wire.js';

/**
 * The public UCP business surface (src/http/routes/ucp.ts) in the service's OpenAPI document: documentation only (the
 * routes declare no schemas; they read their bodies with the same zod schemas and answer UCP's error body from
 * src/http/ucp-scope.ts). Its paths are absolute server paths: each path item carries `servers: [UCP_SERVER]`, since
 * the document's own server is the API's base path. No API key (`security: []`). The conformance harness (present
 * only with UCP_SIMULATION_SECRET) and the documents under `…/docs/` the profile links to are not operations and are
 * left out; docs/ucp.md covers both.
 */

export const UCP_TAG = 'UCP';
export const UCP_TAG_DOC = {
  name: UCP_TAG,
  description:
    'The public Universal Commerce Protocol (2026-01-11) surface agents buy through: discovery, checkout sessions and orders. ' +
    'No API key; limited per client address and per company. Errors are UCP’s `{ detail, code, messages }`.',
};
/** The server of the UCP paths: this server's root (the document's own server is the API's base path). */
export const UCP_SERVER = { url: '/', description: 'this server’s root: the public UCP surface (paths are absolute)' };

/** Whether a route URL is on the public UCP surface (the keyed API's `/ucp/settings` is under the base path). */
export const isUcpRoute = (url: string) => url.startsWith('/ucp/') || url === '/.well-known/ucp';
/**
 * Whether a path of the document is on the public UCP surface. The keyed API's paths are relative to the base path,
 * so its `/ucp/settings` and `/ucp/hosts` are not: every public one is under `/ucp/{slug}/`.
 */
export const isUcpDocPath = (path: string) => path.startsWith('/ucp/{slug}/') || path === '/.well-known/ucp';

type Op = 'profile' | 'rootProfile' | 'hostProfile' | 'create' | 'get' | 'update' | 'complete' | 'cancel' | 'order' | 'pay';

const E = `/ucp/:slug/${UCP_VERSION}`;
/** Route URL (as Fastify registers it) → the operation it is. Anything else on the UCP surface is hidden. */
const ROUTES: Record<string, Op> = {
  'GET /ucp/:slug/.well-known/ucp': 'rootProfile',
  [`GET ${E}/.well-known/ucp`]: 'profile',
  'GET /.well-known/ucp': 'hostProfile',
  [`POST ${E}/checkout-sessions`]: 'create',
  [`GET ${E}/checkout-sessions/:id`]: 'get',
  [`PUT ${E}/checkout-sessions/:id`]: 'update',
  [`POST ${E}/checkout-sessions/:id/complete`]: 'complete',
  [`POST ${E}/checkout-sessions/:id/cancel`]: 'cancel',
  [`GET ${E}/orders/:id`]: 'order',
  'GET /ucp/:slug/orders/:id': 'order',
  'GET /ucp/:slug/pay/:id': 'pay',
};

/** One message of UCP's error body (src/contract/ucp-wire.ts). */
const ucpErrorMessage = z.object({
  type: z.literal('error'),
  code: z.string(),
  content: z.string(),
  severity: z.literal('recoverable'),
  path: z.string().optional().describe('JSONPath of the member at fault, e.g. `$.buyer.phone_number`'),
});

/** UCP's error body with the codes a status answers on an operation. */
function ucpError(codes: readonly string[], description: string, retryAfter = false) {
  const meta: Record<string, unknown> = { description };
  if (retryAfter) meta.headers = { 'retry-after': { type: 'integer', description: 'Seconds to wait before retrying' } };
  return z
    .object({
      detail: z.string().describe('What went wrong, in words'),
      code: codes.length === 1 ? z.literal(codes[0]) : z.enum(codes as [string, ...string[]]),
      messages: z.array(ucpErrorMessage).min(1),
    })
    .meta(meta);
}

// The codes by status. Malformed JSON, a body too large and a body that is not JSON are the API's
// `validation_failed` in UCP's body; rate limits, faults and overload likewise keep the API's code.
const VERSION = 'version_unsupported';
const BODY = ['invalid_request', 'validation_failed'];
const STATES = ['checkout_not_modifiable', 'checkout_expired'];

const common = {
  404: ucpError(['not_found'], '`not_found`: no such business (unknown slug or host, business off, company inactive) or no such checkout/order'),
  429: ucpError(['rate_limited'], '`rate_limited`: past the per-address or per-company budget; wait Retry-After seconds', true),
  500: ucpError(['internal'], '`internal`: server fault; safe to retry (writes with the same Idempotency-Key)'),
  503: ucpError(['unavailable'], '`unavailable`: overloaded, nothing was done; retry after Retry-After seconds', true),
};
const bodyRefusals = {
  413: ucpError(['validation_failed'], '`validation_failed`: body larger than 32 KB'),
  415: ucpError(['validation_failed'], '`validation_failed`: body not `application/json`'),
};
const idempotencyConflict = '`idempotency_conflict`: the Idempotency-Key was used with another body, or its first request is still being answered';

const checkoutOut = (description: string) => ucpCheckoutSchema.meta({ description });

/** The order a completed checkout made (src/checkout/ucp-output.ts orderOut), amounts in paise. */
const total = z.object({ type: z.string(), amount: z.number().int(), display_text: z.string().optional() });
const ucpOrderSchema = z
  .object({
    ucp: z.object({ version: z.string(), capabilities: z.array(z.object({ name: z.string(), version: z.string() })) }),
    id: z.string(),
    checkout_id: z.string(),
    permalink_url: z.string(),
    line_items: z.array(
      z.object({
        id: z.string(),
        item: z.object({ id: z.string(), title: z.string(), price: z.number().int() }),
        quantity: z.object({ total: z.number().int(), fulfilled: z.number().int() }),
        totals: z.array(total),
        status: z.string().describe('processing or fulfilled'),
      }),
    ),
    fulfillment: z.object({ expectations: z.array(z.record(z.string(), z.unknown())), events: z.array(z.record(z.string(), z.unknown())) }),
    adjustments: z.array(z.unknown()),
    totals: z.array(total),
  })
  .meta({ description: 'The order (UCP `dev.ucp.shopping.order`)' });

const ucpProfileSchema = z
  .object({
    ucp: z.object({ version: z.string(), services: z.record(z.string(), z.unknown()), capabilities: z.array(z.record(z.string(), z.unknown())) }).loose(),
    payment: z.object({ handlers: z.array(z.record(z.string(), z.unknown())) }).loose(),
    signing_keys: z.array(z.record(z.string(), z.unknown())),
  })
  .loose()
  .meta({ description: "The business's UCP profile: services (the REST endpoint), capabilities, payment handlers, signing keys" });

/**
 * The profile at the business's root and on a registered host: the newest version's (2026-08-25: services,
 * capabilities and payment handlers keyed by name inside `ucp`, `supported_versions` naming the older versions'
 * profiles, its keys in `keys`; docs/ucp.md "Versions").
 */
const ucpNewestProfileSchema = z
  .object({
    ucp: z
      .object({
        version: z.string(),
        supported_versions: z.record(z.string(), z.string()).optional().describe('Each older version served, with the URL of its profile'),
        services: z.record(z.string(), z.unknown()),
      })
      .loose(),
    keys: z.array(z.record(z.string(), z.unknown())).describe('The business’s public signing keys (2026-08-25; `signing_keys` before it)'),
  })
  .loose()
  .meta({ description: "The business's UCP profile at the newest version served (2026-08-25), naming the older versions' profiles" });

const slug = z.string().describe("The company's UCP slug (as in its profile URL)");
const checkoutId = z.string().describe('The checkout id (`chk_…`)');
const headers = (write: boolean) =>
  z.object({
    'UCP-Agent': z
      .string()
      .optional()
      .describe(
        'The platform: `profile="<its profile URL>"`, optionally `; version="YYYY-MM-DD"` (a version newer than 2026-01-11 is 400 `version_unsupported`). ' +
          'On create, the profile is read for where the platform wants order events.',
      ),
    ...(write
      ? {
          'Idempotency-Key': z
            .string()
            .optional()
            .describe(
              'The platform’s key for this write (a UUID): the same key with the same body answers the first answer again, byte for byte; with another body, 409 `idempotency_conflict`',
            ),
        }
      : {}),
    'Request-Id': z
      .string()
      .optional()
      .describe('UCP’s request id; accepted and not used. For log correlation send `X-Request-Id`, which every response echoes'),
  });

interface UcpOperation {
  operationId: string;
  summary: string;
  description: string;
  params?: z.ZodObject;
  headers?: z.ZodObject;
  body?: z.ZodType;
  response: Record<number, unknown>;
}

const OPERATIONS: Record<Op, UcpOperation> = {
  profile: {
    operationId: 'ucpProfile',
    summary: "The business's UCP profile (discovery)",
    description:
      'Discovery: the 2026-01-11 profile of the company’s UCP business, at `/ucp/{slug}/2026-01-11/.well-known/ucp`, under the ' +
      'profile’s REST `endpoint` (every operation below is under it).',
    params: z.object({ slug }),
    response: { 200: ucpProfileSchema, ...common },
  },
  rootProfile: {
    operationId: 'ucpProfileAtRoot',
    summary: "The business's UCP profile (discovery, newest version)",
    description:
      'Discovery at the business’s root: the profile of the newest UCP version served, whose `supported_versions` names the profile of each ' +
      'older one (`/ucp/{slug}/2026-01-11/.well-known/ucp` among them, documented here). The operations of the newer versions are the ' +
      'same as below in their versions’ shapes, under their own endpoints (docs/ucp.md "Versions").',
    response: { 200: ucpNewestProfileSchema, ...common },
  },
  hostProfile: {
    operationId: 'ucpProfileByHost',
    summary: "The business's UCP profile on a registered host",
    description: 'The root profile at `https://<host>/.well-known/ucp` for a host the company registered (`POST {base}/ucp/hosts`); any other host is 404.',
    response: { 200: ucpNewestProfileSchema, ...common },
  },
  create: {
    operationId: 'ucpCreateCheckout',
    summary: 'Create a checkout session',
    description:
      'Lines priced from the catalogue (the platform’s prices and titles are ignored), their stock held for the company’s hold time. ' +
      '`item.id` is a SKU, variant id or barcode; amounts are integers in paise. Ready for completion (`ready_for_complete`) once every line ' +
      'is in stock and a shipping destination and option are chosen.',
    params: z.object({ slug }),
    headers: headers(true),
    body: createCheckoutBody,
    response: {
      201: checkoutOut('The checkout, created'),
      400: ucpError(
        [...BODY, VERSION, 'not_found', 'out_of_stock'],
        '`invalid_request` (a member is wrong; `path` names it), `validation_failed` (malformed JSON), `version_unsupported`, `not_found` (an item that is not for sale), `out_of_stock` (no location ships orders)',
      ),
      404: common[404],
      409: ucpError(['out_of_stock', 'idempotency_conflict'], `\`out_of_stock\`: not enough stock to hold; ${idempotencyConflict}`),
      ...bodyRefusals,
      429: common[429],
      500: common[500],
      503: common[503],
    },
  },
  get: {
    operationId: 'ucpGetCheckout',
    summary: 'Read a checkout session',
    description: 'The checkout in the shape the writes answer; a completed checkout reads as it was completed.',
    params: z.object({ slug, id: checkoutId }),
    headers: headers(false),
    response: { 200: checkoutOut('The checkout'), 400: ucpError([VERSION], '`version_unsupported`'), ...common },
  },
  update: {
    operationId: 'ucpUpdateCheckout',
    summary: 'Update a checkout session',
    description:
      'Lines replace lines and their holds move in one step; buyer, fulfillment and discount codes left out are kept. ' +
      'A canceled, completed or expired checkout cannot be changed (409).',
    params: z.object({ slug, id: checkoutId }),
    headers: headers(true),
    body: updateCheckoutBody,
    response: {
      200: checkoutOut('The checkout, updated'),
      400: ucpError(
        [...BODY, VERSION, 'not_found', 'out_of_stock'],
        '`invalid_request` (a member is wrong; `path` names it), `validation_failed` (malformed JSON), `version_unsupported`, `not_found` (an item that is not for sale), `out_of_stock`',
      ),
      404: common[404],
      409: ucpError(
        [...STATES, 'out_of_stock', 'idempotency_conflict'],
        `\`checkout_not_modifiable\` (canceled or completed), \`checkout_expired\`, \`out_of_stock\`; ${idempotencyConflict}`,
      ),
      ...bodyRefusals,
      429: common[429],
      500: common[500],
      503: common[503],
    },
  },
  complete: {
    operationId: 'ucpCompleteCheckout',
    summary: 'Complete a checkout session (place the order)',
    description:
      'The checkout becomes a confirmed order: the answer is the checkout with `status: completed` and `order` `{ id, permalink_url }`. ' +
      'Handlers: `cod` (cash on delivery, addresses in India) and, when configured, `razorpay` (answers `requires_escalation` with a ' +
      '`continue_url`: the pay page). A second completion never makes a second order.',
    params: z.object({ slug, id: checkoutId }),
    headers: headers(true),
    body: completeCheckoutBody,
    response: {
      200: checkoutOut('The checkout, completed (or `requires_escalation` with a `continue_url` for Razorpay)'),
      400: ucpError(
        [...BODY, VERSION, 'missing', 'invalid_address', 'invalid_payment'],
        '`invalid_request`, `validation_failed` (malformed JSON), `version_unsupported`, `missing` (no destination or option chosen, or no mobile number for delivery in India), ' +
          '`invalid_address` (an Indian destination without street and city, or a PIN code that is not one), `invalid_payment` (a handler not offered, cash on delivery outside India, a credential bound to another checkout)',
      ),
      402: ucpError(['payment_declined'], '`payment_declined`: the checkout stays ready with its stock held'),
      404: common[404],
      409: ucpError(
        [...STATES, 'checkout_changed', 'out_of_stock', 'idempotency_conflict'],
        '`checkout_not_modifiable` (canceled or completed already), `checkout_expired` (past its hold time), `checkout_changed` (changed while being completed: read it and complete again), ' +
          `\`out_of_stock\` (the stock ran out after the hold lapsed); ${idempotencyConflict}`,
      ),
      ...bodyRefusals,
      429: common[429],
      500: common[500],
      503: ucpError(
        ['payment_unavailable', 'unavailable'],
        '`payment_unavailable`: Razorpay did not take the order request (try again); `unavailable`: overloaded',
        true,
      ),
    },
  },
  cancel: {
    operationId: 'ucpCancelCheckout',
    summary: 'Cancel a checkout session',
    description: 'Its stock holds are released at once. No body is needed.',
    params: z.object({ slug, id: checkoutId }),
    headers: headers(true),
    response: {
      200: checkoutOut('The checkout, canceled'),
      400: ucpError([...BODY, VERSION], '`validation_failed` (malformed JSON), `version_unsupported`'),
      404: common[404],
      409: ucpError(
        [...STATES, 'idempotency_conflict'],
        `\`checkout_not_modifiable\` (canceled or completed already), \`checkout_expired\`; ${idempotencyConflict}`,
      ),
      ...bodyRefusals,
      429: common[429],
      500: common[500],
      503: common[503],
    },
  },
  order: {
    operationId: 'ucpGetOrder',
    summary: 'Read an order a checkout made',
    description:
      'Its lines, promised delivery, fulfilment events (shipped, delivered) and totals. Served under the 2026-01-11 endpoint (the order’s ' +
      '`permalink_url`) and at the business’s root `/ucp/{slug}/orders/{id}`.',
    params: z.object({ slug, id: z.string().describe('The order id (`ord_…`)') }),
    headers: headers(false),
    response: { 200: ucpOrderSchema, 400: ucpError([VERSION], '`version_unsupported` (under the 2026-01-11 endpoint)'), ...common },
  },
  pay: {
    operationId: 'ucpPayPage',
    summary: 'The pay page of a checkout (HTML, for the buyer)',
    description:
      'A checkout’s `continue_url` while its buyer must pay on Razorpay: an HTML page that opens Razorpay Checkout for the checkout’s ' +
      'Razorpay order. Hand it to the buyer; it is not an API.',
    params: z.object({ slug, id: checkoutId }),
    response: { 200: { description: 'The pay page', content: { 'text/html': { schema: z.string() } } }, ...common },
  },
};

/**
 * The documentation of a route on the UCP surface (its schema as a route would declare it, for the zod transform), or
 * `hide` for a route of the surface that is not documented (the harness, `…/docs/*`).
 */
export function ucpRouteSchema(method: string, url: string): Record<string, unknown> {
  const op = ROUTES[`${method} ${url}`];
  if (!op) return { hide: true };
  const { operationId, summary, description, ...schemas } = OPERATIONS[op];
  const id =
    url.startsWith(`/ucp/:slug/${UCP_VERSION}/`) || op === 'hostProfile' || op === 'rootProfile' || op === 'pay' ? operationId : `${operationId}AtRoot`;
  return { operationId: id, summary, description, tags: [UCP_TAG], security: [], ...schemas };
}

/** Each UCP path item served from the server's root rather than the API's base path. */
export function withUcpServers(document: { paths?: Record<string, unknown> }): void {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (isUcpDocPath(path)) document.paths![path] = { servers: [UCP_SERVER], ...(item as object) };
  }
}
