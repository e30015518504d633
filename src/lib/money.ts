import { Decimal as DecimalJs } from 'decimal.js';

/**
 * The one decimal type for money and quantities: 34 significant digits, half-up rounding (GST practice,
 * CGST Act s.170), never binary floats. Write money with `toFixed(2)`, quantities with `toFixed(3)`.
 */
export const Decimal = DecimalJs.clone({ precision: 34, rounding: DecimalJs.ROUND_HALF_UP });
export type Decimal = DecimalJs;

export const money = (value: DecimalJs.Value): string => new Decimal(value).toFixed(2);
export const qty = (value: DecimalJs.Value): string => new Decimal(value).toFixed(3);
