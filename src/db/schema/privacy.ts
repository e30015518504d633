import { sql } from 'drizzle-orm';
import { foreignKey, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { bigintText, timestamptz } from './columns.js';
import { companies } from './companies.js';
import { customers } from './customers.js';

/** A company's privacy settings: notice link and retention (migration 0032); no row: the defaults. */
export const privacySettings = pgTable('privacy_settings', {
  company_id: text()
    .primaryKey()
    .references(() => companies.id),
  notice_url: text(),
  events_retention_days: integer().notNull().default(30),
  jobs_retention_days: integer().notNull().default(30),
  checkout_sessions_retention_days: integer().notNull().default(30),
  inactive_customer_years: integer(),
  audit_retention_days: integer().notNull().default(1095),
  updated_at: timestamptz().notNull().defaultNow(),
});

export type PrivacySettingsRow = typeof privacySettings.$inferSelect;

/** A customer's consent history, one row per given or withdrawn (migration 0032); the newest row is the state. */
export const customerConsents = pgTable(
  'customer_consents',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    id: text().notNull(),
    customer_id: text().notNull(),
    purpose: text({ enum: ['order_updates', 'marketing'] }).notNull(),
    channel: text({ enum: ['messaging', 'email'] }).notNull(),
    state: text({ enum: ['given', 'withdrawn'] }).notNull(),
    source: text({ enum: ['order', 'place_order', 'ucp_checkout', 'opt_out', 'api', 'mcp', 'cli', 'erasure'] }).notNull(),
    actor: text(),
    recorded_at: timestamptz().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    foreignKey({ columns: [t.company_id, t.customer_id], foreignColumns: [customers.company_id, customers.id] }),
    index('customer_consents_latest').on(t.company_id, t.customer_id, t.purpose, t.channel, t.recorded_at.desc()),
  ],
);

export type CustomerConsentRow = typeof customerConsents.$inferSelect;

/** The append-only audit trail of administrative and data-rights actions (migration 0032); no personal data. */
export const auditLog = pgTable(
  'audit_log',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    id: text().notNull(),
    seq: bigintText()
      .notNull()
      .default(sql`nextval('audit_log_seq_seq'::regclass)`),
    actor_kind: text({ enum: ['cli', 'key', 'service'] }).notNull(),
    actor: text().notNull(),
    action: text().notNull(),
    subject_kind: text(),
    subject_id: text(),
    detail: jsonb().notNull().default({}),
    at: timestamptz().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    index('audit_log_seq').on(t.company_id, t.seq.desc()),
    // by time, for the retention rule past audit_retention_days (migration 0035)
    index('audit_log_at').on(t.company_id, t.at),
  ],
);

export type AuditLogRow = typeof auditLog.$inferSelect;
