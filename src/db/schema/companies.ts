import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { bytea, timestamptz } from './columns.js';

/** Tenants (migration 0001). */
export const companies = pgTable('companies', {
  id: text().primaryKey(),
  name: text().notNull(),
  slug: text().notNull().unique(),
  status: text({ enum: ['active', 'inactive'] })
    .notNull()
    .default('active'),
  // 'commerce' includes orders and inventory; 'messaging' does not (the API answers 403).
  plan: text({ enum: ['commerce', 'messaging'] })
    .notNull()
    .default('commerce'),
  auto_courier_booking: boolean().notNull().default(false),
  created_at: timestamptz().notNull().defaultNow(),
  updated_at: timestamptz().notNull().defaultNow(),
});

/** API keys: a SHA-256 of the key and its visible prefix, never the key (migration 0001). */
export const apiKeys = pgTable(
  'api_keys',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    id: text().notNull(),
    prefix: text().notNull(),
    key_hash: bytea().notNull(),
    name: text(),
    created_at: timestamptz().notNull().defaultNow(),
    last_used_at: timestamptz(),
    revoked_at: timestamptz(),
    // what the key may reach beyond authenticating: 'commerce' (the default, today's access), 'webhooks' (migration 0015)
    permissions: text()
      .array()
      .notNull()
      .default(sql`'{commerce}'::text[]`),
  },
  (t) => [
    primaryKey({ columns: [t.company_id, t.id] }),
    uniqueIndex('api_keys_key_hash').on(t.key_hash),
    index('api_keys_active')
      .on(t.company_id)
      .where(sql`revoked_at IS NULL`),
  ],
);

export type CompanyRow = typeof companies.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
