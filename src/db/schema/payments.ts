import { sql } from 'drizzle-orm';
import { index, jsonb, numeric, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.js';
import { companies } from './companies.js';

// A company's payment provider, the provider's webhook events and what its orders and links pay for (migration 0024).

export const PAYMENT_PROVIDERS = ['razorpay'] as const;
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];
export const PAYMENT_EVENT_STATUSES = ['recorded', 'acted', 'needs_attention'] as const;
export type PaymentEventStatus = (typeof PAYMENT_EVENT_STATUSES)[number];
export const PAYMENT_PURPOSES = ['checkout', 'payment_link'] as const;
export type PaymentPurpose = (typeof PAYMENT_PURPOSES)[number];

/** The company's provider account: secrets sealed (never log a row). */
export const paymentConfigs = pgTable('payment_configs', {
  company_id: text()
    .primaryKey()
    .references(() => companies.id),
  provider: text({ enum: PAYMENT_PROVIDERS }).notNull(),
  key_id: text().notNull(),
  key_secret_enc: text().notNull(),
  webhook_secret_enc: text().notNull(),
  previous_webhook_secret_enc: text(),
  webhook_secret_changed_at: timestamptz(),
  base_url: text(),
  mode: text({ enum: ['test', 'live'] }).notNull(),
  updated_at: timestamptz().notNull().defaultNow(),
});

/** A provider's webhook event, once per event id; payload without the buyer's contact or card. */
export const paymentEvents = pgTable(
  'payment_events',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    provider: text({ enum: PAYMENT_PROVIDERS }).notNull(),
    event_id: text().notNull(),
    event_type: text().notNull(),
    payment_id: text(),
    provider_order_id: text(),
    amount: numeric({ precision: 12, scale: 2 }),
    status: text({ enum: PAYMENT_EVENT_STATUSES }).notNull().default('recorded'),
    note: text(),
    payload: jsonb().notNull(),
    created_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.provider, t.event_id] }),
    // events acted on, by age, for retention (migration 0035)
    index('payment_events_acted')
      .on(t.company_id, t.created_at)
      .where(sql`status = 'acted'`),
  ],
);

/** What a provider order (order_…) or payment link (plink_…) pays for: a checkout or an order. */
export const paymentBindings = pgTable(
  'payment_bindings',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    provider: text({ enum: PAYMENT_PROVIDERS }).notNull(),
    provider_order_id: text().notNull(),
    purpose: text({ enum: PAYMENT_PURPOSES }).notNull(),
    subject_id: text().notNull(),
    amount: numeric({ precision: 12, scale: 2 }).notNull(),
    created_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.company_id, t.provider, t.provider_order_id] }), index('payment_bindings_subject').on(t.company_id, t.subject_id)],
);

export type PaymentConfigRow = typeof paymentConfigs.$inferSelect;
export type PaymentEventRow = typeof paymentEvents.$inferSelect;
export type PaymentBindingRow = typeof paymentBindings.$inferSelect;
