import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { CodSettledBy } from '../db/schema/index.js';
import type { Tenant } from '../keys/keys.service.js';
import { AppError } from '../contract/errors.js';
import type { CodAnswer } from '../contract/cod-answer.js';
import type { OrderLookup } from '../contract/orders.js';
import { tenantReader } from '../keys/key-check.js';
import type { MediaService } from '../media/media.service.js';
import { lookupPhone, orderLookupByReference, recordOrderEvent, unknownOrder } from '../orders/order-events.js';
import { findOrderByReference } from '../orders/orders.queries.js';
import { lockOrder, type LockedOrder } from '../fulfilment/fulfilment.queries.js';
import { createLifecycleService } from '../fulfilment/lifecycle.service.js';
import { createOrderViews } from '../fulfilment/order-view.js';
import { settleCodConfirmation } from '../orders/cod-confirmation.queries.js';

const OUTCOME = { confirm: 'confirmed', decline: 'declined' } as const satisfies Record<CodAnswer, 'confirmed' | 'declined'>;
export type CodOutcome = (typeof OUTCOME)[CodAnswer];

/** What settling did: `settled` now, or `unchanged` (already so, settled the other way, or never asked: see `state`). */
export interface CodSettlement {
  result: 'settled' | 'unchanged';
  /** the order's confirmation after the call: null when none was ever asked */
  state: LockedOrder['cod_confirmation'];
}

/**
 * "Confirm COD before booking" (issue 33): the buyer's answer (REST, MCP), staff's (CLI), the time limit's (the COD
 * confirmation worker) and a payment's (payment links) settle an order's pending confirmation, once. Confirmed: the
 * courier booking that waited is queued (when the company books automatically and the order has an address).
 * Declined: the order is cancelled through the order lifecycle (stock released, shipment and invoice as any
 * cancellation). Each settlement runs under the order's row lock and records order.cod_confirmation_settled.
 */
export function createCodConfirmationService({
  db,
  config,
  clock = () => new Date(),
  media,
}: {
  db: Db;
  config: Pick<Config, 'INVOICE_DUE_DAYS'>;
  clock?: () => Date;
  media: Pick<MediaService, 'documentLinker'>;
}) {
  const views = createOrderViews({ db, clock });
  const lifecycle = createLifecycleService({ db, config, clock, views });

  /**
   * Settles the order's pending confirmation inside the caller's transaction, the order row locked here (a payment's
   * webhook calls it with `confirmed`, `payment`: paid counts as confirmed). Anything but a pending confirmation is
   * left as it is and said so (`unchanged`, with its state).
   */
  async function settleIn(tx: Db, companyId: string, orderId: string, outcome: CodOutcome, by: CodSettledBy): Promise<CodSettlement> {
    const order = await lockOrder(tx, companyId, orderId);
    if (!order) throw new Error(`order ${orderId} cannot be locked to settle its COD confirmation`);
    return settleLocked(tx, companyId, order, outcome, by);
  }

  async function settleLocked(tx: Db, companyId: string, order: LockedOrder, outcome: CodOutcome, by: CodSettledBy): Promise<CodSettlement> {
    if (order.cod_confirmation !== 'pending') return { result: 'unchanged', state: order.cod_confirmation };
    const now = clock();
    await settleCodConfirmation(tx, companyId, order.id, outcome, by);
    order.cod_confirmation = outcome; // the lifecycle's cancel then sees it settled
    if (outcome === 'declined') await lifecycle.applyMove(tx, companyId, order, 'cancelled', now);
    else await lifecycle.enqueueIfEligible(tx, companyId, order);
    await recordOrderEvent(tx, companyId, 'order.cod_confirmation_settled', order.id, now);
    return { result: 'settled', state: outcome };
  }

  /** An answer that cannot apply: none was asked (422), or it was settled the other way (409). */
  function refused(order: { order_number: string }, s: CodSettlement, answer: CodAnswer): AppError {
    if (s.state === null) {
      return new AppError('unprocessable', `order ${order.order_number} has no COD confirmation to answer (prepaid, or placed without one)`, [
        { path: 'answer', message: 'this order was not asked for a COD confirmation' },
      ]);
    }
    return new AppError('conflict', `order ${order.order_number}'s COD confirmation is already ${s.state}; "${answer}" cannot change it`, [
      { path: 'answer', message: `already ${s.state}` },
    ]);
  }

  return {
    settleIn,

    /**
     * POST /orders/{reference}/cod-confirmation and `confirm_cod_order`: the buyer's answer. The order is named as
     * GET /orders/{reference} names it, with the same phone gate (an unusable or another customer's phone: the same
     * 404). The same answer again changes nothing and answers the order as it is.
     */
    async answer(tenant: Tenant, reference: string, phone: string | undefined, answer: CodAnswer, origin: string): Promise<OrderLookup> {
      const reader = tenantReader(db, tenant);
      const found = await findOrderByReference(reader, reference, lookupPhone(phone));
      if (!found) throw unknownOrder();
      const companyId = tenant.companyId;
      await db.tx(async (tx) => {
        const order = (await lockOrder(tx, companyId, found.id))!;
        const s = await settleLocked(tx, companyId, order, OUTCOME[answer], 'buyer');
        if (s.state !== OUTCOME[answer]) throw refused(order, s, answer);
      });
      return (await orderLookupByReference(reader, found.id, null, clock(), await media.documentLinker(origin)))!;
    },

    /** `order cod-confirm <ref> confirm|decline`: staff settle a pending confirmation (one left to them at its time limit). */
    async staffAnswer(companyId: string, reference: string, answer: CodAnswer) {
      const orderId = await views.orderIdOf(companyId, reference);
      await db.tx(async (tx) => {
        const order = (await lockOrder(tx, companyId, orderId))!;
        const s = await settleLocked(tx, companyId, order, OUTCOME[answer], 'staff');
        if (s.state !== OUTCOME[answer]) throw refused(order, s, answer);
      });
      return views.view(companyId, orderId);
    },
  };
}

export type CodConfirmationService = ReturnType<typeof createCodConfirmationService>;
