import type { DiscountCodeRow } from '../db/schema/checkout.js';
import { Decimal, money } from '../lib/money.js';
import type { TotalsDiscountInput } from './totals.js';

/** Which of the codes a buyer entered apply, and why each other one does not (no SQL: the rows are handed in). */

export type DiscountCode = Pick<
  DiscountCodeRow,
  'code' | 'title' | 'kind' | 'value' | 'min_order' | 'starts_at' | 'ends_at' | 'usage_limit' | 'per_customer_limit' | 'used_count' | 'active'
>;

export type RejectionReason = 'unknown' | 'inactive' | 'not_yet_valid' | 'expired' | 'usage_limit_reached' | 'per_customer_limit_reached' | 'below_minimum';

/** A UCP `messages` entry: a warning, since the buyer expected a discount and will not get it. */
export interface DiscountMessage {
  type: 'warning';
  code: string;
  /** `$.discounts.codes[i]`, i the code's place in `codes` */
  path: string;
  content: string;
}

export interface AppliedCode extends TotalsDiscountInput {
  /** the code's place in `codes` */
  index: number;
}

export interface RejectedCode {
  /** as the buyer typed it */
  code: string;
  index: number;
  reason: RejectionReason;
  message: DiscountMessage;
}

export interface DiscountEvaluation {
  /** the codes entered, trimmed, each once (the first spelling kept), in the order given */
  codes: string[];
  /** in the order given: the order totals.ts applies them in */
  applied: AppliedCode[];
  rejected: RejectedCode[];
}

export interface DiscountContext {
  now: Date;
  /** the goods' value before any discount, what a code's minimum order is compared with */
  goodsSubtotal: string;
  /**
   * The buyer's earlier orders with each code (upper case); undefined when the buyer is not known yet, and the
   * per-customer limit is then checked when the order is placed.
   */
  customerRedemptions?: ReadonlyMap<string, number>;
}

/**
 * The UCP message code of each reason: the specification's own where one says it (`discount_code_invalid`: not
 * found; `discount_code_expired`; `discount_code_user_ineligible`: this buyer may not), a plain name where none does.
 */
const MESSAGE_CODE: Record<RejectionReason, string> = {
  unknown: 'discount_code_invalid',
  inactive: 'discount_code_invalid',
  not_yet_valid: 'discount_code_not_yet_valid',
  expired: 'discount_code_expired',
  usage_limit_reached: 'discount_code_usage_limit_reached',
  per_customer_limit_reached: 'discount_code_user_ineligible',
  below_minimum: 'discount_code_minimum_not_met',
};

function content(reason: RejectionReason, typed: string, row: DiscountCode | undefined): string {
  const name = `Code '${typed}'`;
  switch (reason) {
    case 'unknown':
      return `${name} is not valid`;
    case 'inactive':
      return `${name} is no longer valid`;
    case 'not_yet_valid':
      return `${name} is not valid yet`;
    case 'expired':
      return `${name} has expired`;
    case 'usage_limit_reached':
      return `${name} has been fully used`;
    case 'per_customer_limit_reached':
      return `${name} has already been used the most times allowed per customer`;
    case 'below_minimum':
      return `${name} needs an order of at least ₹${money(row!.min_order!)}`;
  }
}

/** Why a known code does not apply now, or null when it does. Checked in this order, so the reason given is the first. */
function rejection(row: DiscountCode | undefined, ctx: DiscountContext): RejectionReason | null {
  if (!row) return 'unknown';
  if (!row.active) return 'inactive';
  const now = ctx.now.getTime();
  if (row.starts_at && row.starts_at.getTime() > now) return 'not_yet_valid';
  if (row.ends_at && row.ends_at.getTime() <= now) return 'expired';
  if (row.usage_limit !== null && row.used_count >= row.usage_limit) return 'usage_limit_reached';
  const mine = ctx.customerRedemptions ? (ctx.customerRedemptions.get(row.code) ?? 0) : undefined;
  if (row.per_customer_limit !== null && mine !== undefined && mine >= row.per_customer_limit) return 'per_customer_limit_reached';
  if (row.min_order !== null && new Decimal(ctx.goodsSubtotal).lt(row.min_order)) return 'below_minimum';
  return null;
}

/**
 * Codes are matched case-insensitively (stored upper case); a code entered twice counts once, where it was first
 * entered. A code is valid from `starts_at` (inclusive) until `ends_at` (exclusive); it needs goods of at least
 * `min_order`; it is used up when `used_count` reaches `usage_limit`, and for this buyer when their orders with it
 * reach `per_customer_limit`.
 */
export function evaluateDiscounts(entered: readonly string[], rows: readonly DiscountCode[], ctx: DiscountContext): DiscountEvaluation {
  const byCode = new Map(rows.map((r) => [r.code.toUpperCase(), r]));
  const firstSpelling = new Map<string, string>();
  for (const typed of entered.map((c) => c.trim())) if (!firstSpelling.has(typed.toUpperCase())) firstSpelling.set(typed.toUpperCase(), typed);
  const codes = [...firstSpelling.values()];
  const result: DiscountEvaluation = { codes, applied: [], rejected: [] };
  codes.forEach((typed, index) => {
    const row = byCode.get(typed.toUpperCase());
    const reason = rejection(row, ctx);
    if (reason === null) {
      result.applied.push({ code: row!.code, title: row!.title, kind: row!.kind, value: row!.value, index });
      return;
    }
    const path = `$.discounts.codes[${index}]`;
    result.rejected.push({ code: typed, index, reason, message: { type: 'warning', code: MESSAGE_CODE[reason], path, content: content(reason, typed, row) } });
  });
  return result;
}
