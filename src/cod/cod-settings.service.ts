import type { Db } from '../db/index.js';
import { recordAudit, type Actor } from '../db/audit-log.js';
import { codSettingsBody, type CodSettingsInput, type CodSettingsView } from '../contract/cod.js';
import { toValidationError } from '../contract/validation.js';
import { findCodSettings, writeCodSettings, type CodSettings } from './cod-settings.queries.js';

const view = (s: Omit<CodSettings, 'updated_at'> & { updated_at: Date | null }): CodSettingsView => ({
  confirm_before_booking: s.confirm_before_booking,
  confirm_within_minutes: s.confirm_within_minutes,
  on_timeout: s.on_timeout,
  blocked_pincodes: s.blocked_pincodes,
  max_order_value: s.max_order_value,
  rto_threshold: s.rto_threshold,
  updated_at: s.updated_at?.toISOString() ?? null,
});

/**
 * A company's cash-on-delivery settings (REST `/cod/settings` with the `cod` permission, CLI `cod show|set`): whether a
 * COD order is confirmed with the buyer before booking, and the rules that refuse COD. The defaults until first set.
 */
export function createCodSettingsService({ db }: { db: Db }) {
  return {
    async get(companyId: string): Promise<CodSettingsView> {
      return view(await findCodSettings(db, companyId));
    },

    /** Changes the fields given (the REST body's rules, checked here for every door); answers the settings as they are now. */
    async set(companyId: string, actor: Actor, input: CodSettingsInput): Promise<CodSettingsView> {
      const parsed = codSettingsBody.safeParse(input);
      if (!parsed.success) throw toValidationError(parsed.error);
      const { blocked_pincodes: pins, ...values } = parsed.data;
      return db.tx(async (tx) => {
        const written = await writeCodSettings(tx, companyId, parsed.data);
        // the rules' values (flags, numbers, the rupee limit); the PIN list by its size
        const detail = { fields: Object.keys(parsed.data), ...values, ...(pins ? { blocked_pincodes: pins.length } : {}) };
        await recordAudit(tx, companyId, actor, { action: 'cod.settings_set', detail });
        return view(written);
      });
    },
  };
}

export type CodSettingsService = ReturnType<typeof createCodSettingsService>;
