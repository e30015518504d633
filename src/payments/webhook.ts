import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { ProviderNotes } from './types.js';

/** hex(HMAC-SHA256(webhook secret, raw body)), as Razorpay signs each delivery. */
export const RAZORPAY_SIGNATURE_HEADER = 'x-razorpay-signature';
/** Unique per event, the same on every redelivery of it: the key an event is recorded under. */
export const RAZORPAY_EVENT_ID_HEADER = 'x-razorpay-event-id';

export const signRazorpayBody = (secret: string, rawBody: Buffer | string) => createHmac('sha256', secret).update(rawBody).digest('hex');

/**
 * Whether `signatureHeader` is the HMAC-SHA256 of these exact bytes under one of `secrets` (the current webhook
 * secret, and the previous one while Razorpay may still retry events signed with it). Computed over the raw body
 * before anything parses it, compared in constant time; every secret is tried (no early exit).
 */
export function verifyRazorpaySignature(rawBody: Buffer, signatureHeader: string | undefined, secrets: string | readonly string[]): boolean {
  if (typeof signatureHeader !== 'string' || !/^[0-9a-fA-F]{64}$/.test(signatureHeader.trim())) return false;
  const given = Buffer.from(signatureHeader.trim(), 'hex');
  let ok = false;
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    ok = timingSafeEqual(given, createHmac('sha256', secret).update(rawBody).digest()) || ok;
  }
  return ok;
}

export const RAZORPAY_EVENT_TYPES = [
  'payment.captured',
  'payment.failed',
  'order.paid',
  'payment_link.paid',
  'payment_link.expired',
  'payment_link.cancelled',
] as const;
export type RazorpayEventType = (typeof RAZORPAY_EVENT_TYPES)[number] | 'other';

/**
 * The note every payment link of ours carries (Razorpay copies a link's notes onto the order and payment it makes), its
 * value our order id: a payment.captured or order.paid of a link names only Razorpay's own order, which nothing is bound
 * to; the link's payment_link.paid carries the link and is the one acted on.
 */
export const PAYMENT_LINK_ORDER_NOTE = 'payment_link_order';

/** Events that say money was captured: acted on, or put before staff when nothing here asked for it. */
export const MONEY_EVENTS: readonly RazorpayEventType[] = ['payment.captured', 'order.paid', 'payment_link.paid'];

/** A webhook event as the rest of the service reads it: the members we use and nothing of the buyer. */
export interface RazorpayEvent {
  eventId: string;
  /** the event name when it is one we act on, else 'other' (`name` keeps the name as sent) */
  type: RazorpayEventType;
  name: string;
  paymentId: string | null;
  /** order_… (the payment's order; for a payment link, the order Razorpay made for it) */
  providerOrderId: string | null;
  paymentLinkId: string | null;
  amountPaise: number | null;
  currency: string | null;
  notes: ProviderNotes;
  method: string | null;
}

// Every member optional and each read on its own: an odd value reads as absent instead of refusing the whole event.
const id = z.string().min(1).max(100).nullish().catch(null);
const amount = z.number().int().nonnegative().nullish().catch(null);
const notes = z
  .unknown()
  .optional()
  .transform((v): ProviderNotes => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .slice(0, 15)
        .flatMap(([k, val]) => (typeof val === 'string' || typeof val === 'number' ? [[k, String(val).slice(0, 256)]] : [])),
    );
  });
const entity = <S extends z.ZodRawShape>(shape: S) =>
  z
    .object({ entity: z.object(shape).nullish().catch(null) })
    .nullish()
    .catch(null);
const envelope = z.object({
  event: z.string().min(1).max(100),
  payload: z
    .object({
      payment: entity({ id, order_id: id, amount, currency: id, method: id, notes }),
      order: entity({ id, amount, currency: id, notes }),
      payment_link: entity({ id, order_id: id, amount, currency: id, notes }),
    })
    .catch({ payment: null, order: null, payment_link: null }),
});

/** Razorpay's sample order.paid/payment_link.paid bodies name the order without its `order_` prefix. */
const orderId = (v: string | null | undefined) => (v ? (v.startsWith('order_') ? v : `order_${v}`) : null);

/**
 * The event in a verified body, or a reason it cannot be read (not JSON, no event name). The id is the
 * X-Razorpay-Event-Id header; without one, the payment (or link, or order) id and the event name, which redeliveries
 * of one event share.
 */
export function parseRazorpayEvent(rawBody: Buffer | string, eventIdHeader?: string): RazorpayEvent | string {
  let json: unknown;
  try {
    json = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'));
  } catch {
    return 'the body is not JSON';
  }
  const parsed = envelope.safeParse(json);
  if (!parsed.success) return 'the body names no event';
  const { event, payload } = parsed.data;
  const payment = payload.payment?.entity;
  const order = payload.order?.entity;
  const link = payload.payment_link?.entity;
  const type = (RAZORPAY_EVENT_TYPES as readonly string[]).includes(event) ? (event as RazorpayEventType) : 'other';
  const providerOrderId = orderId(payment?.order_id ?? link?.order_id ?? order?.id);
  const paymentLinkId = link?.id ?? null;
  const paymentId = payment?.id ?? null;
  const header = eventIdHeader?.trim();
  const fallback = paymentId ?? paymentLinkId ?? providerOrderId;
  const eventId = header && /^[A-Za-z0-9_.:-]{1,100}$/.test(header) ? header : fallback ? `${fallback}:${event}` : undefined;
  if (!eventId) return 'the event has no X-Razorpay-Event-Id and names no payment, link or order';
  return {
    eventId,
    type,
    name: event,
    paymentId,
    providerOrderId,
    paymentLinkId,
    amountPaise: payment?.amount ?? link?.amount ?? order?.amount ?? null,
    currency: payment?.currency ?? link?.currency ?? order?.currency ?? null,
    notes: { ...order?.notes, ...link?.notes, ...payment?.notes },
    method: payment?.method ?? null,
  };
}

/** The members of each entity kept in payment_events.payload: ours and the money's, never contact, VPA, card or bank details. */
const KEPT: Record<string, readonly string[]> = {
  payment: [
    'id',
    'entity',
    'amount',
    'currency',
    'status',
    'order_id',
    'invoice_id',
    'method',
    'captured',
    'amount_refunded',
    'refund_status',
    'fee',
    'tax',
    'error_code',
    'error_description',
    'error_source',
    'error_step',
    'error_reason',
    'notes',
    'created_at',
  ],
  order: ['id', 'entity', 'amount', 'amount_paid', 'amount_due', 'currency', 'receipt', 'status', 'attempts', 'notes', 'created_at'],
  payment_link: [
    'id',
    'status',
    'amount',
    'amount_paid',
    'currency',
    'reference_id',
    'order_id',
    'expire_by',
    'expired_at',
    'cancelled_at',
    'notes',
    'created_at',
  ],
};

const record = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const pick = (obj: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(keys.filter((k) => k in obj).map((k) => [k, obj[k]]));

/**
 * What is stored of a verified event: the envelope's event, account and time, and of each entity we know only the
 * members in KEPT (an allowlist: a member Razorpay adds later is not stored until it is named here).
 */
export function storedPayload(rawBody: Buffer | string): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'));
  } catch {
    return {};
  }
  const top = record(json);
  if (!top) return {};
  const payload = record(top.payload);
  const entities: Record<string, unknown> = {};
  for (const [name, keys] of Object.entries(KEPT)) {
    const found = record(record(payload?.[name])?.entity);
    if (found) entities[name] = { entity: pick(found, keys) };
  }
  return { ...pick(top, ['event', 'account_id', 'contains', 'created_at']), payload: entities };
}
