import { UCP_NEWEST, UCP_VERSION, UCP_VERSIONS, type UcpVersion } from '../contract/ucp-wire.js';
import type { UcpPublicKey } from './ucp-signing-key.js';

/**
 * What a company's UCP business declares at /.well-known/ucp (the 2026-01-11 profile): the shopping service and its
 * REST endpoint, five capabilities, the payment handlers it takes and the key it signs with. Every spec and schema
 * link in it answers 200 without a redirect: the documents named here are served under the company's endpoint
 * (`<endpoint>/docs/<path>`), or, for the protocol's own (`dev.ucp.*`), from UCP_DOCS_BASE_URL when it is set.
 */

/** A document the profile links to, by its path under the docs base (ucp.dev's own layout for the protocol's). */
type DocPath = string;

interface CapabilityDef {
  name: string;
  spec: DocPath;
  schema: DocPath;
  extends?: string;
}

const SERVICE = { name: 'dev.ucp.shopping', spec: 'specification/overview', restSchema: 'services/shopping/rest.openapi.json' } as const;

const CHECKOUT = 'dev.ucp.shopping.checkout';
const CAPABILITIES: readonly CapabilityDef[] = [
  { name: CHECKOUT, spec: 'specification/checkout', schema: 'schemas/shopping/checkout.json' },
  { name: 'dev.ucp.shopping.fulfillment', spec: 'specification/fulfillment', schema: 'schemas/shopping/fulfillment.json', extends: CHECKOUT },
  { name: 'dev.ucp.shopping.discount', spec: 'specification/discount', schema: 'schemas/shopping/discount.json', extends: CHECKOUT },
  { name: 'dev.ucp.shopping.buyer_consent', spec: 'specification/buyer-consent', schema: 'schemas/shopping/buyer_consent.json', extends: CHECKOUT },
  { name: 'dev.ucp.shopping.order', spec: 'specification/order', schema: 'schemas/shopping/order.json' },
];

/** A payment handler before its document paths become links. */
export interface HandlerDef {
  id: string;
  name: string;
  title: string;
  spec: DocPath;
  config_schema: DocPath;
  instrument_schemas: DocPath[];
  /** The handler's own version when it is not the protocol's (a provider's handler is versioned by its provider). */
  version?: string;
  /** The handler's configuration in a company's profile. */
  config: (company: { slug: string; name: string }) => Record<string, unknown>;
}

/** Ours: cash on delivery, the way most Indian D2C orders are paid. */
const CASH_ON_DELIVERY: HandlerDef = {
  id: 'cod',
  name: 'in.commerce.cash_on_delivery',
  title: 'Cash on delivery',
  spec: 'handlers/cod',
  config_schema: 'handlers/cod/config.json',
  instrument_schemas: ['handlers/cod/instrument.json'],
  config: () => ({ currency: 'INR' }),
};

/**
 * The handlers the UCP conformance suite looks for by id. They take no real payment: listed only when
 * UCP_TEST_HANDLERS is on, for a conformance run.
 */
const CONFORMANCE_HANDLERS: readonly HandlerDef[] = [
  {
    id: 'mock_payment_handler',
    name: 'dev.ucp.mock_payment',
    title: 'Mock payment handler (conformance tests only)',
    spec: 'handlers/mock',
    config_schema: 'handlers/mock/config.json',
    instrument_schemas: ['schemas/shopping/types/card_payment_instrument.json'],
    config: () => ({ supported_tokens: ['success_token', 'fail_token'] }),
  },
  {
    id: 'google_pay',
    name: 'com.google.pay',
    title: 'Google Pay (conformance tests only)',
    spec: 'handlers/google_pay',
    config_schema: 'handlers/google_pay/config.json',
    instrument_schemas: ['handlers/google_pay/card_payment_instrument.json'],
    config: (company) => ({ api_version: 2, api_version_minor: 0, merchant_info: { merchant_name: company.name, merchant_id: 'TEST' } }),
  },
  {
    id: 'shop_pay',
    name: 'com.shopify.shop_pay',
    title: 'Shop Pay (conformance tests only)',
    spec: 'handlers/shop_pay',
    config_schema: 'handlers/shop_pay/config.json',
    instrument_schemas: ['handlers/shop_pay/instrument.json'],
    config: (company) => ({ shop_id: `${company.slug}-test-shop` }),
  },
];

/** The payment handlers every company takes over UCP: cash on delivery; the conformance ones in test mode. */
export function paymentHandlers({ testHandlers }: { testHandlers: boolean }): readonly HandlerDef[] {
  return testHandlers ? [CASH_ON_DELIVERY, ...CONFORMANCE_HANDLERS] : [CASH_ON_DELIVERY];
}

export const RAZORPAY_HANDLER_ID = 'razorpay';

/** A company's Razorpay account as a handler's configuration shows it: the public key id, never a secret. */
export interface RazorpayAccount {
  keyId: string;
  mode: 'test' | 'live';
}

/**
 * Razorpay's hosted checkout (`com.razorpay.magic_checkout`, the handler Razorpay proposed to UCP, version 2026-01-27),
 * for a company that configured Razorpay: completing with it answers `requires_escalation` and a page of ours that
 * opens Razorpay Checkout for the checkout's Razorpay order; the payment's webhook completes the checkout.
 */
export function razorpayHandler(account: RazorpayAccount): HandlerDef {
  return {
    id: RAZORPAY_HANDLER_ID,
    name: 'com.razorpay.magic_checkout',
    title: 'Razorpay Checkout',
    version: '2026-01-27',
    spec: 'handlers/razorpay',
    config_schema: 'handlers/razorpay/config.json',
    instrument_schemas: ['handlers/razorpay/instrument.json'],
    config: (company) => ({
      environment: account.mode === 'live' ? 'production' : 'sandbox',
      key_id: account.keyId,
      merchant_name: company.name.slice(0, 100),
    }),
  };
}

/** The handlers a company offers: every company's, and Razorpay's when it has an account. */
export const companyHandlers = (base: readonly HandlerDef[], razorpay: RazorpayAccount | null): readonly HandlerDef[] =>
  razorpay ? [...base, razorpayHandler(razorpay)] : base;

/** The page that opens Razorpay Checkout for a checkout waiting for its payment: the checkout's `continue_url`. */
export const payPageUrl = (origin: string, slug: string, checkoutId: string): string => `${origin}/ucp/${slug}/pay/${checkoutId}`;

/**
 * The endpoint of a company's UCP business at `version` (2026-01-11 unless said): REST calls are relative to it, and
 * that version's profile is under it.
 */
export const ucpEndpoint = (origin: string, slug: string, version: UcpVersion = UCP_VERSION): string => `${origin}/ucp/${slug}/${version}`;
/** The company's profile at its newest version, which names the older ones' profiles (`supported_versions`). */
export const ucpDiscoveryUrl = (origin: string, slug: string): string => `${origin}/ucp/${slug}/.well-known/ucp`;
/** The profile of one version, under that version's endpoint (a leaf: it names no other version). */
export const ucpVersionProfileUrl = (origin: string, slug: string, version: UcpVersion): string => `${ucpEndpoint(origin, slug, version)}/.well-known/ucp`;
/** The versions older than the newest, each with its profile: the newest profile's `supported_versions`. */
export const supportedVersions = (origin: string, slug: string): Record<string, string> =>
  Object.fromEntries(UCP_VERSIONS.filter((v) => v !== UCP_NEWEST).map((v) => [v, ucpVersionProfileUrl(origin, slug, v)]));

/** The protocol's own documents (ucp.dev's); a handler's are ours and always served here. */
const isProtocolDoc = (path: DocPath) => !path.startsWith('handlers/');

export interface ProfileHandler {
  id: string;
  name: string;
  version: string;
  spec: string;
  config_schema: string;
  instrument_schemas: string[];
  config: Record<string, unknown>;
}

export interface UcpProfile {
  ucp: {
    version: string;
    services: Record<string, { version: string; spec: string; rest: { schema: string; endpoint: string } }>;
    capabilities: { name: string; version: string; spec: string; schema: string; extends?: string }[];
  };
  payment: { handlers: ProfileHandler[] };
  signing_keys: UcpPublicKey[];
}

/** An entry of a 2026-04-08 registry (`services`, `capabilities`, `payment_handlers`: keyed by name, arrays of these). */
type Entry = Record<string, unknown> & { version: string };

/**
 * The 2026-04-08 profile: `ucp` holds the services (each binding with its `transport`), capabilities and payment
 * handlers as registries keyed by name; the newest profile names the older versions' profiles in `supported_versions`.
 */
export interface UcpProfile20260408 {
  ucp: {
    version: string;
    supported_versions?: Record<string, string>;
    services: Record<string, Entry[]>;
    capabilities: Record<string, Entry[]>;
    payment_handlers: Record<string, Entry[]>;
  };
  signing_keys: UcpPublicKey[];
}

/** The 2026-08-25 profile: 2026-04-08's layout, its signing keys under `keys` (a JWK Set, the profile's canonical member). */
export type UcpProfile20260825 = Omit<UcpProfile20260408, 'signing_keys'> & { keys: UcpPublicKey[] };

/**
 * One company's profile at `version`, from the same definitions: `endpoint` is that version's (ucpEndpoint),
 * `docsBase` UCP_DOCS_BASE_URL when set (2026-04-08's protocol documents are under its `2026-04-08/`, ucp.dev's
 * layout for a dated release), `supportedVersions` only in the newest version's root profile.
 */
export function ucpProfileAt(
  version: UcpVersion,
  args: Parameters<typeof ucpProfile>[0] & { supportedVersions?: Record<string, string> },
): UcpProfile | UcpProfile20260408 | UcpProfile20260825 {
  if (version === UCP_VERSION) return ucpProfile(args);
  const laidOut = ucpProfile20260408(version, { ...args, docsBase: args.docsBase ? `${args.docsBase.replace(/\/+$/, '')}/${version}` : undefined });
  if (version === '2026-04-08') return laidOut;
  const { signing_keys: keys, ...rest } = laidOut;
  return { ...rest, keys };
}

/** The 2026-04-08 profile (and 2026-08-25's, `version` written in it): ucpProfile's declarations, laid out as 2026-04-08 lays them out. */
function ucpProfile20260408(version: UcpVersion, args: Parameters<typeof ucpProfile>[0] & { supportedVersions?: Record<string, string> }): UcpProfile20260408 {
  const old = ucpProfile(args);
  const service = old.ucp.services[SERVICE.name];
  const registry = <T extends { name: string }>(items: T[], entry: (item: T) => Entry): Record<string, Entry[]> => {
    const out: Record<string, Entry[]> = {};
    for (const item of items) (out[item.name] ??= []).push(entry(item));
    return out;
  };
  return {
    ucp: {
      version,
      ...(args.supportedVersions && Object.keys(args.supportedVersions).length ? { supported_versions: args.supportedVersions } : {}),
      services: { [SERVICE.name]: [{ version, spec: service.spec, transport: 'rest', endpoint: service.rest.endpoint, schema: service.rest.schema }] },
      capabilities: registry(old.ucp.capabilities, ({ name: _, ...c }) => ({ ...c, version })),
      payment_handlers: registry(old.payment.handlers, (h) => ({
        id: h.id,
        version: h.version === UCP_VERSION ? version : h.version,
        spec: h.spec,
        schema: h.config_schema,
        config: h.config,
      })),
    },
    signing_keys: old.signing_keys,
  };
}

/** The 2026-01-11 profile of one company: `endpoint` from ucpEndpoint, `docsBase` UCP_DOCS_BASE_URL when set. */
export function ucpProfile({
  company,
  endpoint,
  docsBase,
  handlers,
  signingKey,
}: {
  company: { slug: string; name: string };
  endpoint: string;
  docsBase?: string;
  handlers: readonly HandlerDef[];
  signingKey: UcpPublicKey;
}): UcpProfile {
  const base = docsBase?.replace(/\/+$/, '');
  const link = (path: DocPath) => (base && isProtocolDoc(path) ? `${base}/${path}` : `${endpoint}/docs/${path}`);
  return {
    ucp: {
      version: UCP_VERSION,
      services: {
        [SERVICE.name]: { version: UCP_VERSION, spec: link(SERVICE.spec), rest: { schema: link(SERVICE.restSchema), endpoint } },
      },
      capabilities: CAPABILITIES.map((c) => ({
        name: c.name,
        version: UCP_VERSION,
        spec: link(c.spec),
        schema: link(c.schema),
        ...(c.extends ? { extends: c.extends } : {}),
      })),
    },
    payment: {
      handlers: handlers.map((h) => ({
        id: h.id,
        name: h.name,
        version: h.version ?? UCP_VERSION,
        spec: link(h.spec),
        config_schema: link(h.config_schema),
        instrument_schemas: h.instrument_schemas.map(link),
        config: h.config(company),
      })),
    },
    signing_keys: [signingKey],
  };
}

/** A document served under `<endpoint>/docs/`: its media type and text. */
export interface UcpDocument {
  contentType: string;
  body: string;
}

const TITLES: Record<DocPath, string> = {
  [SERVICE.spec]: 'UCP shopping service: overview',
  [SERVICE.restSchema]: 'UCP shopping service: REST binding',
  'schemas/shopping/types/card_payment_instrument.json': 'UCP card payment instrument',
  ...Object.fromEntries(CAPABILITIES.flatMap((c) => [c.spec, c.schema].map((p) => [p, `UCP capability ${c.name}`]))),
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The documents a profile of this deployment can link to, by path: minimal stand-ins that name the canonical document
 * (ucp.dev's for the protocol's own), so every link answers without leaving the machine. `handlers` are the payment
 * handlers any company may list (ucpProfile's), whose pages say what the handler takes.
 */
export function ucpDocuments(handlers: readonly HandlerDef[]): ReadonlyMap<DocPath, UcpDocument> {
  const docs = new Map<DocPath, UcpDocument>();
  const page = (path: DocPath, title: string, text: string) => {
    const canonical = isProtocolDoc(path) ? `https://ucp.dev/${path}` : undefined;
    const more = canonical ? `<p>The canonical text is at <a href="${canonical}">${canonical}</a>.</p>` : '';
    docs.set(path, {
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${more}</body></html>`,
    });
  };
  const schema = (path: DocPath, title: string, body: Record<string, unknown> = { type: 'object' }) => {
    const canonical = isProtocolDoc(path) ? `https://ucp.dev/${path}` : undefined;
    const described = canonical ? { $id: canonical, description: `${title} (UCP ${UCP_VERSION}); the full schema is at ${canonical}.` } : {};
    docs.set(path, {
      contentType: 'application/json; charset=utf-8',
      body: JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', title, ...described, ...body }),
    });
  };

  const versions = `${UCP_VERSIONS.slice(0, -1).join(', ')} and ${UCP_NEWEST}`;
  page(SERVICE.spec, TITLES[SERVICE.spec], `This business implements UCP versions ${versions} over REST, each under its own endpoint.`);
  docs.set(SERVICE.restSchema, {
    contentType: 'application/json; charset=utf-8',
    body: JSON.stringify({
      openapi: '3.1.0',
      info: {
        title: TITLES[SERVICE.restSchema],
        version: UCP_VERSION,
        description: `The UCP shopping service's REST binding, version ${UCP_VERSION}; the full document is at https://ucp.dev/${SERVICE.restSchema}.`,
      },
      paths: {},
    }),
  });
  for (const c of CAPABILITIES) {
    page(c.spec, TITLES[c.spec], `This business offers the ${c.name} capability, version ${UCP_VERSION}.`);
    schema(c.schema, TITLES[c.schema]);
  }
  for (const h of handlers) {
    page(h.spec, h.title, `Payment handler ${h.name} (id ${h.id}).`);
    schema(h.config_schema, `${h.title}: configuration`);
    for (const path of h.instrument_schemas) {
      if (path === CASH_ON_DELIVERY.instrument_schemas[0]) {
        schema(path, `${h.title}: instrument`, {
          type: 'object',
          required: ['id', 'handler_id', 'type'],
          properties: { id: { type: 'string' }, handler_id: { const: h.id }, type: { const: 'cod' } },
        });
      } else schema(path, TITLES[path] ?? `${h.title}: instrument`);
    }
  }
  return docs;
}
