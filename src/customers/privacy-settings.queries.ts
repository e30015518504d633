import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { columnList, privacySettings, type PrivacySettingsRow } from '../db/schema/index.js';

/** A company's privacy settings (migration 0032): the one reader and writer of privacy_settings. */

const FIELDS = [
  'notice_url',
  'events_retention_days',
  'jobs_retention_days',
  'checkout_sessions_retention_days',
  'inactive_customer_years',
  'audit_retention_days',
  'updated_at',
] as const;
const COLUMNS = columnList(privacySettings, FIELDS);
export type PrivacySettings = Pick<PrivacySettingsRow, (typeof FIELDS)[number]>;

/** What a company that never set anything has (the migration's defaults). */
export const DEFAULT_PRIVACY_SETTINGS: Omit<PrivacySettings, 'updated_at'> = {
  notice_url: null,
  events_retention_days: 30,
  jobs_retention_days: 30,
  checkout_sessions_retention_days: 30,
  inactive_customer_years: null,
  audit_retention_days: 1095,
};

/** The company's settings; the defaults (updated_at null) when it never set any. */
export async function findPrivacySettings(db: Db, companyId: string): Promise<Omit<PrivacySettings, 'updated_at'> & { updated_at: Date | null }> {
  const rows = await db.query<PrivacySettings>(sql`SELECT ${COLUMNS} FROM privacy_settings WHERE company_id = ${companyId}`);
  return rows[0] ?? { ...DEFAULT_PRIVACY_SETTINGS, updated_at: null };
}

/** Fields to change: absent keeps the stored value (or the default on a first write); null clears the nullable ones. */
export type PrivacySettingsChange = Partial<Omit<PrivacySettings, 'updated_at'>>;

/** Writes the change in one statement, so two admins changing different fields at once both keep theirs. */
export async function writePrivacySettings(db: Db, companyId: string, change: PrivacySettingsChange): Promise<PrivacySettings> {
  const v = { ...DEFAULT_PRIVACY_SETTINGS, ...change };
  const keep = (field: keyof PrivacySettingsChange) => (change[field] === undefined ? sql.raw(`s.${field}`) : sql.raw(`EXCLUDED.${field}`));
  const rows = await db.query<PrivacySettings>(sql`
    INSERT INTO privacy_settings AS s (company_id, notice_url, events_retention_days, jobs_retention_days,
                                       checkout_sessions_retention_days, inactive_customer_years, audit_retention_days, updated_at)
    VALUES (${companyId}, ${v.notice_url}, ${v.events_retention_days}::integer, ${v.jobs_retention_days}::integer,
            ${v.checkout_sessions_retention_days}::integer, ${v.inactive_customer_years}::integer, ${v.audit_retention_days}::integer, now())
    ON CONFLICT (company_id) DO UPDATE SET
      notice_url = ${keep('notice_url')},
      events_retention_days = ${keep('events_retention_days')},
      jobs_retention_days = ${keep('jobs_retention_days')},
      checkout_sessions_retention_days = ${keep('checkout_sessions_retention_days')},
      inactive_customer_years = ${keep('inactive_customer_years')},
      audit_retention_days = ${keep('audit_retention_days')},
      updated_at = EXCLUDED.updated_at
    RETURNING ${COLUMNS}`);
  return rows[0];
}
