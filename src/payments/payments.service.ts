import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import { AppError, validationError, type FieldIssue } from '../contract/errors.js';
import type { Db } from '../db/index.js';
import { recordAudit, type Actor } from '../db/audit-log.js';
import type { PaymentEventStatus, PaymentPurpose } from '../db/schema/index.js';
import { serviceSecretBox } from '../db/service-secrets.js';
import { checkDestination, DestinationError } from '../lib/destination.js';
import { Decimal, paise } from '../lib/money.js';
import { createRazorpayAdapter, RAZORPAY_API, RAZORPAY_KEY_ID } from './razorpay.js';
import type { PaymentProvider } from './types.js';
import { MONEY_EVENTS, PAYMENT_LINK_ORDER_NOTE, parseRazorpayEvent, storedPayload, verifyRazorpaySignature, type RazorpayEvent } from './webhook.js';
import {
  findBinding,
  findPaymentConfig,
  findPaymentConfigOf,
  hasBindingFor,
  insertBinding,
  insertPaymentEvent,
  lockPaymentEvent,
  settlePaymentEvent,
  writePaymentConfig,
} from './payments.queries.js';

/**
 * How long the webhook secret replaced by `payments configure` still verifies deliveries: Razorpay retries an event
 * for 24 hours after it was created, signed with the secret it was first sent with.
 */
/** How long an instance trusts the company's public payment account it read (a configure elsewhere shows after it). */
export const ACCOUNT_TTL_MS = 10_000;
const MAX_KNOWN_ACCOUNTS = 10_000;

export const PREVIOUS_SECRET_GRACE_MS = 26 * 60 * 60 * 1000;

/** What a provider order or payment link pays for, as a handler reads it. */
export interface PaymentBinding {
  providerOrderId: string;
  purpose: PaymentPurpose;
  /** the checkout id (purpose checkout) or the order id (purpose payment_link) */
  subjectId: string;
  /** what was asked, in rupees ("499.00") and in paise (49900) */
  amount: string;
  amountPaise: number;
}

/** A handler's word on an event: acted on (also when it returns nothing), or money staff must settle, and why. */
export type PaymentEventOutcome = void | 'acted' | { needsAttention: string };

/**
 * Acts on a verified, recorded event whose provider order or link is bound to one of our checkouts or orders. It runs
 * in the transaction that marks the event acted, holding the event's row lock, so its writes (the order confirmed, the
 * outbox event) commit with that mark or not at all, and deliveries of one event reach it one at a time. It must not
 * call out over the network. Events reach it once each, but one payment is told by several events (payment.captured,
 * order.paid, payment_link.paid): act only on the state an event moves forward. A throw leaves the event recorded and
 * the webhook answers 500, so Razorpay delivers it again.
 */
export type PaymentEventHandler = (
  companyId: string,
  event: RazorpayEvent,
  binding: PaymentBinding,
  tx: Db,
) => Promise<PaymentEventOutcome> | PaymentEventOutcome;

export interface PaymentConfigInput {
  provider: 'razorpay';
  keyId?: string;
  keySecret?: string;
  webhookSecret?: string;
  baseUrl?: string;
}

export interface PaymentSettingsView {
  provider: 'razorpay';
  /** the key id with its middle hidden: rzp_test_…Ab12 */
  key_id: string;
  mode: 'test' | 'live';
  key_secret_set: boolean;
  webhook_secret_set: boolean;
  /** until when the replaced webhook secret still verifies deliveries; null when none does */
  previous_webhook_secret_until: Date | null;
  /** null: Razorpay's own API */
  base_url: string | null;
  /** where Razorpay's dashboard should send this company's webhooks, under the service's public origin */
  webhook_path: string;
  updated_at: Date;
}

export interface WebhookReceipt {
  eventId: string;
  type: RazorpayEvent['type'];
  status: PaymentEventStatus;
  /** the event had been recorded by an earlier delivery */
  repeated: boolean;
}

const paiseToAmount = (whole: number) => new Decimal(whole).div(100).toFixed(2);
const maskKeyId = (keyId: string) => keyId.replace(/^(rzp_(?:test|live)_).*?(.{0,4})$/, '$1…$2');

// The same refusal for an unknown company, a company without payments and a wrong signature: the route does not
// reveal which companies exist or take payments.
const REFUSED = 'X-Razorpay-Signature does not match the body for this webhook URL';

export function createPaymentService({
  db,
  config,
  now = () => new Date(),
}: {
  db: Db;
  config: Pick<Config, 'SIGNING_SECRET' | 'BASE_PATH' | 'PAYMENT_API_TIMEOUT_MS' | 'PAYMENT_API_ALLOW_LOCAL'>;
  now?: () => Date;
}) {
  const box = serviceSecretBox(db, config.SIGNING_SECRET, 'payment_secrets', 'payment-provider-secrets');
  const handlers: { handler: PaymentEventHandler; purpose: PaymentPurpose }[] = [];
  // Verifies deliveries for companies with no secret, so a refusal costs the same whether or not the company exists.
  const decoy = randomBytes(32).toString('hex');
  const webhookPath = (slug: string) => `${config.BASE_PATH}/payments/razorpay/webhook/${slug}`;

  async function checkBaseUrl(raw: string): Promise<string> {
    try {
      const url = await checkDestination(raw, { allowHttp: config.PAYMENT_API_ALLOW_LOCAL, allowPrivate: config.PAYMENT_API_ALLOW_LOCAL });
      if (url.search) throw new DestinationError('must not have a ?query');
      return url.toString().replace(/\/+$/, '');
    } catch (err) {
      if (!(err instanceof DestinationError)) throw err;
      const allow = err.relaxedBy ? ' (PAYMENT_API_ALLOW_LOCAL=true allows it, for a simulator in development)' : '';
      throw validationError([{ path: 'base_url', message: `${err.message}${allow}` }]);
    }
  }

  function secretIssue(path: string, value: string, min: number): FieldIssue | undefined {
    if (value.length < min) return { path, message: `must be at least ${min} characters` };
    if (value.length > 256 || /\s/.test(value)) return { path, message: 'must be at most 256 characters, without spaces' };
    return undefined;
  }

  async function show(companyId: string): Promise<PaymentSettingsView | null> {
    const cfg = await findPaymentConfigOf(db, companyId);
    if (!cfg) return null;
    const until =
      cfg.previous_webhook_secret_enc && cfg.webhook_secret_changed_at ? new Date(cfg.webhook_secret_changed_at.getTime() + PREVIOUS_SECRET_GRACE_MS) : null;
    return {
      provider: cfg.provider,
      key_id: maskKeyId(cfg.key_id),
      mode: cfg.mode,
      key_secret_set: cfg.key_secret_enc !== '',
      webhook_secret_set: cfg.webhook_secret_enc !== '',
      previous_webhook_secret_until: until && until > now() ? until : null,
      base_url: cfg.base_url,
      webhook_path: webhookPath(cfg.slug),
      updated_at: cfg.updated_at,
    };
  }

  /** The outcome of the binding's purpose's handlers, or undefined when none is registered (the event stays recorded). */
  async function act(companyId: string, event: RazorpayEvent, binding: PaymentBinding, tx: Db): Promise<{ needsAttention?: string } | undefined> {
    const mine = handlers.filter((h) => h.purpose === binding.purpose).map((h) => h.handler);
    if (mine.length === 0) return undefined;
    const notes: string[] = [];
    for (const handler of mine) {
      const outcome = await handler(companyId, event, binding, tx);
      if (typeof outcome === 'object' && outcome !== null) notes.push(outcome.needsAttention);
    }
    return notes.length ? { needsAttention: notes.join('; ') } : {};
  }

  /**
   * The public accounts read lately, per company: every UCP checkout answer lists the company's handlers, so each
   * request would otherwise read its settings row again. A change made here is seen at once; one made by another
   * instance within ACCOUNT_TTL_MS.
   */
  const accounts = new Map<string, { at: number; account: { keyId: string; mode: 'test' | 'live' } | null }>();

  return {
    /**
     * payments configure: the company's Razorpay key id, key secret and webhook secret (sealed before they are
     * stored), and optionally another API address. The first time all three are needed; later a change of key id
     * needs its key secret, and anything not given keeps what is stored. A replaced webhook secret still verifies
     * deliveries for PREVIOUS_SECRET_GRACE_MS.
     */
    async configure(companyId: string, actor: Actor, input: PaymentConfigInput): Promise<PaymentSettingsView> {
      const current = await findPaymentConfig(db, companyId);
      const keyId = input.keyId ?? current?.key_id;
      const issues: FieldIssue[] = [];
      if (!keyId) issues.push({ path: 'key_id', message: 'required' });
      else if (!RAZORPAY_KEY_ID.test(keyId)) issues.push({ path: 'key_id', message: 'must be rzp_test_ or rzp_live_ followed by letters and digits' });
      const keyChanged = !current || (keyId !== undefined && keyId !== current.key_id);
      if (input.keySecret !== undefined) {
        const issue = secretIssue('key_secret', input.keySecret, 8);
        if (issue) issues.push(issue);
      } else if (keyChanged) issues.push({ path: 'key_secret', message: current ? 'required with a new key id' : 'required' });
      if (input.webhookSecret !== undefined) {
        const issue = secretIssue('webhook_secret', input.webhookSecret, 12);
        if (issue) issues.push(issue);
      } else if (!current) issues.push({ path: 'webhook_secret', message: 'required' });
      if (issues.length) throw validationError(issues);
      const baseUrl = input.baseUrl !== undefined ? await checkBaseUrl(input.baseUrl) : (current?.base_url ?? null);

      const sealer = await box();
      let previous = { enc: current?.previous_webhook_secret_enc ?? null, at: current?.webhook_secret_changed_at ?? null };
      const webhookChanged = current && input.webhookSecret !== undefined && sealer.open(current.webhook_secret_enc) !== input.webhookSecret;
      if (current && webhookChanged) previous = { enc: current.webhook_secret_enc, at: now() };
      accounts.delete(companyId);
      const mode = keyId!.startsWith('rzp_live_') ? 'live' : 'test';
      await db.tx(async (tx) => {
        await writePaymentConfig(tx, companyId, {
          provider: input.provider,
          key_id: keyId!,
          key_secret_enc: input.keySecret !== undefined ? sealer.seal(input.keySecret) : current!.key_secret_enc,
          webhook_secret_enc: input.webhookSecret !== undefined ? sealer.seal(input.webhookSecret) : current!.webhook_secret_enc,
          previous_webhook_secret_enc: previous.enc,
          webhook_secret_changed_at: previous.at,
          base_url: baseUrl,
          mode,
        });
        // which settings were given, by name: never a secret, nor the key id (shown masked elsewhere)
        const given = { key_id: input.keyId, key_secret: input.keySecret, webhook_secret: input.webhookSecret, base_url: input.baseUrl };
        const fields = Object.entries(given).flatMap(([field, value]) => (value !== undefined ? [field] : []));
        await recordAudit(tx, companyId, actor, { action: 'payments.configured', detail: { provider: input.provider, mode, fields } });
      });
      return (await show(companyId))!;
    },

    /** payments show: the settings without their secrets (whether each is set, the key id masked); null when none. */
    show,

    /**
     * The company's public account, what a hosted checkout is opened with and advertised by: its key id and mode (never
     * a secret); null when it takes no online payments. One read of the company's own settings row.
     */
    async account(companyId: string): Promise<{ keyId: string; mode: 'test' | 'live' } | null> {
      const known = accounts.get(companyId);
      if (known && now().getTime() - known.at < ACCOUNT_TTL_MS) return known.account;
      const cfg = await findPaymentConfig(db, companyId);
      const account = cfg ? { keyId: cfg.key_id, mode: cfg.mode } : null;
      if (accounts.size >= MAX_KNOWN_ACCOUNTS) accounts.clear();
      accounts.set(companyId, { at: now().getTime(), account });
      return account;
    },

    /**
     * The company's provider account, ready to call (its key secret opened for this adapter only). 422 when the company
     * has not configured one.
     */
    async provider(companyId: string): Promise<PaymentProvider> {
      const cfg = await findPaymentConfig(db, companyId);
      if (!cfg) throw new AppError('unprocessable', 'this company takes no online payments: no payment provider is configured');
      return createRazorpayAdapter({
        baseUrl: cfg.base_url ?? RAZORPAY_API,
        keyId: cfg.key_id,
        keySecret: (await box()).open(cfg.key_secret_enc),
        timeoutMs: config.PAYMENT_API_TIMEOUT_MS,
      });
    },

    /**
     * Records what a provider order (order_…) or payment link (plink_…) pays for, before the buyer can pay it (in the
     * caller's transaction when given). The same binding again is a no-op; a provider id already bound to something
     * else is refused.
     */
    async bindOrder(
      companyId: string,
      b: { providerOrderId: string; purpose: PaymentPurpose; subjectId: string; amountPaise: number },
      tx: Db = db,
    ): Promise<PaymentBinding> {
      if (!Number.isSafeInteger(b.amountPaise) || b.amountPaise <= 0)
        throw new Error(`a binding's amount must be a whole number of paise, not ${b.amountPaise}`);
      const row = await insertBinding(tx, companyId, {
        provider: 'razorpay',
        provider_order_id: b.providerOrderId,
        purpose: b.purpose,
        subject_id: b.subjectId,
        amount: paiseToAmount(b.amountPaise),
      });
      if (row.purpose !== b.purpose || row.subject_id !== b.subjectId) {
        throw new AppError('unprocessable', `${b.providerOrderId} already pays for another ${row.purpose === 'checkout' ? 'checkout' : 'order'}`);
      }
      return { providerOrderId: row.provider_order_id, purpose: row.purpose, subjectId: row.subject_id, amount: row.amount, amountPaise: b.amountPaise };
    },

    /**
     * Adds a handler of verified events bound to what `purpose` names (checkouts, payment links); answers a function
     * that removes it.
     */
    onEvent(purpose: PaymentPurpose, handler: PaymentEventHandler): () => void {
      const entry = { handler, purpose };
      handlers.push(entry);
      return () => {
        const at = handlers.indexOf(entry);
        if (at >= 0) handlers.splice(at, 1);
      };
    },

    /**
     * A Razorpay webhook delivery for the company named by id or slug: the signature is checked over the raw bytes
     * before anything reads them (401 alike for an unknown company, one without payments and a wrong signature), the
     * event is recorded once by its id, then acted on under its row lock: a redelivery of an event already acted on
     * (or needing attention) changes nothing. An event bound to none of our checkouts or orders is not handed to the
     * handlers: money captured for it needs attention, anything else is done with.
     */
    async receiveWebhook(company: string, rawBody: Buffer, headers: { signature?: string; eventId?: string }): Promise<WebhookReceipt> {
      const cfg = await findPaymentConfigOf(db, company);
      const secrets = [decoy];
      if (cfg) {
        const sealer = await box();
        secrets[0] = sealer.open(cfg.webhook_secret_enc);
        const changedAt = cfg.webhook_secret_changed_at?.getTime() ?? 0;
        if (cfg.previous_webhook_secret_enc && now().getTime() - changedAt < PREVIOUS_SECRET_GRACE_MS)
          secrets.push(sealer.open(cfg.previous_webhook_secret_enc));
      }
      if (!verifyRazorpaySignature(rawBody, headers.signature, secrets) || !cfg) throw new AppError('unauthorized', REFUSED);

      const event = parseRazorpayEvent(rawBody, headers.eventId);
      if (typeof event === 'string') throw validationError([{ path: '(body)', message: event }]);
      const companyId = cfg.company_id;
      const recorded = await insertPaymentEvent(db, companyId, {
        provider: 'razorpay',
        event_id: event.eventId,
        event_type: event.name,
        payment_id: event.paymentId,
        provider_order_id: event.providerOrderId ?? event.paymentLinkId,
        amount: event.amountPaise === null ? null : paiseToAmount(event.amountPaise),
        payload: storedPayload(rawBody),
      });
      const receipt = (status: PaymentEventStatus): WebhookReceipt => ({ eventId: event.eventId, type: event.type, status, repeated: !recorded });

      try {
        return await db.tx(async (tx) => {
          const status = await lockPaymentEvent(tx, companyId, 'razorpay', event.eventId);
          if (status !== 'recorded') return receipt(status ?? 'recorded');
          const ids = [event.paymentLinkId, event.providerOrderId].filter((id): id is string => id !== null);
          const row = await findBinding(tx, companyId, 'razorpay', ids);
          const linkOrder = event.notes[PAYMENT_LINK_ORDER_NOTE];
          if (!row && event.type !== 'payment_link.paid' && linkOrder && (await hasBindingFor(tx, companyId, 'payment_link', linkOrder))) {
            // a payment link's payment.captured or order.paid: its payment_link.paid is the one acted on
            await settlePaymentEvent(tx, companyId, 'razorpay', event.eventId, 'acted', 'the payment of a payment link: acted on by its payment_link.paid');
            return receipt('acted');
          }
          if (!row) {
            const money = MONEY_EVENTS.includes(event.type);
            const note = money ? 'money captured for a Razorpay order or link that no checkout or order here is bound to: refund or match it by hand' : null;
            await settlePaymentEvent(tx, companyId, 'razorpay', event.eventId, money ? 'needs_attention' : 'acted', note);
            return receipt(money ? 'needs_attention' : 'acted');
          }
          const binding: PaymentBinding = {
            providerOrderId: row.provider_order_id,
            purpose: row.purpose,
            subjectId: row.subject_id,
            amount: row.amount,
            amountPaise: paise(row.amount),
          };
          const outcome = await act(companyId, event, binding, tx);
          if (!outcome) return receipt('recorded');
          const settled = outcome.needsAttention ? 'needs_attention' : 'acted';
          await settlePaymentEvent(tx, companyId, 'razorpay', event.eventId, settled, outcome.needsAttention?.slice(0, 1000) ?? null);
          return receipt(settled);
        });
      } catch (err) {
        throw new Error(`acting on Razorpay event ${event.eventId} failed; it stays recorded and is acted on when Razorpay delivers it again`, { cause: err });
      }
    },
  };
}

export type PaymentService = ReturnType<typeof createPaymentService>;
