import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a test hands the fake to pay with; the buyer's data is sent in the webhook as Razorpay sends it. */
export interface PayOptions {
  method?: 'upi' | 'card' | 'netbanking' | 'wallet';
  email?: string;
  contact?: string;
  /** build and sign the webhooks without sending them (the test delivers them with `deliver`) */
  hold?: boolean;
}

/** One webhook as sent: the exact bytes and headers, so a test can deliver it again. */
export interface Delivery {
  event: string;
  eventId: string;
  url: string;
  body: string;
  signature: string;
}

interface Account {
  keyId: string;
  keySecret: string;
  accountId: string;
  webhook?: { url: string; secret: string };
}

interface Order {
  account: Account;
  id: string;
  amount: number;
  amount_paid: number;
  currency: string;
  receipt: string | null;
  status: 'created' | 'attempted' | 'paid';
  attempts: number;
  notes: Record<string, string>;
  created_at: number;
}

interface Link {
  account: Account;
  id: string;
  amount: number;
  amount_paid: number;
  reference_id: string;
  description: string;
  customer: Record<string, unknown>;
  notes: Record<string, string>;
  short_url: string;
  status: 'created' | 'paid' | 'expired' | 'cancelled';
  expire_by: number;
  order_id: string | null;
  created_at: number;
}

const rzpId = (prefix: string) => {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `${prefix}_${[...randomBytes(14)].map((b) => chars[b % 62]).join('')}`;
};
const unix = () => Math.floor(Date.now() / 1000);
/** An empty notes object comes back from Razorpay as [] (a quirk the adapter must read). */
const notesOut = (notes: Record<string, string>) => (Object.keys(notes).length ? notes : []);
const badRequest = (description: string, field?: string) => ({
  error: { code: 'BAD_REQUEST_ERROR', description, source: 'business', step: 'payment_initiation', reason: 'input_validation_failed', metadata: {}, field },
});

/** hex HMAC-SHA256 of the body under the webhook secret: X-Razorpay-Signature. */
export const razorpaySignature = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

/**
 * A local HTTP server playing Razorpay as its documentation describes it (docs: api/orders, api/payments/payment-links,
 * webhooks). Each `account()` is one merchant with its own key id and secret (HTTP Basic on every call, 401 otherwise)
 * and its own orders and links. POST /v1/orders (amount a whole number of paise ≥ 100, currency INR, receipt ≤ 40
 * characters, ≤ 15 notes; empty notes answered as []), GET /v1/orders/:id, POST /v1/payment_links (a reference id once
 * per account, expire_by ≥ 15 minutes ahead) and POST /v1/payment_links/:id/cancel (refused once paid).
 *
 * What the test drives: `pay(orderId | linkId)` captures a payment and sends the account's webhook URL the signed
 * events Razorpay sends (payment.captured then order.paid for an order; for a link those two, naming the order Razorpay
 * made for it, then payment_link.paid), with the buyer's
 * e-mail, phone, VPA or card as Razorpay includes them; `fail(orderId)` sends payment.failed; `closeLink(id, how)`
 * payment_link.expired or .cancelled; `deliver(d, n)` sends a
 * delivery again, n times at once. `failNext` answers the next API calls 500; `delayMs` holds every answer that long.
 */
export async function fakeRazorpay() {
  const state = {
    calls: [] as { method: string; path: string; authorization: string | undefined; body: unknown }[],
    deliveries: [] as Delivery[],
    failNext: 0,
    delayMs: 0,
  };
  const accounts = new Map<string, Account>();
  const orders = new Map<string, Order>();
  const links = new Map<string, Link>();

  const account = (mode: 'test' | 'live' = 'test') => {
    const a: Account = {
      keyId: `rzp_${mode}_${rzpId('k').slice(2)}`,
      keySecret: randomBytes(18).toString('base64url'),
      accountId: rzpId('acc'),
    };
    accounts.set(a.keyId, a);
    return a;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: Record<string, unknown>;
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      body = {};
    }
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    state.calls.push({ method: req.method ?? '', path, authorization: req.headers.authorization, body });
    if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
    const reply = (status: number, json: unknown) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    if (state.failNext > 0) {
      state.failNext--;
      return reply(500, { error: { code: 'SERVER_ERROR', description: 'The server encountered an error. The incident has been reported to admins' } });
    }
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [keyId, ...secret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    const acct = keyId ? accounts.get(keyId) : undefined;
    if (!acct || acct.keySecret !== secret.join(':')) return reply(401, badRequest('Authentication failed'));

    if (req.method === 'POST' && path === '/v1/orders') {
      const { amount, currency, receipt, notes } = body as { amount?: unknown; currency?: unknown; receipt?: unknown; notes?: unknown };
      if (typeof amount !== 'number' || !Number.isInteger(amount)) return reply(400, badRequest('The amount must be an integer.', 'amount'));
      if (amount < 100) return reply(400, badRequest('The amount must be at least INR 1.00', 'amount'));
      if (currency !== 'INR') return reply(400, badRequest('Currency is not supported', 'currency'));
      if (receipt !== undefined && (typeof receipt !== 'string' || receipt.length > 40))
        return reply(400, badRequest('receipt: at most 40 characters', 'receipt'));
      const n = notes && typeof notes === 'object' && !Array.isArray(notes) ? (notes as Record<string, string>) : {};
      if (Object.keys(n).length > 15) return reply(400, badRequest('notes: at most 15 keys', 'notes'));
      const order: Order = {
        account: acct,
        id: rzpId('order'),
        amount,
        amount_paid: 0,
        currency,
        receipt: receipt ?? null,
        status: 'created',
        attempts: 0,
        notes: n,
        created_at: unix(),
      };
      orders.set(order.id, order);
      return reply(200, orderEntity(order));
    }
    const orderPath = /^\/v1\/orders\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && orderPath) {
      const order = orders.get(orderPath[1]);
      if (!order || order.account !== acct) return reply(400, badRequest('The id provided does not exist', 'id'));
      return reply(200, orderEntity(order));
    }
    if (req.method === 'POST' && path === '/v1/payment_links') {
      const b = body as { amount?: unknown; reference_id?: unknown; description?: unknown; customer?: unknown; notes?: unknown; expire_by?: unknown };
      if (typeof b.amount !== 'number' || !Number.isInteger(b.amount) || b.amount < 100)
        return reply(400, badRequest('The amount must be at least INR 1.00', 'amount'));
      const ref = typeof b.reference_id === 'string' ? b.reference_id : '';
      if ([...links.values()].some((l) => l.account === acct && l.reference_id === ref && ref !== '')) {
        return reply(400, badRequest('payment link creation with reference ID already attempted', 'reference_id'));
      }
      if (typeof b.expire_by === 'number' && b.expire_by < unix() + 15 * 60)
        return reply(400, badRequest('timestamp must be atleast 15 minutes in future', 'expire_by'));
      const link: Link = {
        account: acct,
        id: rzpId('plink'),
        amount: b.amount,
        amount_paid: 0,
        reference_id: ref,
        description: typeof b.description === 'string' ? b.description : '',
        customer: (b.customer as Record<string, unknown>) ?? {},
        notes: (b.notes as Record<string, string>) ?? {},
        short_url: `https://rzp.io/i/${rzpId('x').slice(2, 11)}`,
        status: 'created',
        expire_by: typeof b.expire_by === 'number' ? b.expire_by : unix() + 180 * 86400,
        order_id: null,
        created_at: unix(),
      };
      links.set(link.id, link);
      return reply(200, linkEntity(link));
    }
    const cancelPath = /^\/v1\/payment_links\/([^/]+)\/cancel$/.exec(path);
    if (req.method === 'POST' && cancelPath) {
      const link = links.get(cancelPath[1]);
      if (!link || link.account !== acct) return reply(400, badRequest('The id provided does not exist', 'id'));
      if (link.status === 'paid') return reply(400, badRequest('cannot cancel or expire an already paid/partially paid link'));
      if (link.status === 'expired') return reply(400, badRequest('cannot cancel or expire an expired link'));
      link.status = 'cancelled';
      return reply(200, linkEntity(link));
    }
    reply(404, { error: { code: 'BAD_REQUEST_ERROR', description: 'The requested URL was not found on the server.' } });
  };

  const orderEntity = (o: Order) => ({
    id: o.id,
    entity: 'order',
    amount: o.amount,
    amount_paid: o.amount_paid,
    amount_due: o.amount - o.amount_paid,
    currency: o.currency,
    receipt: o.receipt,
    offer_id: null,
    status: o.status,
    attempts: o.attempts,
    notes: notesOut(o.notes),
    created_at: o.created_at,
  });
  const linkEntity = (l: Link) => ({
    id: l.id,
    short_url: l.short_url,
    status: l.status,
    amount: l.amount,
    amount_paid: l.amount_paid,
    currency: 'INR',
    accept_partial: false,
    reference_id: l.reference_id,
    description: l.description,
    customer: l.customer,
    notes: notesOut(l.notes),
    order_id: l.order_id,
    expire_by: l.expire_by,
    expired_at: 0,
    cancelled_at: l.status === 'cancelled' ? unix() : 0,
    created_at: l.created_at,
  });
  const paymentEntity = (id: string, orderId: string, amount: number, notes: Record<string, string>, status: 'captured' | 'failed', opts: PayOptions) => {
    const method = opts.method ?? 'upi';
    return {
      id,
      entity: 'payment',
      amount,
      currency: 'INR',
      status,
      order_id: orderId,
      invoice_id: null,
      international: false,
      method,
      amount_refunded: 0,
      refund_status: null,
      captured: status === 'captured',
      description: null,
      card_id: method === 'card' ? rzpId('card') : null,
      card: method === 'card' ? { id: rzpId('card'), name: 'Lakshmi Rao', last4: '4366', network: 'Visa', type: 'credit', issuer: 'HDFC' } : undefined,
      bank: method === 'netbanking' ? 'HDFC' : null,
      wallet: method === 'wallet' ? 'paytm' : null,
      vpa: method === 'upi' ? 'lakshmi.rao@okhdfcbank' : null,
      email: opts.email ?? 'void@razorpay.com',
      contact: opts.contact ?? '+919000090000',
      notes: notesOut(notes),
      fee: status === 'captured' ? Math.round(amount * 0.02) : null,
      tax: status === 'captured' ? Math.round(amount * 0.0036) : null,
      error_code: status === 'failed' ? 'BAD_REQUEST_ERROR' : null,
      error_description: status === 'failed' ? 'Payment failed due to insufficient balance' : null,
      error_source: status === 'failed' ? 'customer' : null,
      error_step: status === 'failed' ? 'payment_authorization' : null,
      error_reason: status === 'failed' ? 'insufficient_funds' : null,
      acquirer_data: { rrn: '331234567890', upi_transaction_id: 'AXI1234567890' },
      created_at: unix(),
    };
  };

  /** Signs and sends one event to the account's webhook URL. */
  async function send(
    acct: Account,
    event: string,
    contains: string[],
    payload: Record<string, unknown>,
    hold = false,
  ): Promise<Delivery & { status: number | null }> {
    if (!acct.webhook) throw new Error('no webhook URL set for this account: call webhook(account, url, secret) first');
    const body = JSON.stringify({ entity: 'event', account_id: acct.accountId, event, contains, payload, created_at: unix() });
    const d: Delivery = { event, eventId: rzpId('evt'), url: acct.webhook.url, body, signature: razorpaySignature(acct.webhook.secret, body) };
    state.deliveries.push(d);
    return { ...d, status: hold ? null : await deliverOnce(d) };
  }

  async function deliverOnce(d: Delivery, headers: Record<string, string> = {}): Promise<number> {
    const res = await fetch(d.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-razorpay-signature': d.signature, 'x-razorpay-event-id': d.eventId, ...headers },
      body: d.body,
    });
    await res.arrayBuffer();
    return res.status;
  }

  /** The order or link with its account, or a throw naming what is missing. */
  const payable = (id: string) => {
    const order = orders.get(id);
    const link = links.get(id);
    if (!order && !link) throw new Error(`no order or payment link ${id}`);
    return { order, link };
  };

  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    state,
    account,
    /** Where this account's events go, signed with `secret` (Razorpay's dashboard setting). */
    webhook(acct: Account, webhookUrl: string, secret: string) {
      acct.webhook = { url: webhookUrl, secret };
    },
    order: (id: string) => orders.get(id),
    link: (id: string) => links.get(id),

    /**
     * The buyer pays an order (payment.captured, then order.paid) or a link (payment_link.paid, carrying the order
     * Razorpay made for it, named without its order_ prefix as in Razorpay's sample). Answers the payment id and each
     * delivery with the status our webhook answered.
     */
    async pay(id: string, opts: PayOptions = {}) {
      const { order, link } = payable(id);
      const paymentId = rzpId('pay');
      if (order) {
        order.attempts++;
        order.status = 'paid';
        order.amount_paid = order.amount;
        const payment = paymentEntity(paymentId, order.id, order.amount, order.notes, 'captured', opts);
        const captured = await send(order.account, 'payment.captured', ['payment'], { payment: { entity: payment } }, opts.hold);
        const paid = await send(
          order.account,
          'order.paid',
          ['payment', 'order'],
          { payment: { entity: payment }, order: { entity: orderEntity(order) } },
          opts.hold,
        );
        return { paymentId, deliveries: [captured, paid] };
      }
      const l = link!;
      const orderId = rzpId('order');
      l.status = 'paid';
      l.amount_paid = l.amount;
      l.order_id = orderId;
      const payment = paymentEntity(paymentId, orderId, l.amount, l.notes, 'captured', opts);
      const linkOrder = {
        id: orderId.slice('order_'.length),
        entity: 'order',
        amount: l.amount,
        amount_paid: l.amount,
        amount_due: 0,
        status: 'paid',
        receipt: l.reference_id,
        notes: notesOut(l.notes),
      };
      // Razorpay tells a link's payment three times: payment.captured and order.paid (naming the order it made for the
      // link, with the link's notes) and payment_link.paid (naming the link).
      const captured = await send(l.account, 'payment.captured', ['payment'], { payment: { entity: payment } }, opts.hold);
      const orderPaid = await send(
        l.account,
        'order.paid',
        ['payment', 'order'],
        { payment: { entity: payment }, order: { entity: { ...linkOrder, id: orderId } } },
        opts.hold,
      );
      const paid = await send(
        l.account,
        'payment_link.paid',
        ['payment_link', 'order', 'payment'],
        { payment_link: { entity: linkEntity(l) }, order: { entity: linkOrder }, payment: { entity: payment } },
        opts.hold,
      );
      return { paymentId, deliveries: [captured, orderPaid, paid] };
    },

    /** The link passes its expiry (payment_link.expired) or is cancelled on the dashboard (payment_link.cancelled). */
    async closeLink(linkId: string, how: 'expired' | 'cancelled', opts: { hold?: boolean } = {}) {
      const { link } = payable(linkId);
      if (!link) throw new Error(`${linkId} is not a payment link`);
      link.status = how;
      return send(link.account, `payment_link.${how}`, ['payment_link'], { payment_link: { entity: linkEntity(link) } }, opts.hold);
    },

    /** A payment attempt on the order fails (payment.failed); the order stays payable. */
    async fail(orderId: string, opts: PayOptions = {}) {
      const { order } = payable(orderId);
      if (!order) throw new Error(`${orderId} is not an order`);
      order.attempts++;
      order.status = 'attempted';
      const payment = paymentEntity(rzpId('pay'), order.id, order.amount, order.notes, 'failed', opts);
      return send(order.account, 'payment.failed', ['payment'], { payment: { entity: payment } }, opts.hold);
    },

    /** Sends a delivery again, `times` copies at once (Razorpay's at-least-once, duplicates racing); their statuses. */
    deliver(d: Delivery, times = 1, headers: Record<string, string> = {}): Promise<number[]> {
      return Promise.all(Array.from({ length: times }, () => deliverOnce(d, headers)));
    },

    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export type FakeRazorpay = Awaited<ReturnType<typeof fakeRazorpay>>;
