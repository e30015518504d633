import { AppError } from '../contract/errors.js';
import { PAYMENT_LINK_DEFAULT_MINUTES, type PaymentLinkBody, type PaymentLinkOut } from '../contract/payment-links.js';
import type { Db } from '../db/index.js';
import { findInvoice } from '../fulfilment/billing.queries.js';
import { recordPaymentTx } from '../fulfilment/billing.service.js';
import { lockOrder, type LockedOrder } from '../fulfilment/fulfilment.queries.js';
import { tenantReader } from '../keys/key-check.js';
import { randomAlnum } from '../lib/ids.js';
import { Decimal, money, paise } from '../lib/money.js';
import { lookupPhone, recordOrderEvent, unknownOrder } from '../orders/order-events.js';
import { findOrderByReference } from '../orders/orders.queries.js';
import type { PaymentBinding, PaymentEventOutcome, PaymentService } from '../payments/payments.service.js';
import { PaymentProviderError } from '../payments/types.js';
import { MONEY_EVENTS, PAYMENT_LINK_ORDER_NOTE, type RazorpayEvent } from '../payments/webhook.js';
import {
  closePaymentLink,
  findLivePaymentLink,
  insertPaymentLink,
  lockPaymentLink,
  markPaymentLinkPaid,
  setOrderPrepaid,
  type PaymentLinkRow,
} from './payment-links.queries.js';
import type { CodConfirmationService } from './cod-confirmation.service.js';

/**
 * COD to prepaid on the same order: a payment link for the amount due on a COD order not yet shipped (Razorpay Payment
 * Links, through the company's payment provider), and the webhook of its payment turning that order prepaid.
 */

/** Statuses in which a COD order can still be paid ahead: placed or packed, not yet with a courier. */
const PAYABLE_STATUSES: readonly string[] = ['confirmed', 'packed'];

const linkOut = (row: PaymentLinkRow, orderNumber: string): PaymentLinkOut => ({
  link_id: row.id,
  order_id: row.order_id,
  order_number: orderNumber,
  short_url: row.short_url,
  amount: money(row.amount),
  currency: 'INR',
  status: row.status,
  expires_at: row.expires_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
});

/** Why a link cannot be made for this order, as the 422's details; undefined when it can. */
function refusal(order: Pick<LockedOrder, 'status' | 'payment' | 'order_number'>): AppError | undefined {
  const refuse = (why: string) =>
    new AppError('unprocessable', `order ${order.order_number} ${why}; no payment link was made`, [{ path: 'reference', message: why }]);
  if (order.payment !== 'cod') return refuse('is prepaid already');
  if (!PAYABLE_STATUSES.includes(order.status)) return refuse(`is ${order.status}`);
  return undefined;
}

export function createPaymentLinkService({
  db,
  payments,
  codConfirmations,
  clock = () => new Date(),
}: {
  db: Db;
  payments: Pick<PaymentService, 'provider' | 'bindOrder'>;
  /** a payment is the buyer's yes: it settles a pending COD confirmation (queueing the courier booking it held back) */
  codConfirmations: Pick<CodConfirmationService, 'settleIn'>;
  clock?: () => Date;
}) {
  return {
    /**
     * POST /orders/{reference}/payment-link and `create_payment_link`: a link for what the COD order still owes (its
     * invoice's amount due once issued, else its amount). While the order has a live link (created, not expired) for
     * that amount, it is answered again (`existing`), so a retry or a second request never makes a second payable
     * link. The provider is called under the order's row lock, so racing requests make one link; a provider failure
     * writes nothing (503 when it may work later, 422 when the company's account refused). With `phone`, only that
     * customer's order is found (the same 404 as GET /orders/{reference} otherwise). Staff (the CLI) pass the company alone.
     */
    async create(
      tenant: { companyId: string; keyId?: string },
      reference: string,
      body: PaymentLinkBody,
    ): Promise<{ link: PaymentLinkOut; existing: boolean }> {
      const companyId = tenant.companyId;
      const found = await findOrderByReference(tenantReader(db, tenant), reference, lookupPhone(body.phone));
      if (!found) throw unknownOrder();
      const early = refusal({ status: found.status, payment: found.payment, order_number: found.order_number });
      if (early) throw early;
      // before the transaction: the account's secret is read on another connection
      const provider = await payments.provider(companyId);
      return db.tx(async (tx) => {
        const order = (await lockOrder(tx, companyId, found.id))!;
        const refused = refusal(order);
        if (refused) throw refused;
        const invoice = await findInvoice(tx, companyId, order.id);
        const due = invoice ? new Decimal(invoice.total).minus(invoice.amount_paid) : new Decimal(order.amount);
        if (due.lt(1))
          throw new AppError('unprocessable', `order ${order.order_number} owes ${money(due)}; a payment link asks at least 1.00`, [
            { path: 'reference', message: 'nothing (or under 1.00) is due' },
          ]);
        const now = clock();
        const live = await findLivePaymentLink(tx, companyId, order.id, now);
        if (live && new Decimal(live.amount).eq(due)) return { link: linkOut(live, order.order_number), existing: true };
        if (live) {
          // what is due changed since (staff recorded a payment): the old link must not take the old amount
          await provider.cancelPaymentLink(live.id).catch(providerFailure);
          await closePaymentLink(tx, companyId, live.id, 'cancelled');
        }
        const expiresAt = new Date(now.getTime() + (body.expire_in_minutes ?? PAYMENT_LINK_DEFAULT_MINUTES) * 60_000);
        const amountPaise = paise(money(due));
        const made = await provider
          .createPaymentLink({
            amountPaise,
            // unique per attempt: an attempt that timed out after Razorpay made its link must not block the retry
            referenceId: `${order.order_number}-${randomAlnum(8)}`.slice(-40),
            description: `Order ${order.order_number}`,
            customer: { name: found.customer_name, ...(found.customer_phone ? { contact: found.customer_phone } : {}) },
            expireBy: expiresAt,
            notify: { sms: false, email: false },
            notes: { order_number: order.order_number, [PAYMENT_LINK_ORDER_NOTE]: order.id },
          })
          .catch(providerFailure);
        const row = await insertPaymentLink(tx, companyId, {
          id: made.id,
          order_id: order.id,
          provider: provider.name,
          short_url: made.shortUrl,
          amount: money(due),
          expires_at: expiresAt,
        });
        await payments.bindOrder(companyId, { providerOrderId: made.id, purpose: 'payment_link', subjectId: order.id, amountPaise }, tx);
        return { link: linkOut(row, order.order_number), existing: false };
      });
    },

    /**
     * Razorpay's events for a payment link (registered for purpose payment_link; in the event's transaction, under its
     * lock). payment_link.paid: under the order's row lock, then the link's, the same order becomes prepaid (its
     * number, lines and reservations untouched; payment_reference the payment id), the invoice if issued is paid, a
     * pending COD confirmation is confirmed, and `order.payment_link_paid` is recorded. Money for an order that can no
     * longer take it (cancelled, shipped or delivered as COD, already paid by another payment) or of another amount
     * needs attention: a refund. payment_link.expired / cancelled only close the link row. A binding with no link row
     * is not one of ours (another handler's, or a test's): nothing to do.
     */
    async paymentEvent(companyId: string, event: RazorpayEvent, binding: PaymentBinding, tx: Db): Promise<PaymentEventOutcome> {
      const order = await lockOrder(tx, companyId, binding.subjectId);
      const link = await lockPaymentLink(tx, companyId, binding.providerOrderId);
      if (!link || !order || link.order_id !== order.id) return 'acted';
      if (event.type === 'payment_link.expired' || event.type === 'payment_link.cancelled') {
        await closePaymentLink(tx, companyId, link.id, event.type === 'payment_link.expired' ? 'expired' : 'cancelled');
        return 'acted';
      }
      if (!MONEY_EVENTS.includes(event.type)) return 'acted';
      const paymentId = event.paymentId;
      const refund = (why: string) => ({
        needsAttention: `Razorpay payment ${paymentId ?? '(no id)'} of payment link ${link.id} for order ${order.order_number}: ${why}; refund it`,
      });
      if (!paymentId) return refund('the event names no payment');
      if (link.status === 'paid') return link.payment_id === paymentId ? 'acted' : refund(`the link was paid already by ${link.payment_id}`);
      const asked = paise(link.amount);
      if (event.amountPaise !== asked || (event.currency ?? 'INR') !== 'INR') return refund(`${event.amountPaise ?? '?'} paise captured for ${asked} asked`);
      const now = clock();
      await markPaymentLinkPaid(tx, companyId, link.id, paymentId, now);
      if (order.payment === 'prepaid') return refund(`the order was paid already (${order.payment_reference ?? 'prepaid'})`);
      if (!PAYABLE_STATUSES.includes(order.status)) return refund(`the order is ${order.status}`);
      const invoice = await findInvoice(tx, companyId, order.id, true);
      const due = invoice ? new Decimal(invoice.total).minus(invoice.amount_paid) : new Decimal(order.amount);
      if (!due.eq(link.amount)) return refund(`the order owes ${money(due)}, not the ${money(link.amount)} paid`);
      await setOrderPrepaid(tx, companyId, order.id, paymentId);
      if (invoice) await recordPaymentTx(tx, companyId, invoice.id, due, 'prepaid', paymentId, now);
      await codConfirmations.settleIn(tx, companyId, order.id, 'confirmed', 'payment');
      await recordOrderEvent(tx, companyId, 'order.payment_link_paid', order.id, now);
      return 'acted';
    },
  };
}

/** A provider failure as the caller's error: 503 when the same call may work later, 422 when the account refused. */
function providerFailure(err: unknown): never {
  if (!(err instanceof PaymentProviderError)) throw err;
  if (err.retryable)
    throw new AppError('unavailable', 'the payment provider did not answer; nothing was made; try again shortly', undefined, { 'retry-after': '5' });
  throw new AppError('unprocessable', `the payment provider refused the link: ${err.message}`, [{ path: 'payment_provider', message: 'refused the request' }]);
}

export type PaymentLinkService = ReturnType<typeof createPaymentLinkService>;
