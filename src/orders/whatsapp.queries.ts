import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { columnList, whatsappSettings, type WhatsappSettingsRow } from '../db/schema/index.js';

/** A company's WhatsApp message settings (migration 0031) and what an order's messages read beyond its lookup. */

const FIELDS = [
  'catalog_id',
  'payment_configuration',
  'upi_vpa',
  'upi_payee_name',
  'template_name',
  'template_language',
  'status_template_name',
  'updated_at',
] as const;
const COLUMNS = columnList(whatsappSettings, FIELDS);
export type WhatsappSettings = Omit<Pick<WhatsappSettingsRow, (typeof FIELDS)[number]>, 'updated_at'> & { updated_at: Date | null };
export type WhatsappSettingsChange = Partial<Omit<WhatsappSettings, 'updated_at'>>;

export const NO_WHATSAPP_SETTINGS: WhatsappSettings = {
  catalog_id: null,
  payment_configuration: null,
  upi_vpa: null,
  upi_payee_name: null,
  template_name: null,
  template_language: null,
  status_template_name: null,
  updated_at: null,
};

export async function findWhatsappSettings(db: Db, companyId: string): Promise<WhatsappSettings> {
  const rows = await db.query<WhatsappSettings>(sql`SELECT ${COLUMNS} FROM whatsapp_settings WHERE company_id = ${companyId}`, 'whatsapp_settings');
  return rows[0] ?? NO_WHATSAPP_SETTINGS;
}

/** One statement: absent keeps the stored value, null clears it; two admins changing different fields both keep theirs. */
export async function writeWhatsappSettings(db: Db, companyId: string, change: WhatsappSettingsChange): Promise<WhatsappSettings> {
  const v = { ...NO_WHATSAPP_SETTINGS, ...change };
  const keep = (field: keyof WhatsappSettingsChange) => (change[field] === undefined ? sql.raw(`s.${field}`) : sql.raw(`EXCLUDED.${field}`));
  const rows = await db.query<WhatsappSettings>(sql`
    INSERT INTO whatsapp_settings AS s (company_id, catalog_id, payment_configuration, upi_vpa, upi_payee_name, template_name,
                                        template_language, status_template_name, updated_at)
    VALUES (${companyId}, ${v.catalog_id}, ${v.payment_configuration}, ${v.upi_vpa}, ${v.upi_payee_name}, ${v.template_name},
            ${v.template_language}, ${v.status_template_name}, now())
    ON CONFLICT (company_id) DO UPDATE SET
      catalog_id = ${keep('catalog_id')},
      payment_configuration = ${keep('payment_configuration')},
      upi_vpa = ${keep('upi_vpa')},
      upi_payee_name = ${keep('upi_payee_name')},
      template_name = ${keep('template_name')},
      template_language = ${keep('template_language')},
      status_template_name = ${keep('status_template_name')},
      updated_at = EXCLUDED.updated_at
    RETURNING ${COLUMNS}`);
  return rows[0];
}

/** An order's facts its messages need that its lookup does not show. */
export interface MessageFacts {
  payment: 'cod' | 'prepaid';
  discount_amount: string;
  shipping_amount: string;
  /** the seller has a GSTIN: its prices include GST (an unregistered seller charges none) */
  gst_registered: boolean;
  /** per line, in the lookup's order (line_no) */
  lines: { tax_rate: string; discount: string; shipping: string }[];
  /** the newest payment link still payable (status created, not expired at `now`) */
  payment_link: { short_url: string } | null;
  settings: WhatsappSettings;
}

/** One round trip: the order's payment and charges, its lines' rates and shares, the live link and the settings. */
export async function findMessageFacts(db: Db, companyId: string, orderId: string, now: Date): Promise<MessageFacts | undefined> {
  const rows = await db.query<Omit<MessageFacts, 'settings'> & { settings: WhatsappSettings | null }>(
    sql`
    SELECT o.payment, o.discount_amount::text AS discount_amount, o.shipping_amount::text AS shipping_amount,
      EXISTS (SELECT 1 FROM tax_profiles t WHERE t.company_id = ${companyId} AND t.gstin IS NOT NULL) AS gst_registered,
      (SELECT coalesce(json_agg(json_build_object('tax_rate', l.tax_rate::text, 'discount', l.discount::text, 'shipping', l.shipping::text)
                                ORDER BY l.line_no), '[]'::json)
         FROM order_lines l WHERE l.company_id = ${companyId} AND l.order_id = o.id) AS lines,
      (SELECT json_build_object('short_url', k.short_url) FROM order_payment_links k
        WHERE k.company_id = ${companyId} AND k.order_id = o.id AND k.status = 'created'
          AND (k.expires_at IS NULL OR k.expires_at > ${now.toISOString()}::timestamptz)
        ORDER BY k.created_at DESC, k.id DESC LIMIT 1) AS payment_link,
      (SELECT row_to_json(w) FROM (SELECT ${COLUMNS} FROM whatsapp_settings WHERE company_id = ${companyId}) w) AS settings
    FROM orders o WHERE o.company_id = ${companyId} AND o.id = ${orderId}`,
    'whatsapp_message_facts',
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    ...row,
    settings: row.settings ? { ...row.settings, updated_at: row.settings.updated_at ? new Date(row.settings.updated_at) : null } : NO_WHATSAPP_SETTINGS,
  };
}

/** What every message of the company reads: its settings and whether it charges GST. */
export type MessagingContext = Pick<MessageFacts, 'settings' | 'gst_registered'>;

/** The messaging context as two columns of a caller's statement (POST /orders reads it in its prelude). */
export const messagingContextColumns = (companyId: string) => sql`
  (SELECT row_to_json(w) FROM (SELECT ${COLUMNS} FROM whatsapp_settings WHERE company_id = ${companyId}) w) AS whatsapp_settings,
  EXISTS (SELECT 1 FROM tax_profiles t WHERE t.company_id = ${companyId} AND t.gstin IS NOT NULL) AS gst_registered`;

/** The columns above as the runner returns them, as a context. */
export const messagingContext = (row: { whatsapp_settings: WhatsappSettings | null; gst_registered: boolean }): MessagingContext => ({
  settings: row.whatsapp_settings ?? NO_WHATSAPP_SETTINGS,
  gst_registered: row.gst_registered,
});

export async function findMessagingContext(db: Db, companyId: string): Promise<MessagingContext> {
  const rows = await db.query<{ whatsapp_settings: WhatsappSettings | null; gst_registered: boolean }>(
    sql`SELECT ${messagingContextColumns(companyId)}`,
    'whatsapp_messaging_context',
  );
  return messagingContext(rows[0]);
}
