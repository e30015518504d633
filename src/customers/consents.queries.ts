import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import type { CustomerConsentRow } from '../db/schema/index.js';

/**
 * A customer's consent (customer_consents, migration 0032): an append-only history, one row per given or withdrawn;
 * the newest row per purpose and channel is the state. `customers.messaging_opted_out` is derived from it here.
 */

export type ConsentPurpose = CustomerConsentRow['purpose'];
export type ConsentChannel = CustomerConsentRow['channel'];
export type ConsentState = CustomerConsentRow['state'];
export type ConsentSource = CustomerConsentRow['source'];

/** The newest row of one purpose and channel. */
export type LatestConsent = Pick<CustomerConsentRow, 'purpose' | 'channel' | 'state'>;

export type ConsentRecord = Pick<CustomerConsentRow, 'id' | 'purpose' | 'channel' | 'state' | 'source' | 'actor' | 'recorded_at'>;

/** One row, in the caller's transaction. */
export async function insertConsent(
  tx: Db,
  companyId: string,
  row: {
    id: string;
    customerId: string;
    purpose: ConsentPurpose;
    channel: ConsentChannel;
    state: ConsentState;
    source: ConsentSource;
    actor: string | null;
    at: Date;
  },
): Promise<void> {
  await tx.query(
    sql`INSERT INTO customer_consents (company_id, id, customer_id, purpose, channel, state, source, actor, recorded_at)
        VALUES (${companyId}, ${row.id}, ${row.customerId}, ${row.purpose}, ${row.channel}, ${row.state}, ${row.source}, ${row.actor},
                ${row.at.toISOString()}::timestamptz)`,
    'consent_insert',
  );
}

/**
 * The newest row per purpose and channel of the customer `customerId` names (an id or a subquery), as a JSON array of
 * `{purpose, channel, state}`: a one-row subquery for the order lookup, on the index customer_consents_latest.
 * Rows of one instant are ordered by id (time-ordered too).
 */
export function latestConsentsOf(companyId: string, customerId: SQL | string): SQL {
  return sql`SELECT coalesce(json_agg(json_build_object('purpose', x.purpose, 'channel', x.channel, 'state', x.state)), '[]'::json)
               FROM (SELECT DISTINCT ON (cc.purpose, cc.channel) cc.purpose, cc.channel, cc.state
                       FROM customer_consents cc
                      WHERE cc.company_id = ${companyId} AND cc.customer_id = (${customerId})
                      ORDER BY cc.purpose, cc.channel, cc.recorded_at DESC, cc.id DESC) x`;
}

/** The customer's current state: the newest row per purpose and channel (none: never asked). */
export async function latestConsents(db: Db, companyId: string, customerId: string): Promise<LatestConsent[]> {
  const rows = await db.query<{ states: LatestConsent[] }>(sql`SELECT (${latestConsentsOf(companyId, customerId)}) AS states`, 'consent_latest');
  return rows[0].states;
}

/** Every row of the customer's history, newest first. */
export async function consentHistory(db: Db, companyId: string, customerId: string): Promise<ConsentRecord[]> {
  return db.query<ConsentRecord>(
    sql`SELECT id, purpose, channel, state, source, actor, recorded_at FROM customer_consents
        WHERE company_id = ${companyId} AND customer_id = ${customerId}
        ORDER BY recorded_at DESC, id DESC`,
    'consent_history',
  );
}

/**
 * Keeps `messaging_opted_out` in step with the history, in the caller's transaction: true exactly when the newest
 * order_updates / messaging row is `withdrawn` (no row: false). True when the column changed.
 */
export async function syncMessagingOptOut(tx: Db, companyId: string, customerId: string, now: Date): Promise<boolean> {
  const rows = await tx.query(sql`
    UPDATE customers c SET messaging_opted_out = d.opted, updated_at = ${now.toISOString()}::timestamptz
      FROM (SELECT coalesce((SELECT cc.state = 'withdrawn' FROM customer_consents cc
                              WHERE cc.company_id = ${companyId} AND cc.customer_id = ${customerId}
                                AND cc.purpose = 'order_updates' AND cc.channel = 'messaging'
                              ORDER BY cc.recorded_at DESC, cc.id DESC LIMIT 1), false) AS opted) d
     WHERE c.company_id = ${companyId} AND c.id = ${customerId} AND c.messaging_opted_out <> d.opted
    RETURNING c.id`);
  return rows.length === 1;
}
