import { pgTable, text } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.js';

/** Service-wide secrets shared by every instance, e.g. the photo-link signing secret (migration 0001). */
export const serviceSecrets = pgTable('service_secrets', {
  name: text().primaryKey(),
  value: text().notNull(),
  created_at: timestamptz().notNull().defaultNow(),
});

/** Applied migration files; created by src/db/migrate.ts itself, not by a migration. */
export const schemaMigrations = pgTable('schema_migrations', {
  version: text().primaryKey(),
  applied_at: timestamptz().notNull().defaultNow(),
});

export type ServiceSecretRow = typeof serviceSecrets.$inferSelect;
