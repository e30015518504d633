import { pgTable, text } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.js';
import { companies } from './companies.js';

/** What a company's WhatsApp order messages need beyond the order (migration 0031); no row: nothing set. */
export const whatsappSettings = pgTable('whatsapp_settings', {
  company_id: text()
    .primaryKey()
    .references(() => companies.id),
  catalog_id: text(),
  payment_configuration: text(),
  upi_vpa: text(),
  upi_payee_name: text(),
  template_name: text(),
  template_language: text(),
  status_template_name: text(),
  updated_at: timestamptz().notNull().defaultNow(),
});

export type WhatsappSettingsRow = typeof whatsappSettings.$inferSelect;
