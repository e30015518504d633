import { describe, expect, it } from 'vitest';
import { parseRazorpayEvent, signRazorpayBody, storedPayload, verifyRazorpaySignature, type RazorpayEvent } from '../../src/payments/webhook.js';

const SECRET = 'whsec-test-0123456789';

// Razorpay's documented payment_link.paid body (webhooks/payment-links), trimmed: the order entity's id has no
// `order_` prefix, notes are null on the link and [] on the payment.
const LINK_PAID = JSON.stringify({
  entity: 'event',
  account_id: 'acc_OU2H3nkLn9jDVo',
  event: 'payment_link.paid',
  contains: ['payment_link', 'order', 'payment'],
  created_at: 1749618314,
  payload: {
    payment_link: {
      entity: {
        id: 'plink_QflcnnZqCekuvL',
        status: 'paid',
        amount: 1000,
        amount_paid: 1000,
        reference_id: '23',
        order_id: 'order_QflczVVaNJciLq',
        short_url: 'https://rzp.io/rzp/twH5w1Y',
        customer: { name: 'Lakshmi Rao', contact: '+919812345678', email: 'lakshmi.rao.private@example.in' },
        notes: null,
      },
    },
    order: { entity: { id: 'QflczVVaNJciLq', amount: 1000, amount_paid: 1000, amount_due: 0, status: 'paid', receipt: '23' } },
    payment: {
      entity: {
        id: 'pay_Qfldmt5StKZFCB',
        order_id: 'order_QflczVVaNJciLq',
        amount: 1000,
        currency: 'INR',
        status: 'captured',
        method: 'card',
        captured: true,
        email: 'lakshmi.rao.private@example.in',
        contact: '+919812345678',
        vpa: null,
        card_id: 'card_QfldmvXzpKj8Lg',
        card: { last4: '4366', network: 'Visa', name: 'Lakshmi Rao' },
        acquirer_data: { rrn: '331234567890' },
        notes: [],
      },
    },
  },
});

describe('verifyRazorpaySignature: HMAC-SHA256 of the raw bytes, hex', () => {
  const raw = Buffer.from(LINK_PAID);
  const good = signRazorpayBody(SECRET, raw);

  it('accepts the signature of these exact bytes, in either case of hex', () => {
    expect(verifyRazorpaySignature(raw, good, SECRET)).toBe(true);
    expect(verifyRazorpaySignature(raw, good.toUpperCase(), SECRET)).toBe(true);
  });

  it('refuses another secret, one changed byte, a re-serialised body, and malformed headers', () => {
    expect(verifyRazorpaySignature(raw, good, `${SECRET}x`)).toBe(false);
    const changed = Buffer.from(LINK_PAID.replace('"amount":1000', '"amount":1001'));
    expect(verifyRazorpaySignature(changed, good, SECRET)).toBe(false);
    // the same JSON written with other spacing is other bytes: the signature is over the bytes, not the meaning
    expect(verifyRazorpaySignature(Buffer.from(JSON.stringify(JSON.parse(LINK_PAID), null, 1)), good, SECRET)).toBe(false);
    for (const header of [undefined, '', good.slice(0, 63), `${good}0`, `sha256=${good}`, good.replace(/^./, 'g')]) {
      expect(verifyRazorpaySignature(raw, header, SECRET), String(header)).toBe(false);
    }
  });

  it('accepts any of the secrets given (a rotation), and only those', () => {
    expect(verifyRazorpaySignature(raw, good, ['new-secret-abcdefgh', SECRET])).toBe(true);
    expect(verifyRazorpaySignature(raw, good, ['new-secret-abcdefgh'])).toBe(false);
    expect(verifyRazorpaySignature(raw, good, [])).toBe(false);
  });
});

describe('parseRazorpayEvent: the members we read', () => {
  it("reads a payment_link.paid: link, payment and the order (its id given the order_ prefix Razorpay's sample leaves off)", () => {
    expect(parseRazorpayEvent(LINK_PAID, 'evt_Qfle1aBcD2')).toEqual<RazorpayEvent>({
      eventId: 'evt_Qfle1aBcD2',
      type: 'payment_link.paid',
      name: 'payment_link.paid',
      paymentId: 'pay_Qfldmt5StKZFCB',
      providerOrderId: 'order_QflczVVaNJciLq',
      paymentLinkId: 'plink_QflcnnZqCekuvL',
      amountPaise: 1000,
      currency: 'INR',
      notes: {},
      method: 'card',
    });
  });

  it('names the order with its prefix when only the order entity names it', () => {
    const body = JSON.stringify({ event: 'order.paid', payload: { order: { entity: { id: 'QflczVVaNJciLq', amount: 500 } } } });
    expect(parseRazorpayEvent(body, 'evt_1')).toMatchObject({ type: 'order.paid', providerOrderId: 'order_QflczVVaNJciLq', amountPaise: 500, paymentId: null });
  });

  it('without X-Razorpay-Event-Id the id is the payment id and the event name, the same for every redelivery', () => {
    expect(parseRazorpayEvent(LINK_PAID)).toMatchObject({ eventId: 'pay_Qfldmt5StKZFCB:payment_link.paid' });
    expect(parseRazorpayEvent(LINK_PAID, 'not an id; drop table')).toMatchObject({ eventId: 'pay_Qfldmt5StKZFCB:payment_link.paid' });
    const expired = JSON.stringify({ event: 'payment_link.expired', payload: { payment_link: { entity: { id: 'plink_A1', amount: 900 } } } });
    expect(parseRazorpayEvent(expired)).toMatchObject({ eventId: 'plink_A1:payment_link.expired', type: 'payment_link.expired', amountPaise: 900 });
  });

  it('reads notes given as an object, [] or null, keeping strings and numbers only', () => {
    const body = (notes: unknown) =>
      JSON.stringify({ event: 'payment.captured', payload: { payment: { entity: { id: 'pay_1', order_id: 'order_1', amount: 100, notes } } } });
    expect((parseRazorpayEvent(body({ checkout_id: 'chk_1', n: 2, nested: { a: 1 } }), 'evt_n') as RazorpayEvent).notes).toEqual({
      checkout_id: 'chk_1',
      n: '2',
    });
    expect((parseRazorpayEvent(body([]), 'evt_n') as RazorpayEvent).notes).toEqual({});
    expect((parseRazorpayEvent(body(null), 'evt_n') as RazorpayEvent).notes).toEqual({});
  });

  it("calls an event it does not act on 'other', keeping its name; odd members read as absent", () => {
    const body = JSON.stringify({ event: 'refund.processed', payload: { payment: { entity: { id: 42, amount: 'lots', order_id: 'order_9' } } } });
    expect(parseRazorpayEvent(body, 'evt_2')).toMatchObject({
      type: 'other',
      name: 'refund.processed',
      paymentId: null,
      amountPaise: null,
      providerOrderId: 'order_9',
    });
  });

  it('answers why a body cannot be read: not JSON, no event name, nothing to name it by', () => {
    expect(parseRazorpayEvent('{not json', 'evt_3')).toBe('the body is not JSON');
    expect(parseRazorpayEvent(JSON.stringify({ payload: {} }), 'evt_3')).toBe('the body names no event');
    expect(typeof parseRazorpayEvent(JSON.stringify({ event: 'payment.captured', payload: {} }))).toBe('string');
  });
});

describe('storedPayload: what payment_events keeps', () => {
  it("keeps the event and the money's members, and none of the buyer's contact, e-mail, card, VPA or bank reference", () => {
    const stored = storedPayload(LINK_PAID);
    const text = JSON.stringify(stored);
    for (const gone of [
      '+919812345678',
      'lakshmi.rao.private',
      'Lakshmi Rao',
      '4366',
      'card_',
      '331234567890',
      '"contact":',
      '"email":',
      '"card":',
      '"customer":',
    ])
      expect(text, gone).not.toContain(gone);
    expect(stored).toMatchObject({
      event: 'payment_link.paid',
      account_id: 'acc_OU2H3nkLn9jDVo',
      payload: {
        payment: { entity: { id: 'pay_Qfldmt5StKZFCB', amount: 1000, status: 'captured', method: 'card', order_id: 'order_QflczVVaNJciLq' } },
        payment_link: { entity: { id: 'plink_QflcnnZqCekuvL', status: 'paid', reference_id: '23' } },
        order: { entity: { id: 'QflczVVaNJciLq', amount_paid: 1000 } },
      },
    });
  });
});
