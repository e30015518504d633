import { sql } from 'drizzle-orm';
import { boolean, foreignKey, index, integer, jsonb, numeric, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core';
import { variants, stockLevels } from './catalogue.js';
import { bigintText, timestamptz } from './columns.js';
import { companies } from './companies.js';
import { customers } from './customers.js';

export const ORDER_STATUSES = ['draft', 'confirmed', 'packed', 'shipped', 'delivered', 'cancelled', 'returned'] as const;
export const COD_CONFIRMATION_STATES = ['pending', 'confirmed', 'declined'] as const;
export type CodConfirmationState = (typeof COD_CONFIRMATION_STATES)[number];
/** Who settled a COD confirmation (migration 0029): the buyer (through the flow), staff, the time limit, a payment online. */
export const COD_SETTLED_BY = ['buyer', 'staff', 'timeout', 'payment'] as const;
export type CodSettledBy = (typeof COD_SETTLED_BY)[number];

/** The shipping address an order keeps (a snapshot taken when it is placed). */
export interface StoredAddress {
  name: string | null;
  line1: string;
  line2: string | null;
  city: string;
  state: string;
  pincode: string;
  phone: string | null;
}

/** Migration 0003; placed by the place_order() SQL function (src/db/functions/place_order.sql). */
export const orders = pgTable(
  'orders',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    id: text().notNull(),
    order_number: text().notNull(),
    external_reference: text(),
    customer_id: text().notNull(),
    status: text({ enum: ORDER_STATUSES }).notNull(),
    payment: text({ enum: ['cod', 'prepaid'] }).notNull(),
    payment_reference: text(),
    notes: text(),
    amount: numeric({ precision: 14, scale: 2 }).notNull(),
    // what a UCP checkout charged besides the goods (migration 0025): amount = Σ line_total − discount + shipping
    discount_amount: numeric({ precision: 14, scale: 2 }).notNull().default('0'),
    shipping_amount: numeric({ precision: 14, scale: 2 }).notNull().default('0'),
    currency: text().notNull().default('INR'),
    // the order's own shipping address (a snapshot), or null when none is usable yet
    delivery_address: jsonb().$type<StoredAddress>(),
    location_id: text(),
    created_at: timestamptz().notNull().defaultNow(),
    updated_at: timestamptz().notNull().defaultNow(),
    // migration 0027: a COD order's confirmation (null: not asked), until when it may stay pending, when it was settled
    cod_confirmation: text({ enum: COD_CONFIRMATION_STATES }),
    cod_confirmation_due_at: timestamptz(),
    cod_confirmation_settled_at: timestamptz(),
    cod_confirmation_settled_by: text({ enum: COD_SETTLED_BY }),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    unique().on(t.company_id, t.order_number),
    unique().on(t.company_id, t.external_reference),
    foreignKey({ columns: [t.company_id, t.customer_id], foreignColumns: [customers.company_id, customers.id] }),
    index('orders_customer').on(t.company_id, t.customer_id, t.created_at.desc()),
    index('orders_cod_confirmation_due')
      .on(t.company_id, t.cod_confirmation_due_at)
      .where(sql`cod_confirmation = 'pending'`),
  ],
);

export const orderLines = pgTable(
  'order_lines',
  {
    company_id: text().notNull(),
    order_id: text().notNull(),
    line_no: integer().notNull(),
    variant_id: text().notNull(),
    sku: text().notNull(),
    name: text().notNull(),
    quantity: numeric({ precision: 14, scale: 3 }).notNull(),
    unit_price: numeric({ precision: 12, scale: 2 }).notNull(),
    line_total: numeric({ precision: 14, scale: 2 }).notNull(),
    tax_rate: numeric({ precision: 5, scale: 2 }).notNull(),
    // the line's share of the order's discount and shipping (0 but for a UCP checkout's order)
    discount: numeric({ precision: 14, scale: 2 }).notNull().default('0'),
    shipping: numeric({ precision: 14, scale: 2 }).notNull().default('0'),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.order_id, t.line_no] }),
    foreignKey({ columns: [t.company_id, t.order_id], foreignColumns: [orders.company_id, orders.id] }),
    foreignKey({ columns: [t.company_id, t.variant_id], foreignColumns: [variants.company_id, variants.id] }),
  ],
);

/** Why stock_levels.reserved is what it is: reserved = sum(quantity) of open rows, per stock row. */
export const stockReservations = pgTable(
  'stock_reservations',
  {
    company_id: text().notNull(),
    id: text().notNull(),
    // the holder: an order, or a checkout (migration 0023; at least one is set)
    order_id: text(),
    variant_id: text().notNull(),
    location_id: text().notNull(),
    quantity: numeric({ precision: 14, scale: 3 }).notNull(),
    status: text({ enum: ['open', 'released', 'converted'] })
      .notNull()
      .default('open'),
    created_at: timestamptz().notNull().defaultNow(),
    closed_at: timestamptz(),
    checkout_id: text(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    foreignKey({ columns: [t.company_id, t.order_id], foreignColumns: [orders.company_id, orders.id] }),
    foreignKey({
      columns: [t.company_id, t.variant_id, t.location_id],
      foreignColumns: [stockLevels.company_id, stockLevels.variant_id, stockLevels.location_id],
    }),
    index('stock_reservations_order').on(t.company_id, t.order_id),
    index('stock_reservations_checkout')
      .on(t.company_id, t.checkout_id)
      .where(sql`checkout_id IS NOT NULL`),
    index('stock_reservations_open')
      .on(t.company_id, t.variant_id, t.location_id)
      .where(sql`status = 'open'`),
  ],
);

/** Per-company order numbers, taken in blocks by allocate_order_numbers() (migration 0009). */
export const orderNumberCounters = pgTable('order_number_counters', {
  company_id: text()
    .primaryKey()
    .references(() => companies.id),
  // the next number not yet handed out
  next_number: bigintText().notNull(),
});

/** A company's cash-on-delivery settings (migration 0027); no row: confirmation off and no rule. */
export const codSettings = pgTable('cod_settings', {
  company_id: text()
    .primaryKey()
    .references(() => companies.id),
  confirm_before_booking: boolean().notNull().default(false),
  confirm_within_minutes: integer().notNull().default(1440),
  on_timeout: text({ enum: ['cancel', 'staff'] })
    .notNull()
    .default('cancel'),
  // '560001' or an inclusive range '560001-560099'
  blocked_pincodes: text()
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  max_order_value: numeric({ precision: 14, scale: 2 }),
  rto_threshold: integer(),
  updated_at: timestamptz().notNull().defaultNow(),
});

export const PAYMENT_LINK_STATUSES = ['created', 'paid', 'expired', 'cancelled'] as const;

/** A payment link made for an order: COD to prepaid on the same order (migration 0027). */
export const orderPaymentLinks = pgTable(
  'order_payment_links',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    id: text().notNull(),
    order_id: text().notNull(),
    provider: text().notNull(),
    short_url: text().notNull(),
    amount: numeric({ precision: 14, scale: 2 }).notNull(),
    status: text({ enum: PAYMENT_LINK_STATUSES }).notNull().default('created'),
    expires_at: timestamptz(),
    payment_id: text(),
    created_at: timestamptz().notNull().defaultNow(),
    paid_at: timestamptz(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    foreignKey({ columns: [t.company_id, t.order_id], foreignColumns: [orders.company_id, orders.id] }),
    index('order_payment_links_order').on(t.company_id, t.order_id, t.created_at.desc()),
  ],
);

export type OrderRow = typeof orders.$inferSelect;
export type CodSettingsRow = typeof codSettings.$inferSelect;
export type OrderPaymentLinkRow = typeof orderPaymentLinks.$inferSelect;
export type OrderLineRow = typeof orderLines.$inferSelect;
export type StockReservationRow = typeof stockReservations.$inferSelect;
