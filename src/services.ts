import type { Config } from './config.js';
import type { Db } from './db/index.js';
import { createCompanyService } from './companies/companies.service.js';
import { createTaxProfileService } from './companies/tax-profile.service.js';
import { createKeyService } from './keys/keys.service.js';
import { createOrderService } from './orders/orders.service.js';
import { createWhatsappService } from './orders/whatsapp.service.js';
import { createCustomerService } from './customers/customers.service.js';
import { createCatalogueServices } from './catalogue/index.js';
import { createItemService } from './catalogue/items.service.js';
import { createFulfilmentService } from './fulfilment/fulfilment.service.js';
import { createWebhookService } from './events/webhooks.service.js';
import { createShippingRateService } from './checkout/shipping-rates.service.js';
import { createDiscountCodeService } from './checkout/discount-codes.service.js';
import { createUcpSettingsService } from './checkout/ucp-settings.service.js';
import { createUcpDiscovery } from './checkout/ucp-discovery.service.js';
import { createCheckoutService } from './checkout/checkout.service.js';
import { createAgentProfiles } from './checkout/agent-profile.js';
import { orderNumbersFor } from './orders/order-numbers.js';
import { createOrderWriter } from './orders/order-writer.js';
import { createPaymentService } from './payments/payments.service.js';
import { createCodConfirmationService } from './cod/cod-confirmation.service.js';
import { createPaymentLinkService } from './cod/payment-links.service.js';
import { createCodSettingsService } from './cod/cod-settings.service.js';
import { createCodRulesService } from './cod/cod-rules.service.js';
import { createCustomerDataService } from './privacy/customer-data.service.js';
import { createAuditService } from './privacy/audit.service.js';
import { createPrivacySettingsService } from './privacy/privacy-settings.service.js';

/**
 * Every service, built once per process from its narrow dependencies; REST and MCP call the same ones. Catalogue reads
 * (browse, detail, categories, model builds) go to `db.replica` when there is one (docs/scaling.md); all else, orders
 * and their stock checks included, to `db`.
 */
export function createServices({ db, config }: { db: Db & { replica?: Db }; config: Config }) {
  const catalogue = createCatalogueServices({ db, reads: db.replica ?? db, config });
  const shippingRates = createShippingRateService({ db });
  const discountCodes = createDiscountCodeService({ db });
  // one allocator of order numbers per process, for POST /orders and completed checkouts alike
  const orderNumbers = orderNumbersFor(db);
  const payments = createPaymentService({ db, config });
  const ucpDiscovery = createUcpDiscovery({ db, config, payments });
  const codRules = createCodRulesService({ db });
  const checkout = createCheckoutService({
    db,
    shippingRates,
    discountCodes,
    agentProfiles: createAgentProfiles({ policy: { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES } }),
    orderWriter: createOrderWriter({ db, orderNumbers }),
    paymentHandlers: ucpDiscovery.handlers,
    payments,
    codRules,
  });
  // a payment captured on Razorpay's hosted checkout completes its checkout (in the webhook event's transaction)
  payments.onEvent('checkout', (companyId, event, binding, tx) => checkout.paymentEvent(companyId, event, binding, tx));
  // COD confirmation before booking: the buyer's, staff's, the time limit's and a payment's answer
  const codConfirmations = createCodConfirmationService({ db, config, media: catalogue.media });
  // a payment link paid turns its COD order prepaid (in the webhook event's transaction), its pending confirmation confirmed
  const paymentLinks = createPaymentLinkService({ db, payments, codConfirmations });
  payments.onEvent('payment_link', (companyId, event, binding, tx) => paymentLinks.paymentEvent(companyId, event, binding, tx));
  return {
    companies: createCompanyService({ db }),
    taxProfiles: createTaxProfileService({ db }),
    keys: createKeyService({ db }),
    orders: createOrderService({ db, media: catalogue.media, orderNumbers, codRules }),
    customers: createCustomerService({ db }),
    ...catalogue,
    items: createItemService({ db }),
    fulfilment: createFulfilmentService({ db, config }),
    webhooks: createWebhookService({ db, config }),
    shippingRates,
    discountCodes,
    checkout,
    ucpSettings: createUcpSettingsService({ db }),
    ucpDiscovery,
    payments,
    codConfirmations,
    paymentLinks,
    // an order's WhatsApp messages, ready to send (issue 33)
    whatsapp: createWhatsappService({ db }),
    codSettings: createCodSettingsService({ db }),
    codRules,
    // a customer's data rights: access, correction, erasure (issue 34)
    customerData: createCustomerDataService({ db, config }),
    // the audit trail's readers (its writers are the actions themselves)
    audit: createAuditService({ db }),
    // the privacy notice link and retention (issue 34)
    privacySettings: createPrivacySettingsService({ db }),
  };
}

export type Services = ReturnType<typeof createServices>;
