import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { codSettings, columnList, type CodSettingsRow } from '../db/schema/index.js';
import { deliveryRecordOf } from '../customers/customers.queries.js';

/** A company's cash-on-delivery settings (migration 0027): the one reader and writer of cod_settings. */

const FIELDS = [
  'confirm_before_booking',
  'confirm_within_minutes',
  'on_timeout',
  'blocked_pincodes',
  'max_order_value',
  'rto_threshold',
  'updated_at',
] as const;
const COLUMNS = columnList(codSettings, FIELDS);
export type CodSettings = Pick<CodSettingsRow, (typeof FIELDS)[number]>;

/** What a company that never set anything has: confirmation off, no rule. */
export const DEFAULT_COD_SETTINGS: Omit<CodSettings, 'updated_at'> = {
  confirm_before_booking: false,
  confirm_within_minutes: 1440,
  on_timeout: 'cancel',
  blocked_pincodes: [],
  max_order_value: null,
  rto_threshold: null,
};

/** The company's settings; the defaults (updated_at null) when it never set any. */
export async function findCodSettings(db: Db, companyId: string): Promise<Omit<CodSettings, 'updated_at'> & { updated_at: Date | null }> {
  const rows = await db.query<CodSettings>(sql`SELECT ${COLUMNS} FROM cod_settings WHERE company_id = ${companyId}`);
  return rows[0] ?? { ...DEFAULT_COD_SETTINGS, updated_at: null };
}

/** Fields to change: absent keeps the stored value (or the default on a first write); null clears a limit. */
export type CodSettingsChange = Partial<Omit<CodSettings, 'updated_at'>>;

/** Writes the change in one statement, so two admins changing different fields at once both keep theirs. */
export async function writeCodSettings(db: Db, companyId: string, change: CodSettingsChange): Promise<CodSettings> {
  const v = { ...DEFAULT_COD_SETTINGS, ...change };
  const keep = (field: keyof CodSettingsChange) => (change[field] === undefined ? sql.raw(`s.${field}`) : sql.raw(`EXCLUDED.${field}`));
  const rows = await db.query<CodSettings>(sql`
    INSERT INTO cod_settings AS s (company_id, confirm_before_booking, confirm_within_minutes, on_timeout, blocked_pincodes,
                                   max_order_value, rto_threshold, updated_at)
    VALUES (${companyId}, ${v.confirm_before_booking}, ${v.confirm_within_minutes}::integer, ${v.on_timeout},
            ${sql.param(v.blocked_pincodes)}::text[], ${v.max_order_value}::numeric, ${v.rto_threshold}::integer, now())
    ON CONFLICT (company_id) DO UPDATE SET
      confirm_before_booking = ${keep('confirm_before_booking')},
      confirm_within_minutes = ${keep('confirm_within_minutes')},
      on_timeout = ${keep('on_timeout')},
      blocked_pincodes = ${keep('blocked_pincodes')},
      max_order_value = ${keep('max_order_value')},
      rto_threshold = ${keep('rto_threshold')},
      updated_at = EXCLUDED.updated_at
    RETURNING ${COLUMNS}`);
  return rows[0];
}

/** What the COD rules are evaluated on: the company's rules, and the customer's parcels returned to origin. */
export type CodRuleFacts = Pick<CodSettings, 'blocked_pincodes' | 'max_order_value' | 'rto_threshold'> & {
  /** the customer's returned_to_origin count (their delivery record); 0 for a phone no customer has; null when no phone */
  returned_to_origin: number | null;
};

/**
 * The COD rules and, when the company has an rto_threshold and a phone is given, that customer's returns to origin
 * (customers.queries.ts deliveryRecordOf, the count find_customer shows), in one statement: the one extra read of a
 * COD order (POST /orders, place_order) and the whole read of the availability check.
 */
export async function findCodRuleFacts(db: Db, companyId: string, phoneE164: string | null): Promise<CodRuleFacts> {
  const customer = sql`SELECT id FROM customers WHERE company_id = ${companyId} AND phone_e164 = ${phoneE164}`;
  const rows = await db.query<CodRuleFacts>(
    sql`SELECT coalesce(s.blocked_pincodes, '{}'::text[]) AS blocked_pincodes, s.max_order_value, s.rto_threshold,
               CASE WHEN s.rto_threshold IS NOT NULL AND ${phoneE164}::text IS NOT NULL
                    THEN (SELECT r.returned_to_origin FROM (${deliveryRecordOf(companyId, customer)}) r) END AS returned_to_origin
        FROM (SELECT 1) one LEFT JOIN cod_settings s ON s.company_id = ${companyId}`,
    'cod_rule_facts',
  );
  return rows[0];
}
