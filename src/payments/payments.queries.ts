import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import type { PaymentBindingRow, PaymentConfigRow, PaymentEventRow, PaymentEventStatus, PaymentProviderName } from '../db/schema/index.js';

const CONFIG_COLUMNS = sql.raw(
  'company_id, provider, key_id, key_secret_enc, webhook_secret_enc, previous_webhook_secret_enc, webhook_secret_changed_at, base_url, mode, updated_at',
);

export async function findPaymentConfig(db: Db, companyId: string): Promise<PaymentConfigRow | undefined> {
  const rows = await db.query<PaymentConfigRow>(sql`SELECT ${CONFIG_COLUMNS} FROM payment_configs WHERE company_id = ${companyId}`);
  return rows[0];
}

/**
 * The payment settings of a company named by id or slug, with its slug: the company first (companies is a reference
 * table under Citus), then its settings on that company's shard. Undefined when either is missing.
 */
export async function findPaymentConfigOf(db: Db, company: string): Promise<(PaymentConfigRow & { slug: string }) | undefined> {
  const [co] = await db.query<{ id: string; slug: string }>(sql`SELECT id, slug FROM companies WHERE id = ${company} OR slug = ${company}`);
  if (!co) return undefined;
  const rows = await db.query<PaymentConfigRow>(sql`SELECT ${CONFIG_COLUMNS} FROM payment_configs WHERE company_id = ${co.id}`);
  return rows[0] ? { ...rows[0], slug: co.slug } : undefined;
}

export type PaymentConfigWrite = Pick<
  PaymentConfigRow,
  'provider' | 'key_id' | 'key_secret_enc' | 'webhook_secret_enc' | 'previous_webhook_secret_enc' | 'webhook_secret_changed_at' | 'base_url' | 'mode'
>;

/** The company's settings as given (the service merged them with what was stored). */
export async function writePaymentConfig(db: Db, companyId: string, c: PaymentConfigWrite): Promise<PaymentConfigRow> {
  const rows = await db.query<PaymentConfigRow>(sql`
    INSERT INTO payment_configs (company_id, provider, key_id, key_secret_enc, webhook_secret_enc, previous_webhook_secret_enc,
                                 webhook_secret_changed_at, base_url, mode, updated_at)
    VALUES (${companyId}, ${c.provider}, ${c.key_id}, ${c.key_secret_enc}, ${c.webhook_secret_enc}, ${c.previous_webhook_secret_enc},
            ${c.webhook_secret_changed_at?.toISOString() ?? null}::timestamptz, ${c.base_url}, ${c.mode}, now())
    ON CONFLICT (company_id) DO UPDATE SET
      provider = excluded.provider, key_id = excluded.key_id, key_secret_enc = excluded.key_secret_enc,
      webhook_secret_enc = excluded.webhook_secret_enc, previous_webhook_secret_enc = excluded.previous_webhook_secret_enc,
      webhook_secret_changed_at = excluded.webhook_secret_changed_at, base_url = excluded.base_url, mode = excluded.mode,
      updated_at = excluded.updated_at
    RETURNING ${CONFIG_COLUMNS}`);
  return rows[0];
}

export type NewBinding = Pick<PaymentBindingRow, 'provider' | 'provider_order_id' | 'purpose' | 'subject_id' | 'amount'>;

/**
 * Records what a provider order or link pays for. The same binding again is a no-op; the same provider id bound to
 * something else is refused (answers the binding that stands).
 */
export async function insertBinding(db: Db, companyId: string, b: NewBinding): Promise<PaymentBindingRow> {
  const inserted = await db.query<PaymentBindingRow>(sql`
    INSERT INTO payment_bindings (company_id, provider, provider_order_id, purpose, subject_id, amount)
    VALUES (${companyId}, ${b.provider}, ${b.provider_order_id}, ${b.purpose}, ${b.subject_id}, ${b.amount})
    ON CONFLICT (company_id, provider, provider_order_id) DO NOTHING
    RETURNING company_id, provider, provider_order_id, purpose, subject_id, amount, created_at`);
  if (inserted[0]) return inserted[0];
  return (await findBinding(db, companyId, b.provider, [b.provider_order_id]))!;
}

/** The binding of the first of `providerIds` (a link id, an order id) that has one. */
export async function findBinding(db: Db, companyId: string, provider: PaymentProviderName, providerIds: string[]): Promise<PaymentBindingRow | undefined> {
  if (providerIds.length === 0) return undefined;
  const rows = await db.query<PaymentBindingRow>(sql`
    SELECT company_id, provider, provider_order_id, purpose, subject_id, amount, created_at
    FROM payment_bindings
    WHERE company_id = ${companyId} AND provider = ${provider} AND provider_order_id = ANY(${sql.param(providerIds)}::text[])`);
  return providerIds.map((id) => rows.find((r) => r.provider_order_id === id)).find((r) => r !== undefined);
}

/** Whether something of `purpose` is bound to `subjectId` (an order with a payment link, a checkout with a Razorpay order). */
export async function hasBindingFor(db: Db, companyId: string, purpose: PaymentBindingRow['purpose'], subjectId: string): Promise<boolean> {
  const rows = await db.query(sql`
    SELECT 1 FROM payment_bindings WHERE company_id = ${companyId} AND subject_id = ${subjectId} AND purpose = ${purpose} LIMIT 1`);
  return rows.length === 1;
}

export type NewPaymentEvent = Pick<PaymentEventRow, 'provider' | 'event_id' | 'event_type' | 'payment_id' | 'provider_order_id' | 'amount' | 'payload'>;

/** Records an event once: true when this call recorded it, false when it was there already (a redelivery). */
export async function insertPaymentEvent(db: Db, companyId: string, e: NewPaymentEvent): Promise<boolean> {
  const rows = await db.query(sql`
    INSERT INTO payment_events (company_id, provider, event_id, event_type, payment_id, provider_order_id, amount, payload)
    VALUES (${companyId}, ${e.provider}, ${e.event_id}, ${e.event_type}, ${e.payment_id}, ${e.provider_order_id}, ${e.amount},
            ${JSON.stringify(e.payload)}::jsonb)
    ON CONFLICT (company_id, provider, event_id) DO NOTHING
    RETURNING event_id`);
  return rows.length === 1;
}

/** The event's status under its row lock (in the caller's transaction): deliveries of one event act one at a time. */
export async function lockPaymentEvent(tx: Db, companyId: string, provider: PaymentProviderName, eventId: string): Promise<PaymentEventStatus | undefined> {
  const rows = await tx.query<Pick<PaymentEventRow, 'status'>>(sql`
    SELECT status FROM payment_events WHERE company_id = ${companyId} AND provider = ${provider} AND event_id = ${eventId} FOR UPDATE`);
  return rows[0]?.status;
}

export async function settlePaymentEvent(
  tx: Db,
  companyId: string,
  provider: PaymentProviderName,
  eventId: string,
  status: Exclude<PaymentEventStatus, 'recorded'>,
  note: string | null,
): Promise<void> {
  await tx.query(sql`
    UPDATE payment_events SET status = ${status}, note = ${note}
    WHERE company_id = ${companyId} AND provider = ${provider} AND event_id = ${eventId}`);
}
