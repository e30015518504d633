import type { Db } from '../db/index.js';
import { recordAudit, type Actor } from '../db/audit-log.js';
import { privacySettingsBody, type PrivacySettingsInput, type PrivacySettingsView } from '../contract/privacy-settings.js';
import { toValidationError } from '../contract/validation.js';
import { findPrivacySettings, writePrivacySettings, type PrivacySettings } from '../customers/privacy-settings.queries.js';

const view = (s: Omit<PrivacySettings, 'updated_at'> & { updated_at: Date | null }): PrivacySettingsView => ({
  notice_url: s.notice_url,
  events_retention_days: s.events_retention_days,
  jobs_retention_days: s.jobs_retention_days,
  checkout_sessions_retention_days: s.checkout_sessions_retention_days,
  inactive_customer_years: s.inactive_customer_years,
  audit_retention_days: s.audit_retention_days,
  updated_at: s.updated_at?.toISOString() ?? null,
});

/**
 * A company's privacy settings (REST `/privacy/settings` with the `privacy` permission, CLI `privacy show|set`): its
 * privacy notice link and the retention the worker applies (retention-worker.ts). The defaults until first set. Each
 * change is written with its audit entry in one transaction; the entry names the fields changed and their new values
 * (a link and numbers: no personal data).
 */
export function createPrivacySettingsService({ db }: { db: Db }) {
  return {
    async get(companyId: string): Promise<PrivacySettingsView> {
      return view(await findPrivacySettings(db, companyId));
    },

    /** Changes the fields given (checked here for every door); answers the settings as they are now. */
    async set(companyId: string, actor: Actor, input: PrivacySettingsInput): Promise<PrivacySettingsView> {
      const parsed = privacySettingsBody.safeParse(input);
      if (!parsed.success) throw toValidationError(parsed.error);
      const change = Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined));
      return db.tx(async (tx) => {
        const stored = await writePrivacySettings(tx, companyId, change);
        const changed = Object.fromEntries(Object.keys(change).map((k) => [k, stored[k as keyof typeof stored]]));
        await recordAudit(tx, companyId, actor, { action: 'privacy_settings.changed', subjectKind: 'company', subjectId: companyId, detail: { changed } });
        return view(stored);
      });
    },
  };
}

export type PrivacySettingsService = ReturnType<typeof createPrivacySettingsService>;
