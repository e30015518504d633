import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { crossCompany } from '../db/cross-company.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../db/schema/index.js';
import type { EventType } from '../contract/webhooks.js';

/** One event as the outbox takes it: `data` already in its wire shape (an order lookup or a customer). */
export interface NewEvent {
  id: string;
  type: EventType;
  /** the order (or customer) whose events are delivered in order */
  subjectId: string;
  data: unknown;
  at: Date;
  /** an order event's WhatsApp messages, sent beside `data` (orders/whatsapp-messages.ts) */
  whatsapp?: unknown;
}

/** Writes the event and its deliveries in the caller's transaction (record_event(), src/db/functions/record_event.sql). */
export async function recordEvent(tx: Db, companyId: string, e: NewEvent): Promise<void> {
  await tx.query(
    sql`SELECT record_event(${companyId}, ${e.id}, ${e.type}, ${e.subjectId}, ${JSON.stringify(e.data)}::json, ${e.at.toISOString()}::timestamptz,
                            ${e.whatsapp === undefined ? null : JSON.stringify(e.whatsapp)}::json)`,
    'record_event',
  );
}

export type EndpointRecord = Pick<
  WebhookEndpointRow,
  'id' | 'url' | 'description' | 'events' | 'status' | 'disabled_reason' | 'failing_since' | 'created_at' | 'secret_enc'
>;
const ENDPOINT_COLUMNS = sql`id, url, description, events, status, disabled_reason, failing_since, created_at, secret_enc`;

export async function lockCompany(tx: Db, companyId: string): Promise<boolean> {
  const rows = await tx.query(sql`SELECT id FROM companies WHERE id = ${companyId} FOR UPDATE`);
  return rows.length === 1;
}

export async function countEndpoints(tx: Db, companyId: string): Promise<number> {
  const [row] = await tx.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM webhook_endpoints WHERE company_id = ${companyId} AND status <> 'removed'`);
  return row.n;
}

export async function insertEndpoint(
  tx: Db,
  companyId: string,
  e: { id: string; url: string; description: string | null; events: string[]; secretEnc: string },
): Promise<EndpointRecord> {
  const rows = await tx.query<EndpointRecord>(sql`
    INSERT INTO webhook_endpoints (company_id, id, url, description, events, secret_enc)
    VALUES (${companyId}, ${e.id}, ${e.url}, ${e.description}, ${sql.param(e.events)}::text[], ${e.secretEnc})
    RETURNING ${ENDPOINT_COLUMNS}`);
  return rows[0];
}

export async function findEndpoints(db: Db, companyId: string): Promise<EndpointRecord[]> {
  return db.query<EndpointRecord>(
    sql`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE company_id = ${companyId} AND status <> 'removed' ORDER BY created_at, id`,
  );
}

export async function findEndpoint(db: Db, companyId: string, id: string): Promise<EndpointRecord | undefined> {
  const rows = await db.query<EndpointRecord>(
    sql`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE company_id = ${companyId} AND id = ${id} AND status <> 'removed'`,
  );
  return rows[0];
}

/** Removes an endpoint (kept as 'removed' for its deliveries); its pending deliveries are given up. */
export async function removeEndpoint(tx: Db, companyId: string, id: string, now: Date): Promise<boolean> {
  const rows = await tx.query(sql`
    UPDATE webhook_endpoints SET status = 'removed', updated_at = ${now.toISOString()}::timestamptz
    WHERE company_id = ${companyId} AND id = ${id} AND status <> 'removed' RETURNING id`);
  if (rows.length === 0) return false;
  await failPendingDeliveries(tx, companyId, id, 'endpoint removed', now);
  return true;
}

export async function failPendingDeliveries(tx: Db, companyId: string, endpointId: string, why: string, now: Date): Promise<void> {
  await tx.query(sql`
    UPDATE webhook_deliveries SET status = 'failed', last_error = ${why}, updated_at = ${now.toISOString()}::timestamptz
    WHERE company_id = ${companyId} AND endpoint_id = ${endpointId} AND status = 'pending'`);
}

/** A disabled endpoint active again, its failure record cleared (deliveries given up stay failed: re-send them). */
export async function enableEndpoint(db: Db, companyId: string, id: string, now: Date): Promise<EndpointRecord | undefined> {
  const rows = await db.query<EndpointRecord>(sql`
    UPDATE webhook_endpoints SET status = 'active', failing_since = NULL, disabled_reason = NULL, updated_at = ${now.toISOString()}::timestamptz
    WHERE company_id = ${companyId} AND id = ${id} AND status <> 'removed'
    RETURNING ${ENDPOINT_COLUMNS}`);
  return rows[0];
}

export async function rotateEndpointSecret(tx: Db, companyId: string, id: string, secretEnc: string, previousUntil: Date): Promise<EndpointRecord | undefined> {
  const rows = await tx.query<EndpointRecord>(sql`
    UPDATE webhook_endpoints SET previous_secret_enc = secret_enc, previous_secret_expires_at = ${previousUntil.toISOString()}::timestamptz,
      secret_enc = ${secretEnc}, updated_at = now()
    WHERE company_id = ${companyId} AND id = ${id} AND status <> 'removed'
    RETURNING ${ENDPOINT_COLUMNS}`);
  return rows[0];
}

export type DeliveryRecord = Pick<
  WebhookDeliveryRow,
  'endpoint_id' | 'event_id' | 'status' | 'attempts' | 'next_attempt_at' | 'last_status_code' | 'last_error' | 'delivered_at' | 'created_at'
> & { type: string };

export async function findDeliveries(
  db: Db,
  companyId: string,
  opts: { status?: 'pending' | 'delivered' | 'failed'; endpointId?: string; limit: number },
): Promise<DeliveryRecord[]> {
  return db.query<DeliveryRecord>(sql`
    SELECT d.endpoint_id, d.event_id, e.type, d.status, d.attempts, d.next_attempt_at, d.last_status_code, d.last_error, d.delivered_at, d.created_at
    FROM webhook_deliveries d JOIN events e ON e.company_id = ${companyId} AND e.id = d.event_id
    WHERE d.company_id = ${companyId}
      AND (${opts.status ?? null}::text IS NULL OR d.status = ${opts.status ?? null})
      AND (${opts.endpointId ?? null}::text IS NULL OR d.endpoint_id = ${opts.endpointId ?? null})
    ORDER BY d.seq DESC, d.endpoint_id LIMIT ${opts.limit}`);
}

/** Failed deliveries made due again (one event's, or every failed one of the company); answers how many. */
export async function resendFailed(db: Db, companyId: string, eventId: string | null): Promise<number> {
  const rows = await db.query(sql`
    UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = now(), created_at = now(), last_error = NULL, updated_at = now()
    WHERE d.company_id = ${companyId} AND d.status = 'failed' AND (${eventId}::text IS NULL OR d.event_id = ${eventId})
      AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.company_id = ${companyId} AND w.id = d.endpoint_id AND w.status = 'active')
    RETURNING d.event_id`);
  return rows.length;
}

/** Up to `limit` companies with a due pending delivery, oldest due first; read without locks, across companies (named in CROSS_COMPANY_QUERIES). */
export async function findDueDeliveryCompanies(db: Db, limit: number): Promise<string[]> {
  const rows = await crossCompany<{ company_id: string }>(
    db,
    'webhooks.due-companies',
    sql`SELECT company_id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()
          GROUP BY company_id ORDER BY min(next_attempt_at) LIMIT ${limit}`,
  );
  return rows.map((r) => r.company_id);
}

export type ClaimedDelivery = Pick<WebhookDeliveryRow, 'endpoint_id' | 'event_id' | 'attempts' | 'created_at'>;

/**
 * Claims up to `batch` of the company's due deliveries whose subject has no earlier pending delivery to that endpoint
 * (FOR UPDATE SKIP LOCKED), each pushed `leaseMs` ahead.
 */
export async function claimDeliveries(db: Db, companyId: string, leaseMs: number, batch: number): Promise<ClaimedDelivery[]> {
  return db.query<ClaimedDelivery>(sql`
      UPDATE webhook_deliveries d SET attempts = d.attempts + 1, updated_at = now(), next_attempt_at = now() + ${leaseMs} * interval '1 millisecond'
      WHERE d.company_id = ${companyId} AND (d.endpoint_id, d.event_id) IN (
        SELECT x.endpoint_id, x.event_id FROM webhook_deliveries x
        WHERE x.company_id = ${companyId} AND x.status = 'pending' AND x.next_attempt_at <= now()
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                          WHERE p.company_id = ${companyId} AND p.endpoint_id = x.endpoint_id AND p.subject_id = x.subject_id
                            AND p.status = 'pending' AND p.seq < x.seq)
        ORDER BY x.next_attempt_at, x.seq LIMIT ${batch} FOR UPDATE SKIP LOCKED)
      RETURNING d.endpoint_id, d.event_id, d.attempts, d.created_at`);
}

export interface DeliveredEvent {
  id: string;
  type: string;
  data: unknown;
  whatsapp: unknown;
  created_at: Date;
}

export async function findEventsByIds(db: Db, companyId: string, eventIds: string[]): Promise<DeliveredEvent[]> {
  return db.query<DeliveredEvent>(
    sql`SELECT id, type, data, whatsapp, created_at FROM events WHERE company_id = ${companyId} AND id = ANY(${sql.param(eventIds)}::text[])`,
  );
}

export type DeliveryEndpoint = Pick<
  WebhookEndpointRow,
  'id' | 'url' | 'secret_enc' | 'previous_secret_enc' | 'previous_secret_expires_at' | 'status' | 'failing_since'
>;

export async function findDeliveryEndpoints(db: Db, companyId: string, endpointIds: string[]): Promise<DeliveryEndpoint[]> {
  return db.query<DeliveryEndpoint>(
    sql`SELECT id, url, secret_enc, previous_secret_enc, previous_secret_expires_at, status, failing_since
            FROM webhook_endpoints WHERE company_id = ${companyId} AND id = ANY(${sql.param(endpointIds)}::text[])`,
  );
}

/** A claimed delivery handed back due now, its attempt not counted. */
export async function handBackDelivery(db: Db, companyId: string, endpointId: string, eventId: string): Promise<void> {
  await db.query(sql`
        UPDATE webhook_deliveries SET next_attempt_at = now(), attempts = greatest(attempts - 1, 0), updated_at = now()
        WHERE company_id = ${companyId} AND endpoint_id = ${endpointId} AND event_id = ${eventId} AND status = 'pending'`);
}

/** One attempt's outcome on a pending delivery. */
export async function settleDelivery(
  tx: Db,
  companyId: string,
  d: {
    endpointId: string;
    eventId: string;
    status: 'pending' | 'delivered' | 'failed';
    code: number | null;
    error: string | null;
    deliveredAt: Date | null;
    at: Date;
    nextAttemptAt: Date;
  },
): Promise<void> {
  await tx.query(sql`
        UPDATE webhook_deliveries SET status = ${d.status}, last_status_code = ${d.code}, last_error = ${d.error},
          delivered_at = ${d.deliveredAt ? d.deliveredAt.toISOString() : null}::timestamptz, updated_at = ${d.at.toISOString()}::timestamptz,
          next_attempt_at = ${d.nextAttemptAt.toISOString()}::timestamptz
        WHERE company_id = ${companyId} AND endpoint_id = ${d.endpointId} AND event_id = ${d.eventId} AND status = 'pending'`);
}

/** The endpoint healthy again: its failing_since cleared. */
export async function clearEndpointFailing(tx: Db, companyId: string, endpointId: string, at: Date): Promise<void> {
  await tx.query(sql`UPDATE webhook_endpoints SET failing_since = NULL, updated_at = ${at.toISOString()}::timestamptz
                             WHERE company_id = ${companyId} AND id = ${endpointId}`);
}

/** An active endpoint failing since `at` unless it already was; answers since when (undefined: not active). */
export async function markEndpointFailing(tx: Db, companyId: string, endpointId: string, at: Date): Promise<Date | undefined> {
  const [w] = await tx.query<{ failing_since: Date }>(sql`
        UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ${at.toISOString()}::timestamptz), updated_at = ${at.toISOString()}::timestamptz
        WHERE company_id = ${companyId} AND id = ${endpointId} AND status = 'active' RETURNING failing_since`);
  return w?.failing_since;
}

export async function disableEndpoint(tx: Db, companyId: string, endpointId: string, reason: string, at: Date): Promise<void> {
  await tx.query(sql`UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ${reason}, updated_at = ${at.toISOString()}::timestamptz
                           WHERE company_id = ${companyId} AND id = ${endpointId} AND status = 'active'`);
}
