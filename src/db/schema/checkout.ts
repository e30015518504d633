import { sql } from 'drizzle-orm';
import { boolean, foreignKey, index, integer, jsonb, numeric, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core';
import { bytea, timestamptz } from './columns.js';
import { companies } from './companies.js';
import { orders } from './orders.js';

// The UCP business: settings, hosts, shipping rates, discount codes, checkout sessions, idempotency (migration 0023).

export const CHECKOUT_STATUSES = ['incomplete', 'requires_escalation', 'ready_for_complete', 'complete_in_progress', 'completed', 'canceled'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

/** A company's UCP business settings; no row: off, with the defaults. */
export const ucpSettings = pgTable('ucp_settings', {
  company_id: text()
    .primaryKey()
    .references(() => companies.id),
  enabled: boolean().notNull().default(false),
  hold_minutes: integer().notNull().default(30),
  privacy_url: text(),
  terms_url: text(),
  updated_at: timestamptz().notNull().defaultNow(),
});

/** A seller's own domain whose /.well-known/ucp is the company's (a reference table on Citus). */
export const ucpHosts = pgTable(
  'ucp_hosts',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    host: text().notNull(),
    created_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.company_id, t.host] }), unique().on(t.host)],
);

export const shippingRates = pgTable(
  'shipping_rates',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    id: text().notNull(),
    title: text().notNull(),
    description: text(),
    level: text({ enum: ['standard', 'express'] }).notNull(),
    zone_kind: text({ enum: ['pincodes', 'states', 'countries', 'everywhere'] }).notNull(),
    zone_values: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    price: numeric({ precision: 12, scale: 2 }).notNull(),
    free_above: numeric({ precision: 12, scale: 2 }),
    free_skus: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    active: boolean().notNull().default(true),
    created_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.company_id, t.id] })],
);

export const discountCodes = pgTable(
  'discount_codes',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    code: text().notNull(),
    title: text().notNull(),
    kind: text({ enum: ['percentage', 'fixed'] }).notNull(),
    value: numeric({ precision: 12, scale: 2 }).notNull(),
    min_order: numeric({ precision: 12, scale: 2 }),
    starts_at: timestamptz(),
    ends_at: timestamptz(),
    usage_limit: integer(),
    per_customer_limit: integer(),
    used_count: integer().notNull().default(0),
    active: boolean().notNull().default(true),
    created_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.company_id, t.code] })],
);

export const discountRedemptions = pgTable(
  'discount_redemptions',
  {
    company_id: text().notNull(),
    code: text().notNull(),
    order_id: text().notNull(),
    customer_id: text(),
    amount: numeric({ precision: 12, scale: 2 }).notNull(),
    created_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.code, t.order_id] }),
    foreignKey({ columns: [t.company_id, t.code], foreignColumns: [discountCodes.company_id, discountCodes.code] }),
    foreignKey({ columns: [t.company_id, t.order_id], foreignColumns: [orders.company_id, orders.id] }),
    index('discount_redemptions_customer').on(t.company_id, t.code, t.customer_id),
  ],
);

export const checkoutSessions = pgTable(
  'checkout_sessions',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    id: text().notNull(),
    status: text({ enum: CHECKOUT_STATUSES }).notNull(),
    currency: text().notNull().default('INR'),
    ucp_version: text().notNull(),
    location_id: text(),
    line_items: jsonb()
      .notNull()
      .default(sql`'[]'::jsonb`),
    buyer: jsonb(),
    fulfillment: jsonb(),
    discount_codes: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    payment: jsonb(),
    platform_webhook_url: text(),
    expires_at: timestamptz().notNull(),
    order_id: text(),
    // what the checkout came to when completed (checkout.service.ts CheckoutView without its record)
    completed_view: jsonb(),
    // what a platform recorded through the conformance harness: { events, adjustments } (migration 0026)
    order_updates: jsonb(),
    created_at: timestamptz().notNull().defaultNow(),
    updated_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    foreignKey({ columns: [t.company_id, t.order_id], foreignColumns: [orders.company_id, orders.id] }),
    index('checkout_sessions_open_expiry')
      .on(t.expires_at)
      .where(sql`status = ANY (ARRAY['incomplete', 'requires_escalation', 'ready_for_complete'])`),
    // ended sessions by age, for retention (migration 0032)
    index('checkout_sessions_ended')
      .on(t.company_id, t.updated_at)
      .where(sql`status = ANY (ARRAY['completed', 'canceled'])`),
    // canceled sessions by age, for retention (migration 0035)
    index('checkout_sessions_canceled')
      .on(t.company_id, t.updated_at)
      .where(sql`status = 'canceled'`),
    // completed sessions still holding the buyer's details, by age (migration 0035)
    index('checkout_sessions_completed_personal')
      .on(t.company_id, t.updated_at)
      .where(sql`status = 'completed' AND (buyer IS NOT NULL OR fulfillment IS NOT NULL)`),
  ],
);

export const idempotencyRecords = pgTable(
  'idempotency_records',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    scope: text().notNull(),
    key: text().notNull(),
    request_hash: bytea().notNull(),
    status_code: integer().notNull(),
    response: text().notNull(),
    created_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.scope, t.key] }),
    index('idempotency_records_created').on(t.created_at),
    // by company and age, for retention (migration 0035)
    index('idempotency_records_company_created').on(t.company_id, t.created_at),
  ],
);

export type UcpSettingsRow = typeof ucpSettings.$inferSelect;
export type ShippingRateRow = typeof shippingRates.$inferSelect;
export type DiscountCodeRow = typeof discountCodes.$inferSelect;
export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect;

/** Addresses a checkout's buyer gave, offered at their next checkout ('email:…' or 'phone:…' as buyer_key). */
export const buyerAddresses = pgTable(
  'buyer_addresses',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    buyer_key: text().notNull(),
    id: text().notNull(),
    address: jsonb().notNull(),
    created_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.company_id, t.buyer_key, t.id] })],
);

/** Migration 0026: order events owed to the platform that placed the order (src/checkout/order-events-worker.ts). */
export const ucpOrderDeliveries = pgTable(
  'ucp_order_deliveries',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    id: text().notNull(),
    checkout_id: text().notNull(),
    order_id: text().notNull(),
    event_type: text().notNull(),
    url: text().notNull(),
    status: text({ enum: ['pending', 'delivered', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer().notNull().default(0),
    next_attempt_at: timestamptz().notNull().defaultNow(),
    last_status: integer(),
    last_error: text(),
    created_at: timestamptz().notNull().defaultNow(),
    delivered_at: timestamptz(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    foreignKey({ columns: [t.company_id, t.order_id], foreignColumns: [orders.company_id, orders.id] }),
    index('ucp_order_deliveries_due')
      .on(t.company_id, t.next_attempt_at)
      .where(sql`status = 'pending'`),
    // finished deliveries by age, for retention (migration 0035)
    index('ucp_order_deliveries_finished')
      .on(t.company_id, t.created_at)
      .where(sql`status <> 'pending'`),
  ],
);

export type UcpOrderDeliveryRow = typeof ucpOrderDeliveries.$inferSelect;
