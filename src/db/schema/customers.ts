import { boolean, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.js';
import { companies } from './companies.js';

/** Migration 0003; written through the upsert_customer() SQL function (src/db/functions/upsert_customer.sql). */
export const customers = pgTable(
  'customers',
  {
    company_id: text()
      .notNull()
      .references(() => companies.id),
    id: text().notNull(),
    name: text().notNull(),
    /** null only for a UCP buyer abroad who gave no number (migration 0026) */
    phone_e164: text(),
    email: text(),
    address_name: text(),
    address_line1: text(),
    address_line2: text(),
    city: text(),
    state: text(),
    pincode: text(),
    address_phone: text(),
    messaging_opted_out: boolean().notNull().default(false),
    created_at: timestamptz().notNull().defaultNow(),
    updated_at: timestamptz().notNull().defaultNow(),
    /** set when the customer was erased or anonymised (migration 0032): the personal fields are gone */
    erased_at: timestamptz(),
    /** when the inactive-customer rule told the customer they would be erased (migration 0037; DPDP Rules, Rule 8(2)) */
    erasure_notice_at: timestamptz(),
  },
  (t) => [primaryKey({ columns: [t.company_id, t.id] }), unique().on(t.company_id, t.phone_e164)],
);

export type CustomerRow = typeof customers.$inferSelect;
