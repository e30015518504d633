import type { PaymentProviderName } from '../db/schema/index.js';

/**
 * A payment provider's failure. `retryable`: network errors, timeouts, 429 and 5xx (the same call may work later);
 * anything else (wrong credentials, a refused amount, an unknown id) needs a person or another request. `status` is
 * the provider's HTTP status when it answered; `code` its error code (Razorpay: BAD_REQUEST_ERROR, SERVER_ERROR…).
 * The message never holds a credential, a card or the buyer's contact.
 */
export class PaymentProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'PaymentProviderError';
  }
}

/** Free-form notes echoed back on payments and in webhooks: at most 15 keys, values at most 256 characters. */
export type ProviderNotes = Record<string, string>;

export interface CreateOrderRequest {
  /** a whole number of paise, at least 100 (₹1.00) */
  amountPaise: number;
  currency: 'INR';
  /** our reference, at most 40 characters (the checkout or order number) */
  receipt: string;
  notes?: ProviderNotes;
}

/** A provider order: `created`, then `attempted` (a payment tried), then `paid` (a payment captured). */
export interface ProviderOrder {
  id: string;
  amountPaise: number;
  amountPaidPaise: number;
  currency: string;
  receipt: string | null;
  status: string;
  notes: ProviderNotes;
}

export interface CreatePaymentLinkRequest {
  amountPaise: number;
  /** unique per account, at most 40 characters: a second link with the same reference is refused by the provider */
  referenceId: string;
  description: string;
  customer: { name?: string; contact?: string; email?: string };
  /** at least 15 minutes ahead, at most six months */
  expireBy?: Date;
  notes?: ProviderNotes;
  /** where the buyer lands after paying (a GET with the link's signed result) */
  callbackUrl?: string;
  /** whether the provider itself sends the link by SMS or e-mail; default: neither */
  notify?: { sms?: boolean; email?: boolean };
}

/** A payment link: `created`, `partially_paid`, `paid`, `expired` or `cancelled`. */
export interface PaymentLink {
  id: string;
  shortUrl: string;
  status: string;
  amountPaise: number;
  referenceId: string | null;
}

/**
 * What checkout and payment links call: one company's account at its provider, made from its stored settings by the
 * payments service (`services.payments.provider(companyId)`). Each call is bounded by the configured timeout and by
 * `signal` when given; failures are PaymentProviderError.
 */
export interface PaymentProvider {
  readonly name: PaymentProviderName;
  /** the public key id (rzp_test_… / rzp_live_…), what a hosted checkout page is opened with; never the secret */
  readonly keyId: string;
  readonly mode: 'test' | 'live';
  createOrder(req: CreateOrderRequest, signal?: AbortSignal): Promise<ProviderOrder>;
  fetchOrder(id: string, signal?: AbortSignal): Promise<ProviderOrder>;
  createPaymentLink(req: CreatePaymentLinkRequest, signal?: AbortSignal): Promise<PaymentLink>;
  cancelPaymentLink(id: string, signal?: AbortSignal): Promise<PaymentLink>;
}
