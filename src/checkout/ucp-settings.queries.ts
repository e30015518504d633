import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { columnList, ucpHosts, ucpSettings, type UcpSettingsRow } from '../db/schema/index.js';

/** A company's UCP settings and hosts, and the lookup that finds the company a public UCP request names. */

const SETTINGS_FIELDS = ['enabled', 'hold_minutes', 'privacy_url', 'terms_url', 'updated_at'] as const;
const SETTINGS_COLUMNS = columnList(ucpSettings, SETTINGS_FIELDS);
export type StoredUcpSettings = Pick<UcpSettingsRow, (typeof SETTINGS_FIELDS)[number]>;

/** The company's slug and its settings row (absent while the admin has never set them); undefined: no such company. */
export async function findUcpSettings(db: Db, companyId: string): Promise<{ slug: string; settings?: StoredUcpSettings } | undefined> {
  const rows = await db.query<{ slug: string } & { [K in keyof StoredUcpSettings]: StoredUcpSettings[K] | null }>(sql`
    SELECT c.slug, s.enabled, s.hold_minutes, s.privacy_url, s.terms_url, s.updated_at
      FROM companies c
      LEFT JOIN ucp_settings s ON s.company_id = c.id AND s.company_id = ${companyId}
     WHERE c.id = ${companyId}`);
  const row = rows[0];
  if (!row) return undefined;
  const { slug, ...settings } = row;
  return settings.updated_at === null ? { slug } : { slug, settings: settings as StoredUcpSettings };
}

/** Fields to change: absent keeps the stored value (or the default on a first write); null clears a link. */
export interface UcpSettingsChange {
  enabled?: boolean;
  hold_minutes?: number;
  privacy_url?: string | null;
  terms_url?: string | null;
}

/**
 * Writes the change in one statement, so two admins changing different fields at once both keep theirs. `defaults`
 * fill a first row's fields the change leaves out.
 */
export async function writeUcpSettings(
  db: Db,
  companyId: string,
  change: UcpSettingsChange,
  defaults: { enabled: boolean; hold_minutes: number },
): Promise<StoredUcpSettings> {
  const privacySet = change.privacy_url !== undefined;
  const termsSet = change.terms_url !== undefined;
  const rows = await db.query<StoredUcpSettings>(sql`
    INSERT INTO ucp_settings AS s (company_id, enabled, hold_minutes, privacy_url, terms_url, updated_at)
    VALUES (${companyId}, ${change.enabled ?? defaults.enabled}, ${change.hold_minutes ?? defaults.hold_minutes}::integer,
            ${change.privacy_url ?? null}, ${change.terms_url ?? null}, now())
    ON CONFLICT (company_id) DO UPDATE SET
      enabled = ${change.enabled === undefined ? sql`s.enabled` : sql`EXCLUDED.enabled`},
      hold_minutes = ${change.hold_minutes === undefined ? sql`s.hold_minutes` : sql`EXCLUDED.hold_minutes`},
      privacy_url = ${privacySet ? sql`EXCLUDED.privacy_url` : sql`s.privacy_url`},
      terms_url = ${termsSet ? sql`EXCLUDED.terms_url` : sql`s.terms_url`},
      updated_at = EXCLUDED.updated_at
    RETURNING ${SETTINGS_COLUMNS}`);
  return rows[0];
}

const HOST_FIELDS = ['host', 'created_at'] as const;
const HOST_COLUMNS = columnList(ucpHosts, HOST_FIELDS);
export type StoredUcpHost = Pick<typeof ucpHosts.$inferSelect, (typeof HOST_FIELDS)[number]>;

export async function listUcpHosts(db: Db, companyId: string): Promise<StoredUcpHost[]> {
  return db.query<StoredUcpHost>(sql`SELECT ${HOST_COLUMNS} FROM ucp_hosts WHERE company_id = ${companyId} ORDER BY host`);
}

/** The new host; undefined when the host is registered already, by this company or another (host is unique). */
export async function insertUcpHost(db: Db, companyId: string, host: string): Promise<StoredUcpHost | undefined> {
  const rows = await db.query<StoredUcpHost>(sql`
    INSERT INTO ucp_hosts (company_id, host) VALUES (${companyId}, ${host})
    ON CONFLICT DO NOTHING
    RETURNING ${HOST_COLUMNS}`);
  return rows[0];
}

/** The host when this company has registered it. */
export async function findUcpHost(db: Db, companyId: string, host: string): Promise<StoredUcpHost | undefined> {
  const rows = await db.query<StoredUcpHost>(sql`SELECT ${HOST_COLUMNS} FROM ucp_hosts WHERE company_id = ${companyId} AND host = ${host}`);
  return rows[0];
}

export async function deleteUcpHost(db: Db, companyId: string, host: string): Promise<boolean> {
  const rows = await db.query(sql`DELETE FROM ucp_hosts WHERE company_id = ${companyId} AND host = ${host} RETURNING host`);
  return rows.length === 1;
}

/** The company a public UCP request is served for, with what its answers need. */
export interface UcpBusinessRow {
  company_id: string;
  slug: string;
  name: string;
  hold_minutes: number;
  privacy_url: string | null;
  terms_url: string | null;
  auto_courier_booking: boolean;
}

/**
 * The active company with this slug whose UCP business is on, in one statement on the slug's unique index and the
 * settings' primary key (reference tables on Citus, so any node answers alone). Undefined for an unknown slug, an
 * inactive company and a business that is off alike.
 */
export async function findUcpBusinessBySlug(db: Db, slug: string): Promise<UcpBusinessRow | undefined> {
  const rows = await db.query<UcpBusinessRow>(
    sql`SELECT c.id AS company_id, c.slug, c.name, c.auto_courier_booking, s.hold_minutes, s.privacy_url, s.terms_url
          FROM companies c
          JOIN ucp_settings s ON s.company_id = c.id
         WHERE c.slug = ${slug} AND c.status = 'active' AND s.enabled`,
    'ucp_business_by_slug',
  );
  return rows[0];
}

/** The company's own business (the MCP checkout tools, with its key), when the company is active and its business on. */
export async function findUcpBusinessByCompany(db: Db, companyId: string): Promise<UcpBusinessRow | undefined> {
  const rows = await db.query<UcpBusinessRow>(
    sql`SELECT c.id AS company_id, c.slug, c.name, c.auto_courier_booking, s.hold_minutes, s.privacy_url, s.terms_url
          FROM companies c
          JOIN ucp_settings s ON s.company_id = c.id AND s.company_id = ${companyId}
         WHERE c.id = ${companyId} AND c.status = 'active' AND s.enabled`,
    'ucp_business_by_company',
  );
  return rows[0];
}

/**
 * The company that registered the host a request was addressed to, when it is active and its business on. `candidates`
 * are the Host with its port and without: the most specific registered one decides, so a host registered with a port
 * is never answered for by the registration of its bare name. One statement on host's unique index.
 */
export async function findUcpBusinessByHost(db: Db, candidates: readonly string[]): Promise<UcpBusinessRow | undefined> {
  const rows = await db.query<UcpBusinessRow>(
    sql`SELECT c.id AS company_id, c.slug, c.name, c.auto_courier_booking, s.hold_minutes, s.privacy_url, s.terms_url
          FROM (SELECT company_id FROM ucp_hosts WHERE host = ANY(${sql.param(candidates)}::text[]) ORDER BY length(host) DESC LIMIT 1) h
          JOIN companies c ON c.id = h.company_id
          JOIN ucp_settings s ON s.company_id = h.company_id
         WHERE c.status = 'active' AND s.enabled`,
    'ucp_business_by_host',
  );
  return rows[0];
}
