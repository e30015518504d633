import type { Db } from '../db/index.js';
import { recordAudit, type Actor } from '../db/audit-log.js';
import { toValidationError } from '../contract/validation.js';
import { whatsappSettingsInput, type WhatsappMessage, type WhatsappMessagesQuery } from '../contract/whatsapp.js';
import { tenantReader } from '../keys/key-check.js';
import type { Tenant } from '../keys/keys.service.js';
import { lookupPhone, orderLookupByReference, unknownOrder } from './order-events.js';
import { buildOrderDetails, buildOrderDetailsTemplate, buildOrderStatus, buildOrderStatusTemplate } from './whatsapp-messages.js';
import { findMessageFacts, findWhatsappSettings, writeWhatsappSettings, type WhatsappSettings } from './whatsapp.queries.js';

export type WhatsappSettingsView = Omit<WhatsappSettings, 'updated_at'> & { updated_at: string | null };
const view = (s: WhatsappSettings): WhatsappSettingsView => ({ ...s, updated_at: s.updated_at ? s.updated_at.toISOString() : null });

/** An order's WhatsApp messages, ready to send, and the company's settings they read (README "COD that converts"). */
export function createWhatsappService({ db, clock = () => new Date() }: { db: Db; clock?: () => Date }) {
  return {
    /**
     * GET /orders/{reference}/whatsapp-messages: found as GET /orders/{reference} finds it (with a phone, only that
     * customer's order; any mismatch is the same 404), then built from its lookup, its facts and the settings.
     */
    async messages(tenant: Tenant, reference: string, query: WhatsappMessagesQuery): Promise<WhatsappMessage> {
      const now = clock();
      const order = await orderLookupByReference(tenantReader(db, tenant), reference, lookupPhone(query.phone), now);
      if (!order) throw unknownOrder();
      const facts = await findMessageFacts(db, tenant.companyId, order.order_id, now);
      if (!facts) throw unknownOrder();
      if (query.type === 'order_status') return query.template ? buildOrderStatusTemplate(order, facts) : buildOrderStatus(order);
      return query.template ? buildOrderDetailsTemplate(order, facts) : buildOrderDetails(order, facts);
    },

    async settings(companyId: string): Promise<WhatsappSettingsView> {
      return view(await findWhatsappSettings(db, companyId));
    },

    /** Changes the fields given (absent keeps, null clears); answers the settings as they are now. */
    async set(companyId: string, actor: Actor, input: unknown): Promise<WhatsappSettingsView> {
      const parsed = whatsappSettingsInput.safeParse(input);
      if (!parsed.success) throw toValidationError(parsed.error);
      return db.tx(async (tx) => {
        const written = await writeWhatsappSettings(tx, companyId, parsed.data);
        // field names only: the UPI id and payee name may name a person
        await recordAudit(tx, companyId, actor, { action: 'whatsapp.settings_set', detail: { fields: Object.keys(parsed.data) } });
        return view(written);
      });
    },
  };
}

export type WhatsappService = ReturnType<typeof createWhatsappService>;
