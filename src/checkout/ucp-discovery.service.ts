import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { CheckoutView } from './checkout.service.js';
import { checkoutOut } from './ucp-output.js';
import type { UcpBusiness } from './ucp-settings.service.js';
import type { PaymentService } from '../payments/payments.service.js';
import {
  companyHandlers,
  paymentHandlers,
  payPageUrl,
  razorpayHandler,
  ucpDocuments,
  ucpEndpoint,
  ucpProfile,
  ucpProfileAt,
  supportedVersions,
  type HandlerDef,
  type UcpProfile20260408,
  type UcpProfile20260825,
  type UcpDocument,
  type UcpProfile,
} from './ucp-profile.js';
import { ucpSigningKey } from './ucp-signing-key.js';
import { findPrivacySettings } from '../customers/privacy-settings.queries.js';
import { UCP_NEWEST, UCP_VERSION, type UcpVersion } from '../contract/ucp-wire.js';

/**
 * What a UCP platform reads before it buys: a company's profile and the documents it links to. `origin` is the
 * service's public origin (PUBLIC_URL, else a trusted proxy's, else the address reached; never a Host header),
 * so every link in a profile points at this service whichever name the profile was asked under.
 */
export function createUcpDiscovery({
  db,
  config,
  payments,
}: {
  db: Db;
  config: Pick<Config, 'SIGNING_SECRET' | 'UCP_DOCS_BASE_URL' | 'UCP_TEST_HANDLERS'>;
  payments: Pick<PaymentService, 'account'>;
}) {
  const signingKey = ucpSigningKey(db, config);
  const handlers = paymentHandlers({ testHandlers: config.UCP_TEST_HANDLERS });
  // every handler any company may list has its documents here (Razorpay's do not depend on the account)
  const documents = ucpDocuments([...handlers, razorpayHandler({ keyId: '', mode: 'test' })]);
  const offered = async (companyId: string): Promise<readonly HandlerDef[]> => companyHandlers(handlers, await payments.account(companyId));

  /** The company's declarations at `version`: its endpoint, documents, handlers and key. */
  async function declared(business: UcpBusiness, origin: string, version: UcpVersion) {
    const [offeredNow, key] = await Promise.all([offered(business.companyId), signingKey()]);
    return {
      company: business,
      endpoint: ucpEndpoint(origin, business.slug, version),
      docsBase: config.UCP_DOCS_BASE_URL,
      handlers: offeredNow,
      signingKey: key.publicJwk,
    };
  }

  /**
   * The checkout's privacy_policy link: the UCP business's own privacy_url, else the company's privacy notice
   * (privacy_settings.notice_url), read only then (privacy_settings is distributed; the business row is found by slug
   * or host on reference tables, so it is not joined there).
   */
  const privacyLink = async (business: UcpBusiness): Promise<string | null> =>
    business.privacyUrl ?? (await findPrivacySettings(db, business.companyId)).notice_url;

  /** The 2026-01-11 profile, whose handlers every checkout answer lists (answers are made in 2026-01-11). */
  const profile = async (business: UcpBusiness, origin: string): Promise<UcpProfile> => ucpProfile(await declared(business, origin, UCP_VERSION));

  return {
    profile,

    /**
     * The business's discovery profile: at the root (`/.well-known/ucp`), the newest version's, naming the older
     * versions' profiles in `supported_versions`; under a version's endpoint, that version's alone (a leaf).
     */
    async discovery(
      business: UcpBusiness,
      origin: string,
      at: { root: true } | { version: UcpVersion },
    ): Promise<UcpProfile | UcpProfile20260408 | UcpProfile20260825> {
      const version = 'root' in at ? UCP_NEWEST : at.version;
      const supported = 'root' in at ? supportedVersions(origin, business.slug) : undefined;
      return ucpProfileAt(version, { ...(await declared(business, origin, version)), supportedVersions: supported });
    },

    /** A checkout as every door answers it (REST and the MCP tools): UCP's JSON, with the payment handlers the profile offers. */
    async checkout(business: UcpBusiness, view: CheckoutView, origin: string): Promise<Record<string, unknown>> {
      const [{ payment }, privacyUrl] = await Promise.all([profile(business, origin), privacyLink(business)]);
      return checkoutOut(
        view,
        { ...business, privacyUrl },
        payment.handlers,
        ucpEndpoint(origin, business.slug),
        payPageUrl(origin, business.slug, view.record.id),
      );
    },

    /** The payment handlers the company offers: Razorpay's only when it has an account (a read of its own row). */
    handlers: offered,

    /** A document a profile links to under `<endpoint>/docs/`, by its path there; undefined for any other path. */
    document(path: string): UcpDocument | undefined {
      return documents.get(path);
    },

    /** The deployment's signing key (the private half signs what the business sends). */
    signingKey,
  };
}

export type UcpDiscovery = ReturnType<typeof createUcpDiscovery>;
