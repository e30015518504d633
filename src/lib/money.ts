import { Decimal as DecimalJs } from 'decimal.js';

/**
 * The one decimal type for money and quantities: 34 significant digits, half-up rounding (GST practice,
 * CGST Act s.170), never binary floats. Write money with `toFixed(2)`, quantities with `toFixed(3)`.
 */
export const Decimal = DecimalJs.clone({ precision: 34, rounding: DecimalJs.ROUND_HALF_UP });
export type Decimal = DecimalJs;

export const money = (value: DecimalJs.Value): string => new Decimal(value).toFixed(2);
export const qty = (value: DecimalJs.Value): string => new Decimal(value).toFixed(3);

/**
 * Whole paise of a rupee amount with at most two decimals, as a payment provider and WhatsApp take it; a third decimal
 * or an amount past a safe integer throws (never rounded into a different amount than meant).
 */
export function paise(rupees: DecimalJs.Value): number {
  const d = new Decimal(rupees).times(100);
  if (!d.isInteger()) throw new Error(`amount ${String(rupees)} has more than two decimals`);
  const n = d.toNumber();
  if (!Number.isSafeInteger(n)) throw new Error(`amount ${String(rupees)} is out of range`);
  return n;
}
