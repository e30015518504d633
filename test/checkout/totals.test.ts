import { describe, expect, it } from 'vitest';
import { allocate, amountOf, assertAddsUp, computeTotals, invoiceLineFigures, type CheckoutTotals, type TotalsInput } from '../../src/checkout/totals.js';
import { taxTotals } from '../../src/lib/gst-tax.js';
import { prng } from '../helpers/prng.js';

/** Paise as rupees text, by integer arithmetic only (no decimal library, no float). */
const rupees = (p: bigint) => `${p / 100n}.${String(p % 100n).padStart(2, '0')}`;
const abs = (n: bigint) => (n < 0n ? -n : n);

/** The largest-remainder split worked out the slow way: floors, then a paisa at a time to the largest remainder left (the first on a tie). */
function largestRemainder(total: bigint, weights: bigint[]): bigint[] {
  const whole = weights.reduce((a, b) => a + b, 0n);
  if (total === 0n) return weights.map(() => 0n);
  const shares = weights.map((w) => (total * w) / whole);
  const remainders = weights.map((w) => (total * w) % whole);
  for (let left = total - shares.reduce((a, b) => a + b, 0n); left > 0n; left--) {
    let best = 0;
    remainders.forEach((rem, i) => {
      if (rem > remainders[best]) best = i;
    });
    shares[best] += 1n;
    remainders[best] = -1n;
  }
  return shares;
}

const line = (unitPrice: string, quantity: string, gstRate: string) => ({ unitPrice, quantity, gstRate });
const pct = (code: string, value: string, title = `${value}% Off`) => ({ code, title, kind: 'percentage' as const, value });
const fixed = (code: string, value: string) => ({ code, title: `₹${value} Off`, kind: 'fixed' as const, value });

describe('checkout totals: the worked example and the conformance suite’s numbers', () => {
  it('2 × ₹1,180 at 18%, 1 × ₹525 at 5%, 10% off, ₹99 shipping: ₹2,695.50 payable, GST per line after discount and shipping', () => {
    const t = computeTotals({ lines: [line('1180.00', '2', '18'), line('525.00', '1', '5')], discounts: [pct('SAVE10', '10')], shipping: '99.00' });
    expect(t.subtotal).toEqual({ decimal: '2885.00', paise: 288500 });
    expect(t.discount).toEqual({ decimal: '288.50', paise: 28850 });
    expect(t.fulfillment).toEqual({ decimal: '99.00', paise: 9900 });
    expect(t.total).toEqual({ decimal: '2695.50', paise: 269550 });
    expect(t.tax).toEqual({ decimal: '359.71', paise: 35971 });
    // shipping split by value after discount: 99 × 2124 / 2596.50 = 80.984… and 18.015…; the odd paisa to the larger remainder (B)
    expect(t.lines.map((l) => [l.subtotal.decimal, l.discount.decimal, l.shipping.decimal, l.amount.decimal, l.taxable.decimal, l.gst.decimal])).toEqual([
      ['2360.00', '236.00', '80.98', '2204.98', '1868.63', '336.35'],
      ['525.00', '52.50', '18.02', '490.52', '467.16', '23.36'],
    ]);
    expect(t.discounts).toEqual([expect.objectContaining({ code: 'SAVE10', amount: { decimal: '288.50', paise: 28850 } })]);
  });

  it('gives the invoice the same figures: CGST 179.86 + SGST 179.85 within the state, the total the checkout’s', () => {
    const t = computeTotals({ lines: [line('1180.00', '2', '18'), line('525.00', '1', '5')], discounts: [pct('SAVE10', '10')], shipping: '99.00' });
    const intra = invoiceLineFigures(t, 'intra');
    expect(intra.map((l) => [l.gross, l.discount, l.shipping, l.taxable, l.cgst, l.sgst])).toEqual([
      ['2204.98', '236.00', '80.98', '1868.63', '168.18', '168.17'],
      ['490.52', '52.50', '18.02', '467.16', '11.68', '11.68'],
    ]);
    expect(taxTotals(intra)).toEqual({ taxable: '2335.79', cgst: '179.86', sgst: '179.85', igst: '0.00', total: '2695.50' });
    expect(taxTotals(invoiceLineFigures(t, 'inter'))).toMatchObject({ igst: '359.71', total: '2695.50' });
    expect(taxTotals(invoiceLineFigures(t, 'none'))).toEqual({ taxable: '2695.50', cgst: '0.00', sgst: '0.00', igst: '0.00', total: '2695.50' });
  });

  it('applies codes in order to what the earlier left: 3500 → 10OFF 350 → 3150 → WELCOME20 630 → 2520', () => {
    const t = computeTotals({ lines: [line('35.00', '1', '5')], discounts: [pct('10OFF', '10'), pct('WELCOME20', '20')], shipping: null });
    expect(t.discounts.map((d) => [d.code, d.amount.paise])).toEqual([
      ['10OFF', 350],
      ['WELCOME20', 630],
    ]);
    expect(t.discount.paise).toBe(980);
    expect(t.total.paise).toBe(2520);
    expect(t.fulfillment).toBeNull();
    expect(t.lines[0].shipping.paise).toBe(0);
  });

  it('takes a fixed code whole: FIXED500 is 500 paise off 3500, and never more than the goods', () => {
    expect(computeTotals({ lines: [line('35.00', '1', '5')], discounts: [fixed('FIXED500', '5.00')], shipping: null }).discounts[0].amount.paise).toBe(500);
    const capped = computeTotals({ lines: [line('35.00', '1', '5')], discounts: [fixed('BIG', '50'), pct('10OFF', '10')], shipping: '49.00' });
    expect(capped.discounts.map((d) => d.amount.paise)).toEqual([3500, 0]);
    expect(capped.total).toEqual({ decimal: '49.00', paise: 4900 });
    // nothing left of the goods: shipping is split by the goods' value instead, and still taxed at the line's rate
    expect(capped.lines[0]).toMatchObject({ shipping: { paise: 4900 }, gst: { decimal: '2.33' } });
  });

  it('floors a percentage to the paisa: 10% of 33.35 is 3.33, not 3.34', () => {
    expect(computeTotals({ lines: [line('33.35', '1', '18')], discounts: [pct('10OFF', '10')], shipping: null }).discount.decimal).toBe('3.33');
  });

  it('rounds a line to the paisa half up: 0.333 kg at ₹99.99 is ₹33.30 (33.29667)', () => {
    expect(computeTotals({ lines: [line('99.99', '0.333', '5')], discounts: [], shipping: null }).subtotal.decimal).toBe('33.30');
  });

  it('splits a flat ₹250 over 2,360 and 525 as 204.51 and 45.49 (largest remainder)', () => {
    expect(allocate(25000n, [236000n, 52500n])).toEqual([20451n, 4549n]);
    expect(allocate(2n, [1n, 1n, 1n])).toEqual([1n, 1n, 0n]); // ties to the earlier share
    expect(allocate(0n, [0n, 0n])).toEqual([0n, 0n]);
    expect(() => allocate(1n, [0n, 0n])).toThrow(/nothing to split/);
  });

  it('gives paise for a rate’s price with at most two decimals, and refuses more', () => {
    expect(amountOf('49')).toEqual({ decimal: '49.00', paise: 4900 });
    expect(() => amountOf('49.005')).toThrow(/more than two decimals/);
  });
});

describe('checkout totals refuse figures that do not add up', () => {
  const good = () => computeTotals({ lines: [line('1180.00', '2', '18'), line('525.00', '1', '5')], discounts: [pct('SAVE10', '10')], shipping: '99.00' });
  const bump = (t: CheckoutTotals, edit: (t: CheckoutTotals) => void) => {
    const copy = structuredClone(t);
    edit(copy);
    return () => assertAddsUp(copy);
  };

  it('passes the figures it computed', () => {
    expect(() => assertAddsUp(good())).not.toThrow();
  });

  it('fails when a decimal and its paise disagree, a line’s GST moves, a share moves, or the total moves', () => {
    expect(bump(good(), (t) => (t.total.decimal = '2695.51'))).toThrow(/total is 2695.51 and 269550 paise/);
    expect(
      bump(good(), (t) => {
        t.lines[0].gst = { decimal: '336.36', paise: 33636 };
      }),
    ).toThrow(/line 0: taxable \+ GST ≠ amount/);
    expect(
      bump(good(), (t) => {
        t.lines[0].shipping = { decimal: '80.99', paise: 8099 };
        t.lines[0].amount = { decimal: '2204.99', paise: 220499 };
        t.lines[0].taxable = { decimal: '1868.64', paise: 186864 };
      }),
    ).toThrow(/lines’ shipping ≠ fulfillment/);
    expect(
      bump(good(), (t) => {
        t.total = { decimal: '2695.49', paise: 269549 };
      }),
    ).toThrow(/subtotal \+ fulfillment − discount ≠ total/);
    expect(
      bump(good(), (t) => {
        t.discounts[0].amount = { decimal: '288.49', paise: 28849 };
      }),
    ).toThrow(/codes ≠ discount/);
  });
});

/** A random cart: 1–8 lines at mixed rates, whole or 3-decimal quantities, prices with paise, 0–3 codes, shipping or not. */
function randomCart(r: ReturnType<typeof prng>) {
  const lines = Array.from({ length: r.int(1, 8) }, () => {
    const pricePaise = r.chance(0.05) ? 0 : r.int(1, 500_000);
    const thousandths = r.chance(0.6) ? r.int(1, 12) * 1000 : r.int(1, 20_000);
    const rate = r.pick([0, 5, 12, 18, 28]);
    return {
      pricePaise: BigInt(pricePaise),
      thousandths: BigInt(thousandths),
      rate: BigInt(rate),
      input: line(rupees(BigInt(pricePaise)), `${Math.floor(thousandths / 1000)}.${String(thousandths % 1000).padStart(3, '0')}`, String(rate)),
    };
  });
  const codes = Array.from({ length: r.int(0, 3) }, (_, i) => {
    if (r.chance(0.5)) {
      const hundredths = r.chance(0.5) ? r.int(1, 100) * 100 : r.int(1, 10_000);
      // floor of the percentage of what is left, in integer paise
      return { off: (base: bigint) => (base * BigInt(hundredths)) / 10000n, input: pct(`P${i}`, rupees(BigInt(hundredths))) };
    }
    const paise = BigInt(r.int(1, 300_000));
    return { off: (base: bigint) => (paise < base ? paise : base), input: fixed(`F${i}`, rupees(paise)) };
  });
  const shipping = r.chance(0.3) ? null : BigInt(r.chance(0.2) ? 0 : r.int(1, 50_000));
  const input: TotalsInput = { lines: lines.map((l) => l.input), discounts: codes.map((c) => c.input), shipping: shipping === null ? null : rupees(shipping) };
  return { lines, codes, shipping, input };
}

describe('checkout totals over random carts (seeded, replayable)', () => {
  it('adds up to the paisa, and every figure is the rule’s, worked out again in integer paise', () => {
    const seed = 20261127;
    const r = prng(seed);
    for (let n = 0; n < 600; n++) {
      const cart = randomCart(r);
      const where = `cart ${n} of seed ${seed}: ${JSON.stringify(cart.input)}`;
      const t = computeTotals(cart.input);

      // each line: price × quantity rounded half up to the paisa
      const subtotals = cart.lines.map((l) => (2n * l.pricePaise * l.thousandths + 1000n) / 2000n);
      expect(
        t.lines.map((l) => l.subtotal.paise),
        where,
      ).toEqual(subtotals.map(Number));
      const goods = subtotals.reduce((a, b) => a + b, 0n);
      expect(t.subtotal.paise, where).toBe(Number(goods));

      // codes in order on what is left: floor of the percentage, a fixed amount capped
      let base = goods;
      const perCode = cart.codes.map((c) => {
        const off = c.off(base);
        base -= off;
        return off;
      });
      expect(
        t.discounts.map((d) => d.amount.paise),
        where,
      ).toEqual(perCode.map(Number));
      const discount = goods - base;
      expect(t.discount.paise, where).toBe(Number(discount));
      expect(discount <= goods, where).toBe(true);

      // the discount over the lines by value, each share within a paisa of its exact share and never more than the line
      const shares = t.lines.map((l) => BigInt(l.discount.paise));
      expect(
        shares.reduce((a, b) => a + b, 0n),
        where,
      ).toBe(discount);
      shares.forEach((d, i) => {
        expect(d <= subtotals[i], where).toBe(true);
        if (goods > 0n) expect(abs(d * goods - discount * subtotals[i]) < goods, where).toBe(true);
      });
      expect(shares, where).toEqual(largestRemainder(discount, subtotals));

      // shipping over the lines by value after discount (by the goods' value when nothing is left)
      const shipping = cart.shipping ?? 0n;
      expect(t.fulfillment?.paise ?? null, where).toBe(cart.shipping === null ? null : Number(shipping));
      const nets = subtotals.map((s, i) => s - shares[i]);
      const weights = nets.some((v) => v > 0n) ? nets : subtotals.some((v) => v > 0n) ? subtotals : nets.map(() => 1n);
      const whole = weights.reduce((a, b) => a + b, 0n);
      const carried = t.lines.map((l) => BigInt(l.shipping.paise));
      expect(
        carried.reduce((a, b) => a + b, 0n),
        where,
      ).toBe(shipping);
      carried.forEach((h, i) => expect(abs(h * whole - shipping * weights[i]) < whole, where).toBe(true));
      expect(carried, where).toEqual(largestRemainder(shipping, weights));

      // per line: taxable + GST = amount after discount + shipping share; GST = amount × rate / (100 + rate), half up
      t.lines.forEach((l, i) => {
        const paid = nets[i] + carried[i];
        const rate = cart.lines[i].rate;
        const gst = (2n * paid * rate + (100n + rate)) / (2n * (100n + rate));
        expect(l.amount.paise, where).toBe(Number(paid));
        expect(l.gst.paise, where).toBe(Number(gst));
        expect(l.taxable.paise + l.gst.paise, where).toBe(Number(paid));
      });

      // the checkout: subtotal + fulfillment − discount = total = the lines; tax = the lines' GST; decimals = paise
      expect(t.total.paise, where).toBe(Number(goods + shipping - discount));
      expect(
        t.lines.reduce((a, l) => a + l.amount.paise, 0),
        where,
      ).toBe(t.total.paise);
      expect(t.tax.paise, where).toBe(t.lines.reduce((a, l) => a + l.gst.paise, 0));
      for (const a of [t.subtotal, t.discount, t.tax, t.total, ...(t.fulfillment ? [t.fulfillment] : []), ...t.lines.flatMap((l) => [l.taxable, l.gst])])
        expect(a.decimal, where).toBe(rupees(BigInt(a.paise)));

      // the invoice prints the same money
      expect(taxTotals(invoiceLineFigures(t, 'intra')).total, where).toBe(t.total.decimal);
    }
  });
});
