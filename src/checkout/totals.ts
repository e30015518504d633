import { includedGst, taxLine, type TaxedLine, type TaxKind } from '../lib/gst-tax.js';
import { Decimal, money } from '../lib/money.js';

/**
 * A checkout's money, computed in one place and turned into paise here only (UCP's integer amounts, the payment
 * provider's amount): the order's amount and its invoice are these same figures. Prices include GST, so
 * total = subtotal + fulfillment − discount, and `tax` is the GST that total contains (shown, never added).
 *
 * - A line's subtotal is unit price × quantity, rounded half up to the paisa (as an order line's total).
 * - Codes apply in the order given, each to what the earlier ones left of the goods: a percentage takes
 *   floor(base × pct / 100) to the paisa, a fixed code min(value, base). The discount is split over the lines by their
 *   subtotal and lowers each line's taxable value (CGST Act s.15(3)(a)).
 * - Shipping charged with the goods is part of a composite supply whose principal supply is the goods (s.2(30), s.8(a)):
 *   it is split over the lines by their value after discount and each share takes its line's rate.
 * - Splits are to the paisa by largest remainder, so the shares add up exactly.
 * - A line's GST = includedGst(subtotal − discount + shipping share, rate): rounded half up to the paisa, per line.
 */

/** One amount both ways: rupees with two decimals, and whole paise (the same value). */
export interface Amount {
  decimal: string;
  paise: number;
}

export interface TotalsLineInput {
  /** price of one unit, GST included, e.g. "1180.00" */
  unitPrice: string;
  /** e.g. "2" or "0.750" (at most 3 decimals) */
  quantity: string;
  /** GST rate in percent, e.g. "18" */
  gstRate: string;
}

export interface TotalsDiscountInput {
  code: string;
  title: string;
  kind: 'percentage' | 'fixed';
  /** percent off (percentage) or rupees off (fixed) */
  value: string;
}

export interface TotalsInput {
  lines: readonly TotalsLineInput[];
  /** the selected shipping option's price, GST included; null when none is selected */
  shipping: string | null;
  /** the codes that apply, in the order the buyer gave them */
  discounts: readonly TotalsDiscountInput[];
}

export interface LineTotals {
  /** GST rate, two decimals as on an invoice ("18.00") */
  rate: string;
  /** unit price × quantity */
  subtotal: Amount;
  /** the line's share of the order's discount */
  discount: Amount;
  /** the line's share of shipping */
  shipping: Amount;
  /** subtotal − discount + shipping: what the buyer pays for the line, GST included */
  amount: Amount;
  /** amount − gst */
  taxable: Amount;
  gst: Amount;
}

export interface AppliedDiscount extends TotalsDiscountInput {
  amount: Amount;
}

export interface CheckoutTotals {
  lines: LineTotals[];
  /** the goods: sum of the lines' subtotals */
  subtotal: Amount;
  /** the selected shipping option; null when none is selected */
  fulfillment: Amount | null;
  /** each code with what it took, in the order applied */
  discounts: AppliedDiscount[];
  discount: Amount;
  /** GST contained in the total (informational: prices include it) */
  tax: Amount;
  total: Amount;
}

const sum = (values: readonly bigint[]) => values.reduce((a, b) => a + b, 0n);

/** Whole paise of a decimal amount with at most two decimals. */
function toPaise(value: Decimal | string, what: string): bigint {
  const d = new Decimal(value).times(100);
  if (!d.isInteger()) throw new Error(`${what} ${String(value)} has more than two decimals`);
  return BigInt(d.toFixed(0));
}

function amount(paise: bigint): Amount {
  const n = Number(paise);
  if (!Number.isSafeInteger(n)) throw new Error(`amount of ${paise} paise is out of range`);
  return { decimal: money(new Decimal(paise.toString()).dividedBy(100)), paise: n };
}

/** An amount in rupees with at most two decimals (a shipping rate's price, say) in both forms. */
export function amountOf(rupees: string): Amount {
  return amount(toPaise(rupees, 'amount'));
}

/**
 * `total` split in proportion to `weights`, in whole units that add up to `total` exactly: each share is floored, and the
 * units left over go one each to the largest remainders, ties to the earlier share.
 */
export function allocate(total: bigint, weights: readonly bigint[]): bigint[] {
  if (total < 0n || weights.some((w) => w < 0n)) throw new Error('allocate takes no negative amounts');
  if (total === 0n) return weights.map(() => 0n);
  const whole = sum(weights);
  if (whole === 0n) throw new Error(`nothing to split ${total} over`);
  const shares = weights.map((w) => (total * w) / whole);
  const remainders = weights.map((w) => (total * w) % whole);
  const byRemainder = weights.map((_, i) => i).sort((a, b) => (remainders[b] > remainders[a] ? 1 : remainders[b] < remainders[a] ? -1 : a - b));
  const left = Number(total - sum(shares));
  for (let k = 0; k < left; k++) shares[byRemainder[k]] += 1n;
  return shares;
}

/** What each code takes, applied in order to what the earlier ones left of the goods. */
function discountAmounts(goods: bigint, discounts: readonly TotalsDiscountInput[]): bigint[] {
  let base = goods;
  return discounts.map((d) => {
    const value = new Decimal(d.value);
    if (value.lte(0) || (d.kind === 'percentage' && value.gt(100))) throw new Error(`discount ${d.code} has value ${d.value}`);
    const taken =
      d.kind === 'percentage' ? BigInt(new Decimal(base.toString()).times(value).dividedBy(100).floor().toFixed(0)) : toPaise(value, `discount ${d.code}`);
    const off = taken < base ? taken : base;
    base -= off;
    return off;
  });
}

/** The weights shipping is split by: value after discount; when that is nothing, the goods' value; else equal. */
function shippingWeights(nets: bigint[], subtotals: bigint[]): bigint[] {
  if (sum(nets) > 0n) return nets;
  if (sum(subtotals) > 0n) return subtotals;
  return nets.map(() => 1n);
}

/** The checkout's money: per line and in total, decimals and paise, checked to add up (assertAddsUp). */
export function computeTotals(input: TotalsInput): CheckoutTotals {
  const rates = input.lines.map((l) => new Decimal(l.gstRate));
  const subtotals = input.lines.map((l, i) => {
    const unit = new Decimal(l.unitPrice);
    const quantity = new Decimal(l.quantity);
    if (unit.lt(0) || quantity.lte(0) || rates[i].lt(0) || rates[i].gte(100))
      throw new Error(`line ${i} has price ${l.unitPrice}, quantity ${l.quantity}, rate ${l.gstRate}`);
    return toPaise(unit.times(quantity).toDecimalPlaces(2, Decimal.ROUND_HALF_UP), `line ${i}`);
  });
  const goods = sum(subtotals);
  const perCode = discountAmounts(goods, input.discounts);
  const discount = sum(perCode);
  const lineDiscounts = allocate(discount, subtotals);
  const nets = subtotals.map((s, i) => s - lineDiscounts[i]);

  const shipping = input.shipping === null ? null : toPaise(input.shipping, 'shipping');
  if (shipping !== null && shipping < 0n) throw new Error(`shipping ${input.shipping} is negative`);
  if (shipping && input.lines.length === 0) throw new Error('shipping without goods');
  const lineShipping = allocate(shipping ?? 0n, shippingWeights(nets, subtotals));

  const lines = input.lines.map((_, i): LineTotals => {
    const paid = nets[i] + lineShipping[i];
    const gst = toPaise(includedGst(new Decimal(paid.toString()).dividedBy(100), rates[i]), `GST of line ${i}`);
    return {
      rate: money(rates[i]),
      subtotal: amount(subtotals[i]),
      discount: amount(lineDiscounts[i]),
      shipping: amount(lineShipping[i]),
      amount: amount(paid),
      taxable: amount(paid - gst),
      gst: amount(gst),
    };
  });
  const totals: CheckoutTotals = {
    lines,
    subtotal: amount(goods),
    fulfillment: shipping === null ? null : amount(shipping),
    discounts: input.discounts.map((d, i) => ({ code: d.code, title: d.title, kind: d.kind, value: d.value, amount: amount(perCode[i]) })),
    discount: amount(discount),
    tax: amount(sum(lines.map((l) => BigInt(l.gst.paise)))),
    total: amount(goods + (shipping ?? 0n) - discount),
  };
  assertAddsUp(totals);
  return totals;
}

/**
 * Throws unless the figures add up, in paise and in decimals alike: each amount's two forms agree; lines to subtotal,
 * discount and shipping; codes to the discount, which is at most the goods; per line subtotal − discount + shipping =
 * amount = taxable + GST; subtotal + fulfillment − discount = total = the lines' amounts; tax = the lines' GST.
 */
export function assertAddsUp(t: CheckoutTotals): void {
  const fail = (what: string) => {
    throw new Error(`checkout totals do not add up: ${what}`);
  };
  const both = (a: Amount, what: string): bigint => {
    if (!Number.isSafeInteger(a.paise) || a.paise < 0) fail(`${what} is ${a.paise} paise`);
    if (!/^\d+\.\d{2}$/.test(a.decimal) || toPaise(a.decimal, what) !== BigInt(a.paise)) fail(`${what} is ${a.decimal} and ${a.paise} paise`);
    return BigInt(a.paise);
  };
  const column = (pick: (l: LineTotals) => Amount, what: string) => sum(t.lines.map((l, i) => both(pick(l), `line ${i} ${what}`)));
  const subtotal = both(t.subtotal, 'subtotal');
  const fulfillment = t.fulfillment ? both(t.fulfillment, 'fulfillment') : 0n;
  const discount = both(t.discount, 'discount');
  const total = both(t.total, 'total');
  t.lines.forEach((l, i) => {
    const paid = both(l.amount, `line ${i} amount`);
    if (both(l.subtotal, `line ${i}`) - both(l.discount, `line ${i} discount`) + both(l.shipping, `line ${i} shipping`) !== paid)
      fail(`line ${i}: subtotal − discount + shipping ≠ amount`);
    if (both(l.taxable, `line ${i} taxable`) + both(l.gst, `line ${i} GST`) !== paid) fail(`line ${i}: taxable + GST ≠ amount`);
  });
  if (column((l) => l.subtotal, 'subtotal') !== subtotal) fail('lines ≠ subtotal');
  if (column((l) => l.discount, 'discount') !== discount) fail('lines’ discounts ≠ discount');
  if (column((l) => l.shipping, 'shipping') !== fulfillment) fail('lines’ shipping ≠ fulfillment');
  if (sum(t.discounts.map((d) => both(d.amount, `code ${d.code}`))) !== discount) fail('codes ≠ discount');
  if (discount > subtotal) fail('discount > subtotal');
  if (subtotal + fulfillment - discount !== total) fail('subtotal + fulfillment − discount ≠ total');
  if (column((l) => l.amount, 'amount') !== total) fail('lines’ amounts ≠ total');
  if (column((l) => l.gst, 'GST') !== both(t.tax, 'tax')) fail('lines’ GST ≠ tax');
}

/** A line as an invoice prints it: what the goods came to, its discount and shipping share, then GST split by `kind`. */
export interface InvoiceLineFigures extends TaxedLine {
  subtotal: string;
  discount: string;
  shipping: string;
}

/**
 * The invoice's figures for the checkout's lines, in the same order: `gross` is the line's amount, and taxable and GST
 * are the checkout's own (the same rounding in gst-tax.ts), so the invoice's total is the checkout's total.
 */
export function invoiceLineFigures(totals: CheckoutTotals, kind: TaxKind): InvoiceLineFigures[] {
  return totals.lines.map((l) => ({
    subtotal: l.subtotal.decimal,
    discount: l.discount.decimal,
    shipping: l.shipping.decimal,
    ...taxLine(l.amount.decimal, l.rate, kind),
  }));
}
