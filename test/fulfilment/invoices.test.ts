import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createFulfilmentService } from '../../src/fulfilment/fulfilment.service.js';
import { financialYear, formatDocumentNumber } from '../../src/fulfilment/billing.service.js';
import { createOrderService } from '../../src/orders/orders.service.js';
import { orderBody, post, teeShop } from '../helpers/fulfilment.js';

const ctx = useTestApp({ INVOICE_DUE_DAYS: '15' });

/** A service and an order lookup on a clock the test moves. */
function atClock(start: string) {
  const clock = { now: new Date(start) };
  const now = () => clock.now;
  return {
    clock,
    fulfilment: createFulfilmentService({ db: ctx.db, config: { INVOICE_DUE_DAYS: 15 }, clock: now }),
    orders: createOrderService({ db: ctx.db, media: ctx.services.media, codRules: ctx.services.codRules, clock: now }),
  };
}

describe('financial year', () => {
  it('runs April to March in India time', () => {
    expect(financialYear(new Date('2026-04-01T00:00:00+05:30'))).toBe('2026-27');
    expect(financialYear(new Date('2027-03-31T23:59:59+05:30'))).toBe('2026-27');
    expect(financialYear(new Date('2027-03-31T18:30:00Z'))).toBe('2027-28'); // 00:00 IST on 1 April
    expect(financialYear(new Date('2099-12-31T00:00:00Z'))).toBe('2099-00');
  });
});

describe('invoice numbers', () => {
  it('have at most 16 characters: a series that would pass them refuses to issue', () => {
    expect(formatDocumentNumber('INV', '2026-27', 999_999)).toBe('INV/26-27/999999');
    expect(formatDocumentNumber('IN', '2026-27', 1_000_000)).toBe('IN/26-27/1000000');
    expect(() => formatDocumentNumber('INV', '2026-27', 1_000_000)).toThrow(/over 16 characters/);
  });

  it('are consecutive per company and start again for another company', async () => {
    const a = await teeShop(ctx, '50');
    const b = await teeShop(ctx, '50');
    const t = atClock('2026-10-15T10:00:00Z');
    const numbers: string[] = [];
    for (let i = 0; i < 3; i++) {
      const ref = (await post(ctx, a.headers, orderBody())).body.data.order_number;
      numbers.push((await t.fulfilment.issueInvoice(a.companyId, ref)).invoice!.invoice_number);
    }
    expect(numbers).toEqual(['INV/26-27/000001', 'INV/26-27/000002', 'INV/26-27/000003']);
    const refB = (await post(ctx, b.headers, orderBody())).body.data.order_number;
    expect((await t.fulfilment.issueInvoice(b.companyId, refB)).invoice!.invoice_number).toBe('INV/26-27/000001');
    // issuing again returns the same invoice, no new number
    expect((await t.fulfilment.issueInvoice(b.companyId, refB)).invoice!.invoice_number).toBe('INV/26-27/000001');
  });

  it('issued concurrently, they stay a gapless series', async () => {
    const a = await teeShop(ctx, '50');
    const t = atClock('2026-11-01T10:00:00Z');
    const refs: string[] = [];
    for (let i = 0; i < 8; i++) refs.push((await post(ctx, a.headers, orderBody())).body.data.order_number);
    const issued = await Promise.all(refs.map((r) => t.fulfilment.move(a.companyId, r, 'shipped')));
    const ns = issued.map((v) => Number(v.invoice!.invoice_number.split('/')[2])).sort((x, y) => x - y);
    expect(ns).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('a new financial year starts a new series', async () => {
    const a = await teeShop(ctx, '50');
    const t = atClock('2027-03-31T18:00:00Z'); // 23:30 IST, 31 March
    const r1 = (await post(ctx, a.headers, orderBody())).body.data.order_number;
    expect((await t.fulfilment.issueInvoice(a.companyId, r1)).invoice!.invoice_number).toBe('INV/26-27/000001');
    t.clock.now = new Date('2027-03-31T18:31:00Z'); // 00:01 IST, 1 April
    const r2 = (await post(ctx, a.headers, orderBody())).body.data.order_number;
    expect((await t.fulfilment.issueInvoice(a.companyId, r2)).invoice!.invoice_number).toBe('INV/27-28/000001');
  });
});

describe('amounts and payment statuses', () => {
  it('COD: unpaid, partial, overpayment refused, paid; overdue after the due days on the injected clock', async () => {
    const a = await teeShop(ctx, '50');
    const t = atClock('2026-06-01T06:00:00Z');
    const ref = (await post(ctx, a.headers, orderBody({ payment: 'cod', items: [{ product_id: 'TEE-M', quantity: 3 }] }))).body.data.order_number;
    const lookup = async () => (await t.orders.lookup({ companyId: a.companyId } as never, ref, undefined, 'http://x')).invoice;

    expect((await t.fulfilment.issueInvoice(a.companyId, ref)).invoice).toMatchObject({ payment_status: 'unpaid', total: '1497.00', amount_due: '1497.00' });
    expect((await t.fulfilment.view(a.companyId, ref)).order_status).toBe('confirmed'); // issued before shipping
    await t.fulfilment.recordPayment(a.companyId, ref, '497.50', 'UPI-1');
    expect(await lookup()).toEqual({
      invoice_number: expect.any(String),
      payment_status: 'partial',
      total: '1497.00',
      amount_due: '999.50',
      url: expect.stringMatching(/^http:\/\/x\/invoices\/co_\w+\/inv_\w+\.pdf\?expires=\d+&sig=[\w-]+$/),
      credit_note: null,
    });

    const over = await t.fulfilment.recordPayment(a.companyId, ref, '1000.00').catch((e) => e);
    expect(over.kind).toBe('validation_failed');
    expect(over.message).toMatch(/999\.50 still owed/);
    for (const bad of ['0', '-5', '1.234', 'abc', '1e3']) {
      expect((await t.fulfilment.recordPayment(a.companyId, ref, bad).catch((e) => e)).kind).toBe('validation_failed');
    }

    t.clock.now = new Date('2026-06-16T06:00:00Z'); // exactly 15 days: due, not yet overdue
    expect((await lookup())!.payment_status).toBe('partial');
    t.clock.now = new Date('2026-06-16T06:00:01Z');
    expect(await lookup()).toMatchObject({ payment_status: 'overdue', amount_due: '999.50' });

    await t.fulfilment.recordPayment(a.companyId, ref, '999.50');
    expect(await lookup()).toMatchObject({ payment_status: 'paid', amount_due: '0.00' });
    expect((await t.fulfilment.recordPayment(a.companyId, ref, '1').catch((e) => e)).message).toMatch(/already paid in full/);
  });

  it('an unpaid invoice with nothing received is overdue too', async () => {
    const a = await teeShop(ctx, '50');
    const t = atClock('2026-06-01T06:00:00Z');
    const ref = (await post(ctx, a.headers, orderBody({ payment: 'cod' }))).body.data.order_number;
    await t.fulfilment.move(a.companyId, ref, 'shipped');
    t.clock.now = new Date('2026-07-01T00:00:00Z');
    expect((await t.fulfilment.view(a.companyId, ref)).invoice).toMatchObject({ payment_status: 'overdue', amount_due: '499.00' });
  });

  it('prepaid is paid on issue and never overdue', async () => {
    const a = await teeShop(ctx, '50');
    const t = atClock('2026-06-01T06:00:00Z');
    const ref = (await post(ctx, a.headers, orderBody({ payment: 'prepaid' }))).body.data.order_number;
    expect((await t.fulfilment.issueInvoice(a.companyId, ref)).invoice).toMatchObject({ payment_status: 'paid', total: '499.00', amount_due: '0.00' });
    t.clock.now = new Date('2027-01-01T00:00:00Z');
    expect((await t.fulfilment.view(a.companyId, ref)).invoice!.payment_status).toBe('paid');
  });

  it('no invoice for drafts or cancelled orders; no payment without an invoice', async () => {
    const a = await teeShop(ctx, '50');
    const ref = (await post(ctx, a.headers, orderBody())).body.data.order_number;
    await expect(ctx.services.fulfilment.recordPayment(a.companyId, ref, '10')).rejects.toThrow(/no invoice yet/);
    await ctx.services.fulfilment.move(a.companyId, ref, 'cancelled');
    await expect(ctx.services.fulfilment.issueInvoice(a.companyId, ref)).rejects.toThrow(/cancelled; no invoice/);
  });
});
