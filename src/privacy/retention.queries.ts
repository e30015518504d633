import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/index.js';

/**
 * The retention worker's statements (retention.service.ts): each deletes (or strips) at most `limit` rows of one
 * company that are past its cutoff, oldest first, in one short statement found through an index on (company_id, age)
 * (migrations 0032 and 0035), so a batch never scans a table and holds its row locks for milliseconds. A row another
 * transaction holds is skipped (SKIP LOCKED) and taken at a later batch or pass.
 */

/** Runs a `WITH gone AS (…) SELECT count` statement and answers the count. */
async function counted(db: Db, statement: SQL): Promise<number> {
  const [row] = await db.query<{ n: number }>(statement);
  return Number(row?.n ?? 0);
}

/** Companies in id order after `after` (companies is a reference table: one node holds it whole). */
export async function companyPage(db: Db, after: string, limit: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(sql`SELECT id FROM companies WHERE id > ${after} ORDER BY id LIMIT ${limit}`);
  return rows.map((r) => r.id);
}

/**
 * Events created before `cutoff` (and not before `after`, where the previous batch of the pass ended, so a batch does
 * not walk the index past the entries its predecessors deleted and vacuum has not yet removed) none of whose webhook
 * deliveries is still pending, with their (delivered or failed) deliveries; `last`, the newest one deleted. The deliveries go first in the same statement (the foreign key from webhook_deliveries is checked at the
 * statement's end, through webhook_deliveries_event). A delivery made pending again meanwhile (a re-send) is not
 * deleted, so its event's delete fails the foreign key and the batch is tried again at the next pass.
 */
export async function purgeEvents(
  db: Db,
  companyId: string,
  cutoff: Date,
  limit: number,
  after: Date | null,
): Promise<{ events: number; deliveries: number; last: Date | null }> {
  const [row] = await db.query<{ events: number; deliveries: number; last: Date | null }>(sql`
    WITH doomed AS (
      SELECT e.id, e.created_at FROM events e
       WHERE e.company_id = ${companyId} AND e.created_at < ${cutoff} ${after ? sql`AND e.created_at >= ${after}` : sql``}
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                          WHERE d.company_id = ${companyId} AND d.event_id = e.id AND d.status = 'pending')
       ORDER BY e.created_at
       LIMIT ${limit}
       FOR UPDATE OF e SKIP LOCKED
    ), deliveries AS (
      DELETE FROM webhook_deliveries d USING doomed
       WHERE d.company_id = ${companyId} AND d.event_id = doomed.id AND d.status <> 'pending'
      RETURNING 1
    ), gone AS (
      DELETE FROM events e USING doomed WHERE e.company_id = ${companyId} AND e.id = doomed.id RETURNING 1
    )
    SELECT (SELECT count(*) FROM gone)::int AS events, (SELECT count(*) FROM deliveries)::int AS deliveries,
           (SELECT max(created_at) FROM doomed) AS last`);
  return { events: Number(row?.events ?? 0), deliveries: Number(row?.deliveries ?? 0), last: row?.last ? new Date(row.last) : null };
}

/** Finished jobs (done or failed) last changed before `cutoff` (index jobs_finished). Nothing references a job. */
export async function purgeJobs(db: Db, companyId: string, cutoff: Date, limit: number): Promise<number> {
  return counted(
    db,
    sql`WITH doomed AS (
          SELECT id FROM jobs WHERE company_id = ${companyId} AND status <> 'pending' AND updated_at < ${cutoff}
           ORDER BY updated_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ), gone AS (
          DELETE FROM jobs j USING doomed WHERE j.company_id = ${companyId} AND j.id = doomed.id RETURNING 1
        )
        SELECT count(*)::int AS n FROM gone`,
  );
}

/** UCP order events sent or given up (delivered or failed), made before `cutoff` (index ucp_order_deliveries_finished). */
export async function purgeUcpOrderDeliveries(db: Db, companyId: string, cutoff: Date, limit: number): Promise<number> {
  return counted(
    db,
    sql`WITH doomed AS (
          SELECT id FROM ucp_order_deliveries WHERE company_id = ${companyId} AND status <> 'pending' AND created_at < ${cutoff}
           ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ), gone AS (
          DELETE FROM ucp_order_deliveries u USING doomed WHERE u.company_id = ${companyId} AND u.id = doomed.id RETURNING 1
        )
        SELECT count(*)::int AS n FROM gone`,
  );
}

/**
 * Razorpay events acted on, received before `cutoff` (index payment_events_acted). Those needing attention stay (work
 * for staff, listed by `orders attention`); those merely recorded stay until acted on.
 */
export async function purgePaymentEvents(db: Db, companyId: string, cutoff: Date, limit: number): Promise<number> {
  return counted(
    db,
    sql`WITH doomed AS (
          SELECT provider, event_id FROM payment_events WHERE company_id = ${companyId} AND status = 'acted' AND created_at < ${cutoff}
           ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ), gone AS (
          DELETE FROM payment_events p USING doomed
           WHERE p.company_id = ${companyId} AND p.provider = doomed.provider AND p.event_id = doomed.event_id RETURNING 1
        )
        SELECT count(*)::int AS n FROM gone`,
  );
}

/** Idempotency records (a UCP write's kept answer) written before `cutoff` (index idempotency_records_company_created). */
export async function purgeIdempotencyRecords(db: Db, companyId: string, cutoff: Date, limit: number): Promise<number> {
  return counted(
    db,
    sql`WITH doomed AS (
          SELECT scope, key FROM idempotency_records WHERE company_id = ${companyId} AND created_at < ${cutoff}
           ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ), gone AS (
          DELETE FROM idempotency_records r USING doomed
           WHERE r.company_id = ${companyId} AND r.scope = doomed.scope AND r.key = doomed.key RETURNING 1
        )
        SELECT count(*)::int AS n FROM gone`,
  );
}

/**
 * Canceled checkouts (by the platform, or expired) last changed before `cutoff` (index checkout_sessions_canceled),
 * with their released holds (stock_reservations naming the checkout and no order; an open one would still count in
 * `reserved` and is never deleted). Nothing else references a canceled checkout.
 */
export async function purgeCanceledCheckouts(db: Db, companyId: string, cutoff: Date, limit: number): Promise<{ checkouts: number; holds: number }> {
  const [row] = await db.query<{ checkouts: number; holds: number }>(sql`
    WITH doomed AS (
      SELECT id FROM checkout_sessions
       WHERE company_id = ${companyId} AND status = 'canceled' AND updated_at < ${cutoff} AND order_id IS NULL
       ORDER BY updated_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
    ), holds AS (
      DELETE FROM stock_reservations r USING doomed
       WHERE r.company_id = ${companyId} AND r.checkout_id = doomed.id AND r.order_id IS NULL AND r.status <> 'open'
      RETURNING 1
    ), gone AS (
      DELETE FROM checkout_sessions s USING doomed WHERE s.company_id = ${companyId} AND s.id = doomed.id RETURNING 1
    )
    SELECT (SELECT count(*) FROM gone)::int AS checkouts, (SELECT count(*) FROM holds)::int AS holds`);
  return { checkouts: Number(row?.checkouts ?? 0), holds: Number(row?.holds ?? 0) };
}

/**
 * Completed checkouts last changed before `cutoff` that still hold the buyer's details (index
 * checkout_sessions_completed_personal): the row stays, since the UCP order lookup (GET …/orders/{id}) finds the order
 * through it and shows what it came to; the buyer, the fulfilment as entered and the destinations in what it came to
 * are removed (the order keeps its own customer and address). Lines, totals, options and the payment's display fields
 * stay. updated_at is left as it was.
 */
export async function stripCompletedCheckouts(db: Db, companyId: string, cutoff: Date, limit: number): Promise<number> {
  return counted(
    db,
    sql`WITH doomed AS (
          SELECT id FROM checkout_sessions
           WHERE company_id = ${companyId} AND status = 'completed' AND (buyer IS NOT NULL OR fulfillment IS NOT NULL)
             AND updated_at < ${cutoff}
           ORDER BY updated_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ), gone AS (
          UPDATE checkout_sessions s
             SET buyer = NULL, fulfillment = NULL,
                 completed_view = CASE WHEN jsonb_typeof(s.completed_view -> 'methods') = 'array'
                   THEN jsonb_set(s.completed_view, '{methods}',
                          (SELECT coalesce(jsonb_agg(m - 'destinations' - 'selected_destination_id'), '[]'::jsonb)
                             FROM jsonb_array_elements(s.completed_view -> 'methods') AS m))
                   ELSE s.completed_view END
            FROM doomed
           WHERE s.company_id = ${companyId} AND s.id = doomed.id
          RETURNING 1
        )
        SELECT count(*)::int AS n FROM gone`,
  );
}

/** Audit entries recorded before `cutoff` (index audit_log_at): the only statement that deletes audit entries. */
export async function purgeAuditEntries(db: Db, companyId: string, cutoff: Date, limit: number): Promise<number> {
  // the table refuses DELETE unless this transaction says it is the purge (migration 0036's trigger; not on Citus)
  return db.tx(async (tx) => {
    await tx.query(sql`SELECT set_config('commerce.audit_purge', 'on', true)`);
    return purgeAuditBatch(tx, companyId, cutoff, limit);
  });
}

async function purgeAuditBatch(db: Db, companyId: string, cutoff: Date, limit: number): Promise<number> {
  return counted(
    db,
    sql`WITH doomed AS (
          SELECT id FROM audit_log WHERE company_id = ${companyId} AND at < ${cutoff} ORDER BY at LIMIT ${limit}
        ), gone AS (
          DELETE FROM audit_log a USING doomed WHERE a.company_id = ${companyId} AND a.id = doomed.id RETURNING 1
        )
        SELECT count(*)::int AS n FROM gone`,
  );
}
