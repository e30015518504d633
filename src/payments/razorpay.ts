import { z } from 'zod';
import type { CreateOrderRequest, CreatePaymentLinkRequest, PaymentLink, PaymentProvider, ProviderNotes, ProviderOrder } from './types.js';
import { PaymentProviderError } from './types.js';

export const RAZORPAY_API = 'https://api.razorpay.com';

/** A Razorpay key id: rzp_test_… (test mode) or rzp_live_… (live mode); the same rule as the table's CHECK. */
export const RAZORPAY_KEY_ID = /^rzp_(test|live)_[A-Za-z0-9]{1,64}$/;

export interface RazorpaySettings {
  /** the API's origin; RAZORPAY_API unless a simulator or a proxy stands in */
  baseUrl: string;
  keyId: string;
  keySecret: string;
  /** the limit of one call, in ms */
  timeoutMs: number;
}

// Razorpay's JSON is an external party's word: each answer is read for the few members we use. notes comes back
// as [] when empty and may be null.
const notesAnswer = z
  .union([z.record(z.string(), z.unknown()), z.array(z.unknown()), z.null()])
  .optional()
  .transform((v): ProviderNotes => {
    if (!v || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v).flatMap(([k, val]) => (typeof val === 'string' || typeof val === 'number' ? [[k, String(val)]] : [])));
  });
const paise = z.number().int().nonnegative();
const orderAnswer = z.object({
  id: z.string().min(1),
  amount: paise,
  amount_paid: paise.catch(0),
  currency: z.string(),
  receipt: z.string().nullish().catch(null),
  status: z.string(),
  notes: notesAnswer.catch({}),
});
const linkAnswer = z.object({
  id: z.string().min(1),
  short_url: z.string().min(1),
  status: z.string(),
  amount: paise,
  reference_id: z.string().nullish().catch(null),
});
const errorAnswer = z.object({ error: z.object({ code: z.string().optional(), description: z.string().optional() }) });

const toOrder = (o: z.infer<typeof orderAnswer>): ProviderOrder => ({
  id: o.id,
  amountPaise: o.amount,
  amountPaidPaise: o.amount_paid,
  currency: o.currency,
  receipt: o.receipt ?? null,
  status: o.status,
  notes: o.notes,
});
const toLink = (l: z.infer<typeof linkAnswer>): PaymentLink => ({
  id: l.id,
  shortUrl: l.short_url,
  status: l.status,
  amountPaise: l.amount,
  referenceId: l.reference_id ?? null,
});

function checkAmount(amountPaise: number): void {
  // A float here would be sent as a different amount than meant: refused before it leaves.
  if (!Number.isSafeInteger(amountPaise) || amountPaise <= 0)
    throw new PaymentProviderError(`amount must be a whole number of paise, not ${amountPaise}`, false);
}

const pathId = (id: string) => {
  if (!/^[A-Za-z0-9_]{1,64}$/.test(id)) throw new PaymentProviderError('not a Razorpay id', false);
  return id;
};

/**
 * Razorpay's Orders and Payment Links APIs for one account: HTTP Basic with key_id:key_secret, JSON bodies, amounts in
 * paise. Every call is bounded by `timeoutMs` and the caller's signal; failures are PaymentProviderError, retryable for
 * network errors, timeouts, 429 and 5xx. Nothing is logged here: the request carries the secret, the link's request
 * the buyer's contact, and the errors name neither.
 */
export function createRazorpayAdapter(settings: RazorpaySettings): PaymentProvider {
  const base = settings.baseUrl.replace(/\/+$/, '');
  const authorization = `Basic ${Buffer.from(`${settings.keyId}:${settings.keySecret}`).toString('base64')}`;
  const mode = settings.keyId.startsWith('rzp_live_') ? 'live' : 'test';

  async function call(method: 'GET' | 'POST', path: string, body: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    const timeout = AbortSignal.timeout(settings.timeoutMs);
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { accept: 'application/json', authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
        redirect: 'error',
      });
      text = await res.text();
    } catch (err) {
      const name = (err as Error).name;
      const reason = name === 'TimeoutError' || name === 'AbortError' ? 'timed out or was stopped' : 'failed on the network';
      throw new PaymentProviderError(`Razorpay ${method} ${path} ${reason}`, true);
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (!res.ok) {
      const said = errorAnswer.safeParse(json);
      const code = said.success ? said.data.error.code : undefined;
      const description = said.success && said.data.error.description ? `: ${said.data.error.description.slice(0, 200)}` : '';
      const retryable = res.status === 429 || res.status >= 500;
      const what = res.status === 401 ? ' (the key id or key secret is wrong)' : '';
      throw new PaymentProviderError(`Razorpay ${method} ${path} answered ${res.status}${what}${description}`, retryable, res.status, code);
    }
    if (json === null || typeof json !== 'object') throw new PaymentProviderError(`Razorpay ${method} ${path} answered without JSON`, true, res.status);
    return json;
  }

  function read<T>(schema: z.ZodType<T>, json: unknown, what: string): T {
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new PaymentProviderError(`Razorpay answered ${what} without the fields we read`, false);
    return parsed.data;
  }

  return {
    name: 'razorpay',
    keyId: settings.keyId,
    mode,

    async createOrder(req: CreateOrderRequest, signal?: AbortSignal): Promise<ProviderOrder> {
      checkAmount(req.amountPaise);
      const body = { amount: req.amountPaise, currency: req.currency, receipt: req.receipt, notes: req.notes ?? {} };
      return toOrder(read(orderAnswer, await call('POST', '/v1/orders', body, signal), 'an order'));
    },

    async fetchOrder(id: string, signal?: AbortSignal): Promise<ProviderOrder> {
      return toOrder(read(orderAnswer, await call('GET', `/v1/orders/${pathId(id)}`, undefined, signal), 'an order'));
    },

    async createPaymentLink(req: CreatePaymentLinkRequest, signal?: AbortSignal): Promise<PaymentLink> {
      checkAmount(req.amountPaise);
      const body = {
        amount: req.amountPaise,
        currency: 'INR',
        accept_partial: false,
        reference_id: req.referenceId,
        description: req.description,
        customer: req.customer,
        notify: { sms: req.notify?.sms ?? false, email: req.notify?.email ?? false },
        notes: req.notes ?? {},
        ...(req.expireBy ? { expire_by: Math.floor(req.expireBy.getTime() / 1000) } : {}),
        ...(req.callbackUrl ? { callback_url: req.callbackUrl, callback_method: 'get' } : {}),
      };
      return toLink(read(linkAnswer, await call('POST', '/v1/payment_links', body, signal), 'a payment link'));
    },

    async cancelPaymentLink(id: string, signal?: AbortSignal): Promise<PaymentLink> {
      return toLink(read(linkAnswer, await call('POST', `/v1/payment_links/${pathId(id)}/cancel`, undefined, signal), 'a payment link'));
    },
  };
}
