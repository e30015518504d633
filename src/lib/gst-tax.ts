import { Decimal, money } from './money.js';

/** How a tax is split on an invoice: CGST + SGST within the seller's state, IGST to another state, none when the seller is unregistered. */
export type TaxKind = 'intra' | 'inter' | 'none';

export interface TaxedLine {
  /** what the customer pays for the line, GST included (the order line's total) */
  gross: string;
  rate: string;
  taxable: string;
  cgst: string;
  sgst: string;
  igst: string;
}

/**
 * The GST contained in an amount that includes it: amount × rate / (100 + rate), rounded half up to the paisa. The one
 * rounding of GST out of an inclusive amount, for the checkout's totals and the invoice's lines alike.
 */
export function includedGst(gross: Decimal | string | number, rate: Decimal | string | number): Decimal {
  const r = new Decimal(rate);
  return new Decimal(gross).times(r).dividedBy(r.plus(100)).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
}

/**
 * GST out of a price that includes it, per line, so the lines always add up to what was charged:
 * tax = includedGst(gross, rate); taxable = gross − tax (the remainder, never rounded on its own); intra-state,
 * CGST = round(tax / 2, 2) half up and SGST = tax − CGST (SGST is the smaller by at most 0.01).
 * Unregistered sellers charge no GST: taxable = gross, no tax.
 */
export function taxLine(gross: Decimal | string | number, rate: Decimal | string | number, kind: TaxKind): TaxedLine {
  const g = new Decimal(gross);
  const r = new Decimal(rate);
  const zero = money(0);
  if (kind === 'none') return { gross: money(g), rate: money(0), taxable: money(g), cgst: zero, sgst: zero, igst: zero };
  const tax = includedGst(g, r);
  const taxable = g.minus(tax);
  if (kind === 'inter') return { gross: money(g), rate: money(r), taxable: money(taxable), cgst: zero, sgst: zero, igst: money(tax) };
  const cgst = tax.dividedBy(2).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  return { gross: money(g), rate: money(r), taxable: money(taxable), cgst: money(cgst), sgst: money(tax.minus(cgst)), igst: zero };
}

export interface TaxTotals {
  taxable: string;
  cgst: string;
  sgst: string;
  igst: string;
  total: string;
}

/** Column sums of taxed lines; `total` is the sum of the gross amounts, which taxable + taxes always equal. */
export function taxTotals(lines: TaxedLine[]): TaxTotals {
  const sum = (key: keyof TaxedLine) => money(lines.reduce((acc, l) => acc.plus(l[key]), new Decimal(0)));
  return { taxable: sum('taxable'), cgst: sum('cgst'), sgst: sum('sgst'), igst: sum('igst'), total: sum('gross') };
}

/** Tax table rows: one per GST rate, summed over the lines at that rate (as the tax summary of an invoice shows). */
export function taxByRate(lines: TaxedLine[]): (Omit<TaxTotals, 'total'> & { rate: string })[] {
  const byRate = new Map<string, TaxedLine[]>();
  for (const l of lines) byRate.set(l.rate, [...(byRate.get(l.rate) ?? []), l]);
  return [...byRate.entries()]
    .sort(([a], [b]) => new Decimal(a).comparedTo(b))
    .map(([rate, group]) => {
      const { taxable, cgst, sgst, igst } = taxTotals(group);
      return { rate, taxable, cgst, sgst, igst };
    });
}
