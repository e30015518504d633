import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import type { StoredAddress } from '../db/schema/index.js';
import type { BuyerMatch } from './scrub.js';

/**
 * The statements of a customer's data rights (customer-data.service.ts): the access document's reads, and the erasure's
 * rewrites of every table that holds a customer's personal data. Every statement names the company (Citus routes it to
 * the company's shard). Needles are lower-cased texts (privacy/scrub.ts `needlesOf`); `mentioning` matches a row whose
 * text holds one.
 */

export interface RightsCustomer {
  id: string;
  name: string;
  phone_e164: string | null;
  email: string | null;
  address_name: string | null;
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  state: string | null;
  pincode: string | null;
  address_phone: string | null;
  messaging_opted_out: boolean;
  created_at: Date;
  updated_at: Date;
  erased_at: Date | null;
  /** when the inactive-customer rule last told the customer they would be erased (DPDP Rules, Rule 8(2)) */
  erasure_notice_at: Date | null;
}

const CUSTOMER = sql`id, name, phone_e164, email, address_name, address_line1, address_line2, city, state, pincode, address_phone,
                     messaging_opted_out, created_at, updated_at, erased_at, erasure_notice_at`;

/** The customer by id or by E.164 phone (an erased customer has no phone, so it is found by id only). */
export async function findRightsCustomer(
  db: Db,
  companyId: string,
  by: { id: string } | { phoneE164: string },
  lock = false,
): Promise<RightsCustomer | undefined> {
  const where = 'id' in by ? sql`id = ${by.id}` : sql`phone_e164 = ${by.phoneE164}`;
  const rows = await db.query<RightsCustomer>(
    sql`SELECT ${CUSTOMER} FROM customers WHERE company_id = ${companyId} AND ${where} ${lock ? sql`FOR UPDATE` : sql``}`,
  );
  return rows[0];
}

const ids = (list: string[]) => sql`ANY(${sql.param(list)}::text[])`;
/** The text of `expr` holds one of the needles (any case). */
const mentioning = (expr: SQL, needles: string[]) => sql`EXISTS (SELECT 1 FROM unnest(${sql.param(needles)}::text[]) n WHERE strpos(lower(${expr}), n) > 0)`;

export async function consentHistory(db: Db, companyId: string, customerId: string) {
  return db.query<{ purpose: string; channel: string; state: string; source: string; actor: string | null; recorded_at: Date }>(sql`
    SELECT purpose, channel, state, source, actor, recorded_at FROM customer_consents
     WHERE company_id = ${companyId} AND customer_id = ${customerId} ORDER BY recorded_at, id`);
}

export interface RightsOrder {
  id: string;
  order_number: string;
  external_reference: string | null;
  status: string;
  payment: string;
  payment_reference: string | null;
  notes: string | null;
  amount: string;
  discount_amount: string;
  shipping_amount: string;
  currency: string;
  delivery_address: StoredAddress | null;
  cod_confirmation: string | null;
  cod_confirmation_settled_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The customer's orders, oldest first (drafts included); with `lock`, each row locked in id order (the lifecycle's order). */
export async function ordersOfCustomer(db: Db, companyId: string, customerId: string, lock = false): Promise<RightsOrder[]> {
  const rows = await db.query<RightsOrder>(sql`
    SELECT id, order_number, external_reference, status, payment, payment_reference, notes, amount, discount_amount, shipping_amount,
           currency, delivery_address, cod_confirmation, cod_confirmation_settled_by, created_at, updated_at
      FROM orders WHERE company_id = ${companyId} AND customer_id = ${customerId}
     ORDER BY ${lock ? sql`id FOR UPDATE` : sql`created_at, id`}`);
  return rows;
}

export async function linesOf(db: Db, companyId: string, orderIds: string[]) {
  return db.query<{ order_id: string; line_no: number; sku: string; name: string; quantity: string; unit_price: string; line_total: string }>(sql`
    SELECT order_id, line_no, sku, name, quantity, unit_price, line_total FROM order_lines
     WHERE company_id = ${companyId} AND order_id = ${ids(orderIds)} ORDER BY order_id, line_no`);
}

export async function shipmentsOf(db: Db, companyId: string, orderIds: string[]) {
  return db.query<{
    id: string;
    order_id: string;
    courier: string | null;
    awb: string | null;
    status: string;
    tracking_url: string | null;
    delivered_at: Date | null;
    events: { status: string; source: string; note: string | null; at: string }[];
  }>(sql`
    SELECT s.id, s.order_id, s.courier, s.awb, s.status, s.tracking_url, s.delivered_at,
           coalesce((SELECT json_agg(json_build_object('status', e.status, 'source', e.source, 'note', e.note, 'at', e.created_at) ORDER BY e.created_at, e.id)
                       FROM shipment_events e WHERE e.company_id = ${companyId} AND e.shipment_id = s.id), '[]'::json) AS events
      FROM shipments s WHERE s.company_id = ${companyId} AND s.order_id = ${ids(orderIds)}`);
}

export interface RightsInvoice {
  id: string;
  order_id: string;
  invoice_number: string;
  total: string;
  amount_paid: string;
  issued_at: Date;
  document: Record<string, unknown> | null;
}

export async function invoicesOf(db: Db, companyId: string, orderIds: string[]): Promise<RightsInvoice[]> {
  return db.query<RightsInvoice>(sql`
    SELECT id, order_id, invoice_number, total, amount_paid, issued_at, document FROM invoices
     WHERE company_id = ${companyId} AND order_id = ${ids(orderIds)}`);
}

export async function creditNotesOf(db: Db, companyId: string, invoiceIds: string[]) {
  return db.query<{ id: string; invoice_id: string; credit_note_number: string; reason: string; total: string; issued_at: Date }>(sql`
    SELECT id, invoice_id, credit_note_number, reason, total, issued_at FROM credit_notes
     WHERE company_id = ${companyId} AND invoice_id = ${ids(invoiceIds)}`);
}

export async function paymentsOf(db: Db, companyId: string, invoiceIds: string[]) {
  return db.query<{ invoice_id: string; amount: string; method: string; reference: string | null; recorded_at: Date }>(sql`
    SELECT invoice_id, amount, method, reference, recorded_at FROM payments
     WHERE company_id = ${companyId} AND invoice_id = ${ids(invoiceIds)} ORDER BY recorded_at`);
}

export async function paymentLinksOf(db: Db, companyId: string, orderIds: string[]) {
  return db.query<{ order_id: string; short_url: string; amount: string; status: string; expires_at: Date | null; paid_at: Date | null; created_at: Date }>(sql`
    SELECT order_id, short_url, amount, status, expires_at, paid_at, created_at FROM order_payment_links
     WHERE company_id = ${companyId} AND order_id = ${ids(orderIds)} ORDER BY created_at`);
}

export interface RightsCheckout {
  id: string;
  status: string;
  order_id: string | null;
  buyer: unknown;
  fulfillment: unknown;
  payment: unknown;
  completed_view: unknown;
  order_updates: unknown;
  line_items: unknown;
  created_at: Date;
  updated_at: Date;
}

/** A text without the separators typed inside a phone number ("+91 98765-43210" → "+919876543210"). */
const typed = (expr: SQL) => sql`regexp_replace(${expr}, '[[:space:]().-]+', '', 'g')`;

/** The text holds one of the customer's e-mails or phones (scrub.ts `buyerMatch`), a phone also as typed. */
function identifies(expr: SQL, buyer: BuyerMatch): SQL {
  const byNeedle = buyer.needles.length ? mentioning(expr, buyer.needles) : sql`false`;
  const byPhone = buyer.phonePattern ? sql`${typed(expr)} ~ ${buyer.phonePattern}` : sql`false`;
  return sql`(${byNeedle} OR ${byPhone})`;
}

/**
 * The checkout sessions of the customer's orders, and those that made no order (open, canceled or expired) whose buyer
 * is this customer: their e-mail or phone in the buyer, or their phone as typed in the buyer or a destination (scrub.ts
 * `buyerMatch`); with `lock`, locked.
 */
export async function checkoutsOf(db: Db, companyId: string, orderIds: string[], buyer: BuyerMatch, lock = false): Promise<RightsCheckout[]> {
  return db.query<RightsCheckout>(sql`
    SELECT id, status, order_id, buyer, fulfillment, payment, completed_view, order_updates, line_items, created_at, updated_at
      FROM checkout_sessions
     WHERE company_id = ${companyId}
       AND (order_id = ${ids(orderIds)}
            OR (order_id IS NULL AND ${identifies(sql`coalesce(buyer::text, '') || ' ' || coalesce(fulfillment::text, '')`, buyer)}))
     ORDER BY id ${lock ? sql`FOR UPDATE` : sql``}`);
}

/** Events about these subjects (the customer, its orders), oldest first. */
export async function eventsAbout(db: Db, companyId: string, subjectIds: string[]) {
  return db.query<{ id: string; type: string; subject_id: string; data: string; whatsapp: string | null; created_at: Date }>(sql`
    SELECT id, type, subject_id, data::text AS data, whatsapp::text AS whatsapp, created_at FROM events
     WHERE company_id = ${companyId} AND subject_id = ${ids(subjectIds)} ORDER BY seq`);
}

// ---- erasure ----

export async function eraseCustomerRow(tx: Db, companyId: string, customerId: string, placeholder: string, now: Date): Promise<void> {
  await tx.query(sql`
    UPDATE customers SET name = ${placeholder}, phone_e164 = NULL, email = NULL, address_name = NULL, address_line1 = NULL,
           address_line2 = NULL, city = NULL, state = NULL, pincode = NULL, address_phone = NULL, messaging_opted_out = true,
           erased_at = ${now.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
     WHERE company_id = ${companyId} AND id = ${customerId}`);
}

/** A withdrawn consent row for each purpose and channel (source `erasure`): the history ends with nothing given. */
export async function withdrawAllConsents(
  tx: Db,
  companyId: string,
  customerId: string,
  rows: { id: string; purpose: string; channel: string }[],
  actor: string,
  now: Date,
) {
  for (const r of rows)
    await tx.query(sql`
      INSERT INTO customer_consents (company_id, id, customer_id, purpose, channel, state, source, actor, recorded_at)
      VALUES (${companyId}, ${r.id}, ${customerId}, ${r.purpose}, ${r.channel}, 'withdrawn', 'erasure', ${actor}, ${now.toISOString()}::timestamptz)`);
}

export async function rewriteOrderPersonal(
  tx: Db,
  companyId: string,
  orderId: string,
  fields: { delivery_address: StoredAddress | null; external_reference: string | null; payment_reference: string | null },
): Promise<void> {
  await tx.query(sql`
    UPDATE orders SET delivery_address = ${fields.delivery_address === null ? null : JSON.stringify(fields.delivery_address)}::jsonb, notes = NULL,
           external_reference = ${fields.external_reference}, payment_reference = ${fields.payment_reference}, updated_at = now()
     WHERE company_id = ${companyId} AND id = ${orderId}`);
}

export async function rewriteEvent(tx: Db, companyId: string, eventId: string, data: string): Promise<void> {
  await tx.query(sql`UPDATE events SET data = ${data}::json, whatsapp = NULL WHERE company_id = ${companyId} AND id = ${eventId}`);
}

/** Delivery errors may echo a body: cleared for deliveries of these subjects. */
export async function clearWebhookErrors(tx: Db, companyId: string, subjectIds: string[]): Promise<number> {
  const rows = await tx.query(sql`
    UPDATE webhook_deliveries SET last_error = NULL WHERE company_id = ${companyId} AND subject_id = ${ids(subjectIds)} AND last_error IS NOT NULL RETURNING event_id`);
  return rows.length;
}

export async function clearUcpDeliveryErrors(tx: Db, companyId: string, orderIds: string[]): Promise<number> {
  const rows = await tx.query(sql`
    UPDATE ucp_order_deliveries SET last_error = NULL WHERE company_id = ${companyId} AND order_id = ${ids(orderIds)} AND last_error IS NOT NULL RETURNING id`);
  return rows.length;
}

export async function clearJobErrors(tx: Db, companyId: string, orderIds: string[]): Promise<number> {
  const rows = await tx.query(sql`
    UPDATE jobs SET last_error = NULL WHERE company_id = ${companyId} AND order_id = ${ids(orderIds)} AND last_error IS NOT NULL RETURNING id`);
  return rows.length;
}

export async function rewriteCheckout(
  tx: Db,
  companyId: string,
  c: Pick<RightsCheckout, 'id' | 'status' | 'buyer' | 'fulfillment' | 'payment' | 'completed_view' | 'order_updates' | 'line_items'>,
): Promise<void> {
  const j = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
  await tx.query(sql`
    UPDATE checkout_sessions SET status = ${c.status}, buyer = ${j(c.buyer)}::jsonb, fulfillment = ${j(c.fulfillment)}::jsonb, payment = ${j(c.payment)}::jsonb,
           completed_view = ${j(c.completed_view)}::jsonb, order_updates = ${j(c.order_updates)}::jsonb, line_items = ${j(c.line_items)}::jsonb, updated_at = now()
     WHERE company_id = ${companyId} AND id = ${c.id}`);
}

/** The buyer's saved addresses (UCP's address book): those kept under the customer's e-mail or phone. */
export async function deleteBuyerAddresses(tx: Db, companyId: string, buyer: BuyerMatch): Promise<number> {
  const byPhone = buyer.phonePattern ? sql`(buyer_key LIKE 'phone:%' AND ${typed(sql`buyer_key`)} ~ ${buyer.phonePattern})` : sql`false`;
  const rows = await tx.query(sql`
    DELETE FROM buyer_addresses WHERE company_id = ${companyId}
       AND (buyer_key = ANY(${sql.param(buyer.emailKeys)}::text[]) OR ${byPhone}) RETURNING id`);
  return rows.length;
}

/** The idempotent answers (UCP checkout calls) about the customer's checkouts or naming their e-mail or phone, locked. */
export async function idempotentAnswersAbout(tx: Db, companyId: string, checkoutIds: string[], buyer: BuyerMatch) {
  const byCheckout = checkoutIds.length ? sql`EXISTS (SELECT 1 FROM unnest(${sql.param(checkoutIds)}::text[]) c WHERE strpos(response, c) > 0)` : sql`false`;
  return tx.query<{ scope: string; key: string; response: string }>(sql`
    SELECT scope, key, response FROM idempotency_records
     WHERE company_id = ${companyId} AND (${byCheckout} OR ${identifies(sql`response`, buyer)}) ORDER BY scope, key FOR UPDATE`);
}

export async function rewriteIdempotentAnswer(tx: Db, companyId: string, scope: string, key: string, response: string): Promise<void> {
  await tx.query(sql`UPDATE idempotency_records SET response = ${response} WHERE company_id = ${companyId} AND scope = ${scope} AND key = ${key}`);
}

/** Payment events naming the customer's e-mail or phone (the stored payload is an allowlist without them; a note may), locked. */
export async function paymentEventsAbout(tx: Db, companyId: string, buyer: BuyerMatch) {
  return tx.query<{ provider: string; event_id: string; payload: unknown; note: string | null }>(sql`
    SELECT provider, event_id, payload, note FROM payment_events
     WHERE company_id = ${companyId} AND ${identifies(sql`payload::text || ' ' || coalesce(note, '')`, buyer)} ORDER BY provider, event_id FOR UPDATE`);
}

export async function rewritePaymentEvent(tx: Db, companyId: string, provider: string, eventId: string, payload: unknown, note: string | null): Promise<void> {
  await tx.query(sql`
    UPDATE payment_events SET payload = ${JSON.stringify(payload)}::jsonb, note = ${note}
     WHERE company_id = ${companyId} AND provider = ${provider} AND event_id = ${eventId}`);
}

export async function rewriteInvoiceDocument(tx: Db, companyId: string, invoiceId: string, document: unknown): Promise<void> {
  await tx.query(sql`UPDATE invoices SET document = ${JSON.stringify(document)}::jsonb WHERE company_id = ${companyId} AND id = ${invoiceId}`);
}

/** Drawn PDFs of these documents (redrawn from the kept invoice on request). */
export async function deleteDocumentFiles(tx: Db, companyId: string, documentIds: string[]): Promise<number> {
  const rows = await tx.query(sql`DELETE FROM document_files WHERE company_id = ${companyId} AND document_id = ${ids(documentIds)} RETURNING document_id`);
  return rows.length;
}

/** Free-text columns of the order's rows that staff, couriers or payment notes may have filled (each row keyed by the company and its own id). */
export type FreeTextPlace = 'shipment_events.note' | 'courier_holds.reason' | 'courier_holds.resolution' | 'credit_notes.reason' | 'payments.reference';

function placeScope(place: FreeTextPlace, companyId: string, orderIds: string[], invoiceIds: string[]): SQL {
  switch (place) {
    case 'shipment_events.note':
      return sql`shipment_id IN (SELECT id FROM shipments WHERE company_id = ${companyId} AND order_id = ${ids(orderIds)})`;
    case 'courier_holds.reason':
    case 'courier_holds.resolution':
      return sql`order_id = ${ids(orderIds)}`;
    case 'credit_notes.reason':
    case 'payments.reference':
      return sql`invoice_id = ${ids(invoiceIds)}`;
  }
}

/** The rows of a free-text place belonging to these orders whose text mentions a needle. */
export async function freeTextsMentioning(tx: Db, companyId: string, place: FreeTextPlace, orderIds: string[], invoiceIds: string[], needles: string[]) {
  const [table, column] = place.split('.');
  return tx.query<{ id: string; text: string }>(sql`
    SELECT id, ${sql.identifier(column)} AS text FROM ${sql.identifier(table)}
     WHERE company_id = ${companyId} AND ${placeScope(place, companyId, orderIds, invoiceIds)}
       AND ${sql.identifier(column)} IS NOT NULL AND ${mentioning(sql`${sql.identifier(column)}`, needles)} FOR UPDATE`);
}

export async function rewriteFreeText(tx: Db, companyId: string, place: FreeTextPlace, id: string, text: string): Promise<void> {
  const [table, column] = place.split('.');
  await tx.query(sql`UPDATE ${sql.identifier(table)} SET ${sql.identifier(column)} = ${text} WHERE company_id = ${companyId} AND id = ${id}`);
}

// ---- the inactive-customer rule ----

/**
 * Up to `limit` customers of the company the rule has work on: not yet erased, unchanged since `before`, without an
 * order placed since, and with no order still on its way (draft, confirmed, packed, shipped); of these, those never told
 * since their last activity (a notice is due) and those told before `noticeBefore` (their erasure is due). Those told
 * since their last activity and less than 48 hours ago wait, and are not answered (they would fill every batch).
 */
export async function inactiveCustomers(db: Db, companyId: string, before: Date, noticeBefore: Date, limit: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(sql`
    SELECT c.id FROM customers c
     WHERE c.company_id = ${companyId} AND c.erased_at IS NULL AND c.updated_at < ${before.toISOString()}::timestamptz
       AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.company_id = ${companyId} AND o.customer_id = c.id
                          AND (o.created_at >= ${before.toISOString()}::timestamptz OR o.status IN ('draft', 'confirmed', 'packed', 'shipped')))
       AND NOT (c.erasure_notice_at IS NOT NULL AND c.erasure_notice_at > c.updated_at
                AND c.erasure_notice_at > ${noticeBefore.toISOString()}::timestamptz
                AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.company_id = ${companyId} AND o.customer_id = c.id
                                   AND o.created_at >= c.erasure_notice_at))
     ORDER BY c.updated_at, c.id LIMIT ${limit}`);
  return rows.map((r) => r.id);
}

/** The erasure notice's time on the customer; updated_at stays (a notice is not the customer's activity). */
export async function stampErasureNotice(tx: Db, companyId: string, customerId: string, at: Date): Promise<void> {
  await tx.query(sql`UPDATE customers SET erasure_notice_at = ${at.toISOString()}::timestamptz WHERE company_id = ${companyId} AND id = ${customerId}`);
}

/** Customer correction: the fields given, and updated_at. */
export async function correctCustomerRow(
  tx: Db,
  companyId: string,
  customerId: string,
  change: { name?: string; email?: string | null; address?: StoredAddress },
  now: Date,
): Promise<void> {
  const a = change.address;
  await tx.query(sql`
    UPDATE customers SET
      name = ${change.name === undefined ? sql`name` : sql`${change.name}`},
      email = ${change.email === undefined ? sql`email` : sql`${change.email}`},
      ${
        a
          ? sql`address_name = ${a.name}, address_line1 = ${a.line1}, address_line2 = ${a.line2}, city = ${a.city}, state = ${a.state},
                pincode = ${a.pincode}, address_phone = ${a.phone},`
          : sql``
      }
      updated_at = ${now.toISOString()}::timestamptz
     WHERE company_id = ${companyId} AND id = ${customerId}`);
}

export async function setOrderDeliveryAddress(tx: Db, companyId: string, orderId: string, address: StoredAddress): Promise<void> {
  await tx.query(
    sql`UPDATE orders SET delivery_address = ${JSON.stringify(address)}::jsonb, updated_at = now() WHERE company_id = ${companyId} AND id = ${orderId}`,
  );
}
