import { sql } from 'drizzle-orm';
import type { Db } from '../../src/db/index.js';

/**
 * The invariants that must hold for a company after any load or fault, as one set of queries.
 * Each list is empty when all is well; a test asserts them all empty and prints the counts.
 */
export async function auditCompany(db: Db, companyId: string) {
  // reserved on every stock row equals the sum of its open reservations; never more than on hand
  const stock = await db.query<{ variant_id: string; on_hand: string; reserved: string; open: string }>(sql`
    SELECT s.variant_id, s.on_hand::text, s.reserved::text, coalesce(r.open, 0)::text AS open
    FROM stock_levels s
    LEFT JOIN (SELECT variant_id, location_id, sum(quantity) AS open FROM stock_reservations
               WHERE company_id = ${companyId} AND status = 'open' GROUP BY variant_id, location_id) r
      ON r.variant_id = s.variant_id AND r.location_id = s.location_id
    WHERE s.company_id = ${companyId}
      AND (s.reserved <> coalesce(r.open, 0) OR s.on_hand - s.reserved < 0 OR s.reserved < 0)`);
  // every order has lines, and reservations matching its lines exactly (no partial order); its amount is its lines'
  // totals less their discount plus their shipping, and its discount and shipping are its lines' shares
  const partial = await db.query<{ id: string; lines: number; reservations: number }>(sql`
    SELECT o.id,
      (SELECT count(*)::int FROM order_lines l WHERE l.company_id = ${companyId} AND l.order_id = o.id) AS lines,
      (SELECT count(*)::int FROM stock_reservations r WHERE r.company_id = ${companyId} AND r.order_id = o.id) AS reservations
    FROM orders o WHERE o.company_id = ${companyId}
      AND (NOT EXISTS (SELECT 1 FROM order_lines l WHERE l.company_id = ${companyId} AND l.order_id = o.id)
        OR EXISTS (SELECT 1 FROM order_lines l WHERE l.company_id = ${companyId} AND l.order_id = o.id
                   AND l.quantity <> coalesce((SELECT sum(r.quantity) FROM stock_reservations r
                      WHERE r.company_id = ${companyId} AND r.order_id = l.order_id AND r.variant_id = l.variant_id), 0))
        OR (o.amount, o.discount_amount, o.shipping_amount) <>
           (SELECT coalesce(sum(line_total - discount + shipping), 0), coalesce(sum(discount), 0), coalesce(sum(shipping), 0)
              FROM order_lines l WHERE l.company_id = ${companyId} AND l.order_id = o.id))`);
  // reservations held by no order and no checkout (a leak)
  const orphans = await db.query<{ id: string }>(sql`
    SELECT r.id FROM stock_reservations r WHERE r.company_id = ${companyId}
      AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.company_id = ${companyId} AND o.id = r.order_id)
      AND NOT EXISTS (SELECT 1 FROM checkout_sessions c WHERE c.company_id = ${companyId} AND c.id = r.checkout_id)`);
  // stock still held by a checkout that is over (completed or canceled): its holds were neither taken nor released
  const strayHolds = await db.query<{ id: string; checkout_id: string; status: string }>(sql`
    SELECT r.id, r.checkout_id, c.status FROM stock_reservations r
    JOIN checkout_sessions c ON c.company_id = ${companyId} AND c.id = r.checkout_id
    WHERE r.company_id = ${companyId} AND r.order_id IS NULL AND r.status = 'open' AND c.status IN ('completed', 'canceled')`);
  const duplicates = await db.query<{ external_reference: string; n: number }>(sql`
    SELECT external_reference, count(*)::int AS n FROM orders WHERE company_id = ${companyId}
    GROUP BY external_reference HAVING count(*) > 1`);
  const [totals] = await db.query<{ orders: number; lines: number; customers: number; reserved: string }>(sql`
    SELECT (SELECT count(*)::int FROM orders WHERE company_id = ${companyId}) AS orders,
           (SELECT count(*)::int FROM order_lines WHERE company_id = ${companyId}) AS lines,
           (SELECT count(*)::int FROM customers WHERE company_id = ${companyId}) AS customers,
           (SELECT coalesce(sum(reserved), 0)::text FROM stock_levels WHERE company_id = ${companyId}) AS reserved`);
  return { stock, partial, orphans, strayHolds, duplicates, totals };
}

/** Lowest `on_hand - reserved` of any stock row of the company right now (sampled during runs). */
export async function minAvailable(db: Db, companyId: string): Promise<number> {
  const [row] = await db.query<{ m: string | null }>(sql`SELECT min(on_hand - reserved)::text AS m FROM stock_levels WHERE company_id = ${companyId}`);
  return Number(row.m ?? 0);
}
