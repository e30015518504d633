import { sql } from 'drizzle-orm';
import { foreignKey, index, integer, jsonb, numeric, pgTable, primaryKey, text, unique, uniqueIndex } from 'drizzle-orm/pg-core';
import { bytea, timestamptz } from './columns.js';
import { companies } from './companies.js';
import { orders } from './orders.js';

const EVENT_SOURCES = ['worker', 'callback', 'cli'] as const;

/** Transactional outbox: work that must follow a commit (courier booking), claimed with SKIP LOCKED (0003, 0005). */
export const jobs = pgTable(
  'jobs',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    id: text().notNull(),
    kind: text().notNull(),
    order_id: text(),
    status: text({ enum: ['pending', 'done', 'failed'] })
      .notNull()
      .default('pending'),
    run_at: timestamptz().notNull().defaultNow(),
    attempts: integer().notNull().default(0),
    last_error: text(),
    created_at: timestamptz().notNull().defaultNow(),
    updated_at: timestamptz().notNull().defaultNow(),
    // a worker's claim: the job stays pending (run_at pushed past the lease) while a worker books it
    claimed_by: text(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    index('jobs_due')
      .on(t.run_at)
      .where(sql`status = 'pending'`),
    // finished jobs by age, for retention (migration 0032)
    index('jobs_finished')
      .on(t.company_id, t.updated_at)
      .where(sql`status <> 'pending'`),
    uniqueIndex('jobs_one_pending_per_order')
      .on(t.company_id, t.kind, t.order_id)
      .where(sql`status = 'pending'`),
  ],
);

/**
 * Which courier adapter a company uses. Credentials and the callback secret are never logged or shown back (0005).
 * `adapter` (here and in shipments) is a name from the courier registry (src/couriers/registry.ts), which owns the
 * list; the CHECK constraints in the migrations hold the same names (test/couriers/registry.test.ts compares them).
 */
export const courierConfigs = pgTable('courier_configs', {
  company_id: text()
    .primaryKey()
    .references(() => companies.id),
  adapter: text().notNull(),
  base_url: text(),
  api_email: text(),
  api_password: text(),
  pickup_location: text(),
  // HMAC-SHA256 key for tracking callbacks (POST /couriers/{company}/callback)
  callback_secret: text().notNull(),
  created_at: timestamptz().notNull().defaultNow(),
  updated_at: timestamptz().notNull().defaultNow(),
});

export const SHIPMENT_STATUSES = ['pending', 'booked', 'picked_up', 'in_transit', 'out_for_delivery', 'delivered', 'rto', 'cancelled', 'failed'] as const;

/** One parcel per order; status is the courier's latest state (0005). */
export const shipments = pgTable(
  'shipments',
  {
    company_id: text().notNull(),
    id: text().notNull(),
    order_id: text().notNull(),
    adapter: text().notNull(),
    courier: text(),
    awb: text(),
    status: text({ enum: SHIPMENT_STATUSES }).notNull(),
    tracking_url: text(),
    courier_order_id: text(),
    courier_shipment_id: text(),
    delivered_at: timestamptz(),
    created_at: timestamptz().notNull().defaultNow(),
    updated_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    unique().on(t.company_id, t.order_id),
    foreignKey({ columns: [t.company_id, t.order_id], foreignColumns: [orders.company_id, orders.id] }),
    uniqueIndex('shipments_awb')
      .on(t.company_id, t.awb)
      .where(sql`awb IS NOT NULL`),
  ],
);

export const shipmentEvents = pgTable(
  'shipment_events',
  {
    company_id: text().notNull(),
    id: text().notNull(),
    shipment_id: text().notNull(),
    status: text().notNull(),
    source: text({ enum: EVENT_SOURCES }).notNull(),
    note: text(),
    created_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    foreignKey({ columns: [t.company_id, t.shipment_id], foreignColumns: [shipments.company_id, shipments.id] }),
    index('shipment_events_shipment').on(t.company_id, t.shipment_id, t.created_at),
  ],
);

/** One counter row per (company, financial year), taken under lock when an invoice is issued (0005). */
export const invoiceCounters = pgTable(
  'invoice_counters',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    financial_year: text().notNull(),
    last_number: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.company_id, t.financial_year] })],
);

export const invoices = pgTable(
  'invoices',
  {
    company_id: text().notNull(),
    id: text().notNull(),
    order_id: text().notNull(),
    invoice_number: text().notNull(),
    financial_year: text().notNull(),
    total: numeric({ precision: 14, scale: 2 }).notNull(),
    amount_paid: numeric({ precision: 14, scale: 2 }).notNull().default('0'),
    issued_at: timestamptz().notNull(),
    due_at: timestamptz().notNull(),
    created_at: timestamptz().notNull().defaultNow(),
    // the invoice as issued (0016); null for invoices issued before it. Shape: fulfilment/invoice-document.ts
    document: jsonb(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    unique().on(t.company_id, t.order_id),
    unique().on(t.company_id, t.invoice_number),
    foreignKey({ columns: [t.company_id, t.order_id], foreignColumns: [orders.company_id, orders.id] }),
  ],
);

/** The seller's tax profile, one per company: what its invoices say about the seller (0016). */
export const taxProfiles = pgTable('tax_profiles', {
  company_id: text()
    .primaryKey()
    .references(() => companies.id),
  legal_name: text().notNull(),
  trade_name: text(),
  // null: an unregistered supplier (no GST charged, no tax split)
  gstin: text(),
  address_line1: text().notNull(),
  address_line2: text(),
  city: text().notNull(),
  state: text().notNull(),
  pincode: text().notNull(),
  invoice_prefix: text().notNull().default('INV'),
  updated_at: timestamptz().notNull().defaultNow(),
});

/** One counter row per (company, financial year) for credit notes, like invoice_counters (0016). */
export const creditNoteCounters = pgTable(
  'credit_note_counters',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    financial_year: text().notNull(),
    last_number: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.company_id, t.financial_year] })],
);

/** A credit note reverses an invoice whole when its order is cancelled or returned; one per invoice (0016). */
export const creditNotes = pgTable(
  'credit_notes',
  {
    company_id: text().notNull(),
    id: text().notNull(),
    invoice_id: text().notNull(),
    credit_note_number: text().notNull(),
    financial_year: text().notNull(),
    reason: text({ enum: ['cancelled', 'returned'] }).notNull(),
    total: numeric({ precision: 14, scale: 2 }).notNull(),
    issued_at: timestamptz().notNull(),
    created_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    unique().on(t.company_id, t.invoice_id),
    unique().on(t.company_id, t.credit_note_number),
    foreignKey({ columns: [t.company_id, t.invoice_id], foreignColumns: [invoices.company_id, invoices.id] }),
  ],
);

/** An invoice's or credit note's PDF as last drawn, served to its signed links while `view_hash` still matches (0021). */
export const documentFiles = pgTable(
  'document_files',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    // inv_… or cn_…
    document_id: text().notNull(),
    view_hash: text().notNull(),
    etag: text().notNull(),
    pdf: bytea().notNull(),
    rendered_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.company_id, t.document_id] })],
);

/** invoices.amount_paid = sum(payments.amount) per invoice, both written in one transaction (0005, 0010). */
export const payments = pgTable(
  'payments',
  {
    company_id: text().notNull(),
    id: text().notNull(),
    invoice_id: text().notNull(),
    amount: numeric({ precision: 14, scale: 2 }).notNull(),
    method: text({ enum: ['prepaid', 'cod', 'manual'] }).notNull(),
    reference: text(),
    recorded_at: timestamptz().notNull(),
    created_at: timestamptz().notNull().defaultNow(),
    // the shipment whose delivery collected this cash (one COD payment per shipment)
    shipment_id: text(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    foreignKey({ columns: [t.company_id, t.invoice_id], foreignColumns: [invoices.company_id, invoices.id] }),
    foreignKey({ name: 'payments_shipment_fk', columns: [t.company_id, t.shipment_id], foreignColumns: [shipments.company_id, shipments.id] }),
    index('payments_invoice').on(t.company_id, t.invoice_id),
    uniqueIndex('payments_one_per_shipment')
      .on(t.company_id, t.shipment_id)
      .where(sql`shipment_id IS NOT NULL`),
  ],
);

/** Courier updates held for staff (`orders attention`); one open hold per shipment and status (0010). */
export const courierHolds = pgTable(
  'courier_holds',
  {
    company_id: text().notNull(),
    id: text().notNull(),
    order_id: text().notNull(),
    shipment_id: text().notNull(),
    status: text().notNull(),
    cod_collected: text(),
    source: text({ enum: EVENT_SOURCES }).notNull(),
    reason: text().notNull(),
    created_at: timestamptz().notNull().defaultNow(),
    resolved_at: timestamptz(),
    resolution: text(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    foreignKey({ columns: [t.company_id, t.order_id], foreignColumns: [orders.company_id, orders.id] }),
    foreignKey({ columns: [t.company_id, t.shipment_id], foreignColumns: [shipments.company_id, shipments.id] }),
    uniqueIndex('courier_holds_open')
      .on(t.company_id, t.shipment_id, t.status)
      .where(sql`resolved_at IS NULL`),
    index('courier_holds_unresolved')
      .on(t.company_id, t.created_at)
      .where(sql`resolved_at IS NULL`),
  ],
);

export type JobRow = typeof jobs.$inferSelect;
export type CourierConfigRow = typeof courierConfigs.$inferSelect;
export type ShipmentRow = typeof shipments.$inferSelect;
export type ShipmentEventRow = typeof shipmentEvents.$inferSelect;
export type InvoiceRow = typeof invoices.$inferSelect;
export type PaymentRow = typeof payments.$inferSelect;
export type TaxProfileRow = typeof taxProfiles.$inferSelect;
export type CreditNoteRow = typeof creditNotes.$inferSelect;
export type CourierHoldRow = typeof courierHolds.$inferSelect;
export type DocumentFileRow = typeof documentFiles.$inferSelect;
