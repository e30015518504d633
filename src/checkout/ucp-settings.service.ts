import type { Db } from '../db/index.js';
import { recordAudit, type Actor } from '../db/audit-log.js';
import { AppError, notFound, validationError } from '../contract/errors.js';
import { HOLD_MINUTES, hostName, normaliseUcpHost, ucpSettingsBody, type UcpSettingsInput } from '../contract/ucp.js';
import { toValidationError } from '../contract/validation.js';
import {
  deleteUcpHost,
  findUcpBusinessByCompany,
  findUcpBusinessByHost,
  findUcpBusinessBySlug,
  findUcpHost,
  findUcpSettings,
  insertUcpHost,
  listUcpHosts,
  writeUcpSettings,
  type StoredUcpHost,
  type UcpBusinessRow,
} from './ucp-settings.queries.js';

/** A company's UCP business settings; the defaults while the admin has never set them. */
export interface UcpSettings {
  /** The company's slug: its UCP endpoint is /ucp/<slug>/<version>. */
  slug: string;
  enabled: boolean;
  hold_minutes: number;
  privacy_url: string | null;
  terms_url: string | null;
  /** ISO 8601; null while they are the defaults */
  updated_at: string | null;
}

/** The company a public UCP request is served for. */
export interface UcpBusiness {
  companyId: string;
  slug: string;
  name: string;
  holdMinutes: number;
  privacyUrl: string | null;
  termsUrl: string | null;
  /** the company books a courier for each new order (read with the business: complete needs no statement for it) */
  autoCourierBooking: boolean;
}

const business = (row: UcpBusinessRow | undefined): UcpBusiness | undefined =>
  row && {
    companyId: row.company_id,
    slug: row.slug,
    name: row.name,
    holdMinutes: row.hold_minutes,
    privacyUrl: row.privacy_url,
    termsUrl: row.terms_url,
    autoCourierBooking: row.auto_courier_booking,
  };

/** A registered host; `created_at` ISO 8601. (A type, not an interface: the CLI prints it as a table row.) */
export type UcpHost = { host: string; created_at: string };
const hostView = (h: StoredUcpHost): UcpHost => ({ host: h.host, created_at: h.created_at.toISOString() });

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * The company's UCP business: off until its admin turns it on (CLI `ucp enable`, or REST with a key holding the
 * `ucp` permission). Also finds the company a public UCP request names, by its slug or by a Host it registered.
 */
export function createUcpSettingsService({ db }: { db: Db }) {
  async function get(companyId: string): Promise<UcpSettings> {
    const found = await findUcpSettings(db, companyId);
    if (!found) throw notFound(`no company with id "${companyId}"`);
    const s = found.settings;
    return {
      slug: found.slug,
      enabled: s?.enabled ?? false,
      hold_minutes: s?.hold_minutes ?? HOLD_MINUTES.default,
      privacy_url: s?.privacy_url ?? null,
      terms_url: s?.terms_url ?? null,
      updated_at: s?.updated_at.toISOString() ?? null,
    };
  }

  /** A host as given (any case, a trailing dot), checked and normalised; a 400 naming `host` when it is no host name. */
  function checkedHost(raw: string): string {
    const out = normaliseUcpHost(raw);
    if ('error' in out) throw validationError([{ path: 'host', message: out.error }]);
    return out.host;
  }

  return {
    get,

    /** Changes the fields given (the same rules as the REST body); answers the settings as they are now. */
    async set(companyId: string, actor: Actor, input: UcpSettingsInput): Promise<UcpSettings> {
      const parsed = ucpSettingsBody.safeParse(input);
      if (!parsed.success) throw toValidationError(parsed.error);
      const { slug } = await get(companyId);
      const { enabled, hold_minutes } = parsed.data;
      const stored = await db.tx(async (tx) => {
        const written = await writeUcpSettings(tx, companyId, parsed.data, { enabled: false, hold_minutes: HOLD_MINUTES.default });
        await recordAudit(tx, companyId, actor, { action: 'ucp.settings_set', detail: { fields: Object.keys(parsed.data), enabled, hold_minutes } });
        return written;
      });
      return { slug, ...stored, updated_at: stored.updated_at.toISOString() };
    },

    async hosts(companyId: string): Promise<UcpHost[]> {
      return (await listUcpHosts(db, companyId)).map(hostView);
    },

    /**
     * Registers a host for the company; registering one it already has answers it unchanged. A host another company
     * registered is a 409 `conflict` that names no company.
     */
    async addHost(companyId: string, actor: Actor, raw: string): Promise<UcpHost> {
      const host = checkedHost(raw);
      const added = await db.tx(async (tx) => {
        const inserted = await insertUcpHost(tx, companyId, host);
        if (inserted) await recordAudit(tx, companyId, actor, { action: 'ucp.host_added', subjectKind: 'ucp_host', subjectId: host });
        return inserted;
      });
      if (added) return hostView(added);
      const own = await findUcpHost(db, companyId, host);
      if (own) return hostView(own);
      throw new AppError('conflict', `the host ${host} is registered for another company; it can serve one company's UCP profile only`, [
        { path: 'host', message: 'registered for another company' },
      ]);
    },

    async removeHost(companyId: string, actor: Actor, raw: string): Promise<{ host: string; removed: true }> {
      const host = checkedHost(raw);
      await db.tx(async (tx) => {
        if (!(await deleteUcpHost(tx, companyId, host))) throw notFound(`the host ${host} is not registered for this company`);
        await recordAudit(tx, companyId, actor, { action: 'ucp.host_removed', subjectKind: 'ucp_host', subjectId: host });
      });
      return { host, removed: true };
    },

    /** The company whose UCP business answers under /ucp/<slug>; undefined when none does (unknown, inactive or off). */
    async bySlug(slug: string): Promise<UcpBusiness | undefined> {
      if (!SLUG.test(slug)) return undefined;
      return business(await findUcpBusinessBySlug(db, slug));
    },

    /** The company's own UCP business, for its agents with its key; undefined while it is off. */
    async byCompany(companyId: string): Promise<UcpBusiness | undefined> {
      return business(await findUcpBusinessByCompany(db, companyId));
    },

    /**
     * The company whose UCP business answers for a request addressed to `host` (the Host header, any case, with or
     * without a port): the registration naming its port if there is one, else that of its bare name.
     */
    async byHost(host: string): Promise<UcpBusiness | undefined> {
      const out = normaliseUcpHost(host);
      if ('error' in out) return undefined;
      const candidates = [...new Set([out.host, hostName(out.host)])];
      return business(await findUcpBusinessByHost(db, candidates));
    },
  };
}

export type UcpSettingsService = ReturnType<typeof createUcpSettingsService>;
