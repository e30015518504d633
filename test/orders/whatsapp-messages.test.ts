import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/contract/errors.js';
import type { z } from 'zod';
import {
  orderDetailsMessage,
  orderDetailsParameters,
  orderDetailsTemplateMessage,
  orderStatusMessage,
  orderStatusTemplateMessage,
  textLength,
} from '../../src/contract/whatsapp.js';
import {
  buildOrderDetails,
  buildOrderDetailsTemplate,
  buildOrderStatus,
  buildOrderStatusTemplate,
  eventMessages,
  fitText,
  type MessageOrder,
} from '../../src/orders/whatsapp-messages.js';
import { NO_WHATSAPP_SETTINGS, type MessageFacts } from '../../src/orders/whatsapp.queries.js';

/** The builder against Meta's documented shapes and limits (src/contract/whatsapp.ts), which first accept Meta's own examples. */

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'whatsapp');
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));

const HINDI = 'हस्तनिर्मित शुद्ध सूती कुर्ता, नीला रंग, बड़ा आकार, त्योहार के लिए विशेष संग्रह'; // 78 UTF-16 units

function order(overrides: Partial<MessageOrder> = {}): MessageOrder {
  return {
    order_number: 'ORD-100231',
    order_status: 'confirmed',
    amount: '1047.50',
    customer: {
      name: 'Asha Rao',
      phone: '+919876543210',
      messaging_opted_out: false,
      may_send: { order_updates: { messaging: true, email: true }, marketing: { messaging: false, email: false } },
    },
    items: [
      { sku: 'KURTA-BLUE-L', name: HINDI, quantity: '2.000', unit_price: '399.00', line_total: '798.00' },
      { sku: 'RICE-LOOSE', name: 'Sona Masoori Rice', quantity: '1.500', unit_price: '166.33', line_total: '249.50' },
    ],
    shipment: null,
    invoice: null,
    ...overrides,
  };
}

function facts(overrides: Partial<MessageFacts> = {}, settings: Partial<MessageFacts['settings']> = {}): MessageFacts {
  return {
    payment: 'cod',
    discount_amount: '0.00',
    shipping_amount: '0.00',
    gst_registered: true,
    lines: [
      { tax_rate: '5.00', discount: '0.00', shipping: '0.00' },
      { tax_rate: '0.00', discount: '0.00', shipping: '0.00' },
    ],
    payment_link: null,
    settings: { ...NO_WHATSAPP_SETTINGS, catalog_id: '345678', payment_configuration: 'razorpay-prod', ...settings },
    ...overrides,
  };
}

const refusal = (build: () => unknown) => {
  try {
    build();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return { code: (err as AppError).kind, details: (err as AppError).details };
  }
  throw new Error('built, expected a refusal');
};

describe("Meta's documented examples (test/fixtures/whatsapp)", () => {
  const schemaFor = (name: string) =>
    name.endsWith('order_details.json')
      ? orderDetailsMessage
      : name === 'order_status.json'
        ? orderStatusMessage
        : name === 'order_details.template.json'
          ? orderDetailsTemplateMessage
          : orderStatusTemplateMessage;

  it.each(readdirSync(FIXTURES).filter((f) => f.endsWith('.json')))('%s fits the documented shape', (name) => {
    const parsed = schemaFor(name).safeParse(fixture(name));
    expect(parsed.error?.issues, name).toBeUndefined();
  });

  it('the schemas refuse what the documentation forbids (each limit at its edge)', () => {
    type Parameters = z.input<typeof orderDetailsParameters>;
    const base = fixture('pg-razorpay.order_details.json') as { interactive: { action: { parameters: Parameters } } };
    const variant = (change: (p: Parameters) => void) => {
      const copy = structuredClone(base);
      change(copy.interactive.action.parameters);
      return orderDetailsMessage.safeParse(copy).success;
    };
    expect(variant((p) => (p.reference_id = 'r'.repeat(35)))).toBe(true);
    expect(variant((p) => (p.reference_id = 'r'.repeat(36)))).toBe(false);
    expect(variant((p) => (p.reference_id = 'ORD#1'))).toBe(false);
    expect(variant((p) => (p.order.items[0].name = 'न'.repeat(60)))).toBe(true);
    expect(variant((p) => (p.order.items[0].name = 'न'.repeat(61)))).toBe(false);
    expect(variant((p) => (p.order.items[0].quantity = 1.5))).toBe(false);
    expect(variant((p) => Object.assign(p.order.items[0].amount, { offset: 1000 }))).toBe(false);
    expect(variant((p) => (p.total_amount.value = 20999))).toBe(false); // total ≠ subtotal + tax + shipping − discount
    expect(variant((p) => (p.order.subtotal.value = 20001))).toBe(false); // subtotal ≠ Σ amount × quantity
    expect(variant((p) => (p.payment_settings = undefined))).toBe(false);
    expect(variant((p) => (p.order.catalog_id = undefined))).toBe(false); // no catalogue: the items need their origin and importer
    const status = fixture('order_status.json') as { interactive: { action: { parameters: { order: { status: string; description: string } } } } };
    status.interactive.action.parameters.order.description = 'd'.repeat(121);
    expect(orderStatusMessage.safeParse(status).success).toBe(false);
    status.interactive.action.parameters.order = { status: 'delivered', description: 'x' };
    expect(orderStatusMessage.safeParse(status).success).toBe(false);
  });
});

describe('order_details', () => {
  it('is the documented shape: retailer_id the SKU, paise with offset 100, a Hindi name cut on a letter, amounts adding up', () => {
    const msg = buildOrderDetails(order(), facts());
    expect(orderDetailsMessage.parse(msg)).toEqual(msg);
    expect(msg.to).toBe('919876543210');
    const p = msg.interactive.action.parameters;
    expect(p.reference_id).toBe('ORD-100231');
    expect(p.order.catalog_id).toBe('345678');
    const [kurta, rice] = p.order.items;
    expect(kurta).toMatchObject({ retailer_id: 'KURTA-BLUE-L', amount: { value: 39900, offset: 100 }, quantity: 2 });
    expect(textLength(kurta.name)).toBeLessThanOrEqual(60);
    expect(kurta.name.endsWith('…')).toBe(true);
    expect(HINDI.startsWith(kurta.name.slice(0, -1))).toBe(true);
    // the cut never leaves a vowel sign or virama without its letter: the kept text is whole graphemes of the name
    const graphemes = [...new Intl.Segmenter('hi', { granularity: 'grapheme' }).segment(HINDI)].map((s) => s.segment);
    let prefix = '';
    for (const g of graphemes) if ((prefix + g).length <= kurta.name.length - 1) prefix += g;
    expect(kurta.name.slice(0, -1)).toBe(prefix.trimEnd());
    // 1.5 KG is one item at the line's total, its quantity in the name
    expect(rice).toEqual({ retailer_id: 'RICE-LOOSE', name: 'Sona Masoori Rice × 1.5', amount: { value: 24950, offset: 100 }, quantity: 1 });
    expect(p.order.subtotal).toEqual({ value: 104750, offset: 100 });
    expect(p.total_amount).toEqual({ value: 104750, offset: 100 });
    // prices include GST: Meta's tax (added on top) is 0 and says what is included, as the invoice computes it (798 × 5/105 = 38.00)
    expect(p.order.tax).toEqual({ value: 0, offset: 100, description: 'Includes GST ₹38.00' });
    expect(p.payment_settings).toEqual([
      { type: 'payment_gateway', payment_gateway: { type: 'razorpay', configuration_name: 'razorpay-prod', razorpay: { receipt: 'ORD-100231' } } },
    ]);
  });

  it("adds shipping and takes the discount off by Meta's rule; an unregistered seller names no GST", () => {
    const o = order({ amount: '1077.50' }); // 1047.50 + 80 shipping − 50 discount
    const f = facts({
      shipping_amount: '80.00',
      discount_amount: '50.00',
      gst_registered: false,
      lines: [
        { tax_rate: '5.00', discount: '50.00', shipping: '60.00' },
        { tax_rate: '0.00', discount: '0.00', shipping: '20.00' },
      ],
    });
    const p = buildOrderDetails(o, f).interactive.action.parameters;
    expect(orderDetailsMessage.shape.interactive.shape.action.shape.parameters.safeParse(p).success).toBe(true);
    expect(p.order.shipping).toEqual({ value: 8000, offset: 100, description: 'Shipping' });
    expect(p.order.discount).toEqual({ value: 5000, offset: 100, description: 'Discount' });
    expect(p.order.tax).toEqual({ value: 0, offset: 100 });
    expect(p.order.subtotal.value + p.order.tax.value + p.order.shipping!.value - p.order.discount!.value).toBe(p.total_amount.value);
    // registered: the GST in each line's amount after its shares, (798 − 50 + 60) × 5/105 = 38.48
    const registered = buildOrderDetails(o, { ...f, gst_registered: true }).interactive.action.parameters;
    expect(registered.order.tax.description).toBe('Includes GST ₹38.48');
  });

  it("pays by the order's live payment link first, then the gateway configuration, then UPI intent", () => {
    const link = { short_url: 'https://rzp.io/i/nxrHnLJ' };
    const upi = { payment_configuration: null, upi_vpa: 'shop@okhdfcbank', upi_payee_name: 'Asha Crafts' };
    const settings = (f: MessageFacts) => buildOrderDetails(order(), f).interactive.action.parameters.payment_settings;
    expect(settings(facts({ payment_link: link }))).toEqual([{ type: 'payment_link', payment_link: { uri: link.short_url } }]);
    expect(settings(facts({}, upi))).toEqual([
      {
        type: 'upi_intent_link',
        upi_intent_link: { link: 'upi://pay?pa=shop%40okhdfcbank&pn=Asha%20Crafts&tr=ORD-100231&am=1047.50&cu=INR' },
      },
    ]);
    expect(settings(facts({ payment_link: link }, upi))?.[0].type).toBe('payment_link');
    for (const f of [facts({ payment_link: link }), facts({}, upi), facts()])
      expect(orderDetailsMessage.safeParse(buildOrderDetails(order(), f)).success).toBe(true);
  });

  it('is refused (422, details naming what is missing) when it cannot be sent', () => {
    expect(refusal(() => buildOrderDetails(order(), facts({}, { catalog_id: null })))).toMatchObject({
      code: 'unprocessable',
      details: [{ path: 'catalog_id' }],
    });
    expect(refusal(() => buildOrderDetails(order(), facts({}, { payment_configuration: null })))).toMatchObject({ details: [{ path: 'payment_settings' }] });
    expect(refusal(() => buildOrderDetails(order(), facts({ payment: 'prepaid' })))).toMatchObject({
      details: [{ path: 'type', message: 'the order is prepaid' }],
    });
    expect(refusal(() => buildOrderDetails(order({ order_status: 'cancelled' }), facts()))).toMatchObject({ details: [{ path: 'type' }] });
    const paid = { invoice_number: 'INV-1', payment_status: 'paid', total: '1047.50', amount_due: '0.00', url: null, credit_note: null };
    expect(refusal(() => buildOrderDetails(order({ invoice: paid }), facts()))).toMatchObject({ details: [{ path: 'type' }] });
    expect(refusal(() => buildOrderDetails(order({ order_number: 'ORD/2026/1' }), facts()))).toMatchObject({ details: [{ path: 'order_number' }] });
    expect(refusal(() => buildOrderDetails(order({ order_number: `ORD-${'1'.repeat(32)}` }), facts()))).toMatchObject({ details: [{ path: 'order_number' }] });
    expect(buildOrderDetails(order({ order_number: `ORD-${'1'.repeat(31)}` }), facts()).interactive.action.parameters.reference_id).toHaveLength(35);
    expect(
      refusal(() =>
        buildOrderDetails(
          order({
            customer: {
              name: 'A',
              phone: null,
              messaging_opted_out: false,
              may_send: { order_updates: { messaging: true, email: true }, marketing: { messaging: false, email: false } },
            },
          }),
          facts(),
        ),
      ),
    ).toMatchObject({
      details: [{ path: 'customer.phone' }],
    });
  });

  it('outside the 24-hour window: the same bill on the company template’s order details button', () => {
    const f = facts({}, { template_name: 'cod_bill', template_language: 'hi' });
    const msg = buildOrderDetailsTemplate(order(), f);
    expect(orderDetailsTemplateMessage.parse(msg)).toEqual(msg);
    expect(msg.template.name).toBe('cod_bill');
    expect(msg.template.language).toEqual({ policy: 'deterministic', code: 'hi' });
    const button = msg.template.components[0] as unknown as { parameters: [{ action: { order_details: unknown } }] };
    expect(button.parameters[0].action.order_details).toEqual(buildOrderDetails(order(), f).interactive.action.parameters);
    expect(refusal(() => buildOrderDetailsTemplate(order(), facts()))).toMatchObject({ details: [{ path: 'template' }] });
  });
});

describe('order_status', () => {
  const cases: [MessageOrder['order_status'], string, string][] = [
    ['confirmed', 'processing', 'Confirmed, being prepared'],
    ['packed', 'processing', 'Packed, ready to ship'],
    ['shipped', 'shipped', 'Shipped with Delhivery, AWB 1234567890'],
    ['delivered', 'completed', 'Delivered'],
    ['cancelled', 'canceled', 'Cancelled'],
    ['returned', 'canceled', 'Returned to the seller'],
  ];
  const shipment = { awb: '1234567890', courier: 'Delhivery', status: 'booked', status_label: 'Booked', tracking_url: null, delivered_at: null };

  it.each(cases)('%s is Meta’s %s', (ours, meta, description) => {
    const o = order({ order_status: ours, shipment: ours === 'shipped' ? shipment : null });
    const msg = buildOrderStatus(o);
    expect(orderStatusMessage.parse(msg)).toEqual(msg);
    expect(msg.interactive.action.parameters).toEqual({ reference_id: 'ORD-100231', order: { status: meta, description } });
    const template = buildOrderStatusTemplate(o, facts({}, { status_template_name: 'order_update', template_language: 'en_US' }));
    expect(orderStatusTemplateMessage.parse(template)).toEqual(template);
    expect(template.template.components[0].parameters[0].order_status).toEqual(msg.interactive.action.parameters);
  });

  it("cuts a long description to Meta's 120 on a whole character", () => {
    const long = { ...shipment, courier: 'कूरियर'.repeat(30) };
    const description = buildOrderStatus(order({ order_status: 'shipped', shipment: long })).interactive.action.parameters.order.description!;
    expect(textLength(description)).toBeLessThanOrEqual(120);
    expect(description.endsWith('…')).toBe(true);
  });

  it('an event carries both on order.created, the status alone after; one that cannot be built is null', () => {
    expect(Object.keys(eventMessages(order(), facts(), true)).sort()).toEqual(['order_details', 'order_status']);
    expect(eventMessages(order(), facts(), false)).toEqual({ order_status: buildOrderStatus(order()) });
    expect(eventMessages(order(), facts({ payment: 'prepaid' }), true).order_details).toBeNull();
  });
});

describe('fitText', () => {
  it('keeps a text that fits, counts an emoji as Meta does (2), and never splits one', () => {
    expect(fitText('नमस्ते', 6)).toBe('नमस्ते');
    expect(fitText('ab😀cd', 5)).toBe('ab😀…');
    expect(fitText('ab😀cd', 4)).toBe('ab…'); // not half of the emoji
    expect(fitText('abc😀', 5)).toBe('abc😀');
  });
});
