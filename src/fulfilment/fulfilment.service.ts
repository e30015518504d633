import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { orderNumbersFor, type OrderNumbers } from '../orders/order-numbers.js';
import type { DraftOrderBody } from '../contract/orders.js';
import { createOrderWriter } from '../orders/order-writer.js';
import { createBillingService } from './billing.service.js';
import { createInvoiceFilesService } from './invoice-files.service.js';
import { createCouriersAdminService } from './couriers-admin.service.js';
import { createLifecycleService } from './lifecycle.service.js';
import { createOrderViews } from './order-view.js';
import { createShippingService } from './shipping.service.js';

export type FulfilmentDeps = { db: Db; config: Pick<Config, 'INVOICE_DUE_DAYS'>; clock?: () => Date; orderNumbers?: OrderNumbers };

/**
 * The fulfilment flow staff, couriers and the worker call: the order lifecycle (state machine), shipping,
 * billing and courier administration composed into one service. Drafts are written by the orders module.
 */
export function createFulfilmentService({ db, config, clock = () => new Date(), orderNumbers = orderNumbersFor(db) }: FulfilmentDeps) {
  const views = createOrderViews({ db, clock });
  const writer = createOrderWriter({ db, orderNumbers });
  const lifecycle = createLifecycleService({ db, config, clock, views });
  const shipping = createShippingService({ db, config, clock, views, lifecycle });
  const billing = createBillingService({ db, config, clock, views });
  const admin = createCouriersAdminService({ db });
  const files = createInvoiceFilesService({ db, views });
  return {
    view: lifecycle.view,
    /** `order show`: the view with the customer, the lines and the order's history. */
    detail: views.detail,
    move: lifecycle.move,
    confirm: lifecycle.confirm,
    /** A staff draft: no reservation, invisible to the API until confirmed. */
    async createDraft(companyId: string, body: DraftOrderBody) {
      return views.view(companyId, await writer.draft(companyId, body));
    },
    setAddress: shipping.setAddress.bind(shipping),
    requestBooking: shipping.requestBooking.bind(shipping),
    ship: shipping.ship.bind(shipping),
    track: shipping.track.bind(shipping),
    listAttention: shipping.listAttention.bind(shipping),
    resolveHold: shipping.resolveHold.bind(shipping),
    issueInvoice: billing.issueInvoice.bind(billing),
    recordPayment: billing.recordPayment.bind(billing),
    /** Invoice and credit-note PDFs: by document id (signed links) or by order (staff). */
    documentPdf: files.byId.bind(files),
    invoicePdf: files.forOrder.bind(files),
    /** PDFs drawn, and served from their stored bytes, by this process. */
    documentStats: files.stats,
    configureCourier: admin.configureCourier.bind(admin),
    callbackSecret: admin.callbackSecret.bind(admin),
    listJobs: admin.listJobs,
    retryJob: admin.retryJob.bind(admin),
  };
}

export type FulfilmentService = ReturnType<typeof createFulfilmentService>;
