import { sql } from 'drizzle-orm';
import { foreignKey, index, integer, json, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { bigintText, timestamptz } from './columns.js';
import { companies } from './companies.js';

/** A company's webhook endpoints; secrets encrypted, a removed one kept for its deliveries (migration 0015). */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    id: text().notNull(),
    url: text().notNull(),
    description: text(),
    events: text().array().notNull(),
    secret_enc: text().notNull(),
    previous_secret_enc: text(),
    previous_secret_expires_at: timestamptz(),
    status: text({ enum: ['active', 'disabled', 'removed'] })
      .notNull()
      .default('active'),
    failing_since: timestamptz(),
    disabled_reason: text(),
    created_at: timestamptz().notNull().defaultNow(),
    updated_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.company_id, t.id] })],
);

/** The event outbox: written in the transaction of the change (migration 0015). */
export const events = pgTable(
  'events',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    id: text().notNull(),
    // bigserial in the migration: a bigint column whose default is its own sequence
    seq: bigintText()
      .notNull()
      .default(sql`nextval('events_seq_seq'::regclass)`),
    type: text().notNull(),
    subject_id: text().notNull(),
    data: json().notNull(),
    created_at: timestamptz().notNull(),
    // an order event's WhatsApp messages, sent beside `data` (migration 0031); null for other events
    whatsapp: json(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    // what erasure and retention find events by (migration 0032)
    index('events_subject').on(t.company_id, t.subject_id),
    index('events_created').on(t.company_id, t.created_at),
  ],
);

/** One delivery of one event to one endpoint (migration 0015). */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    endpoint_id: text().notNull(),
    event_id: text().notNull(),
    subject_id: text().notNull(),
    seq: bigintText().notNull(),
    status: text({ enum: ['pending', 'delivered', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer().notNull().default(0),
    next_attempt_at: timestamptz().notNull().defaultNow(),
    last_status_code: integer(),
    last_error: text(),
    delivered_at: timestamptz(),
    created_at: timestamptz().notNull().defaultNow(),
    updated_at: timestamptz().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.endpoint_id, t.event_id] }),
    foreignKey({ columns: [t.company_id, t.endpoint_id], foreignColumns: [webhookEndpoints.company_id, webhookEndpoints.id] }),
    foreignKey({ columns: [t.company_id, t.event_id], foreignColumns: [events.company_id, events.id] }),
    index('webhook_deliveries_due')
      .on(t.company_id, t.next_attempt_at)
      .where(sql`status = 'pending'`),
    index('webhook_deliveries_subject')
      .on(t.company_id, t.endpoint_id, t.subject_id, t.seq)
      .where(sql`status = 'pending'`),
    // an event's deliveries, for retention and the foreign key's check when an event is deleted (migration 0035)
    index('webhook_deliveries_event').on(t.company_id, t.event_id),
  ],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
