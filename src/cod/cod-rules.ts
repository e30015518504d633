import type { CodRule } from '../contract/cod.js';
import { money, type Decimal } from '../lib/money.js';
import { pinInRange } from '../lib/pincode.js';
import type { CodRuleFacts } from './cod-settings.queries.js';

/** A rule that refuses cash on delivery, and why in words a flow can pass on. */
export interface CodRefusal {
  rule: CodRule;
  message: string;
}

/** What is known of the order to be paid on delivery; a fact left out (undefined or null) leaves its rule unchecked. */
export interface CodOrder {
  pincode?: string | null;
  amount?: Decimal | null;
}

/**
 * The one evaluation of a company's COD rules, for POST /orders and place_order (cod-rules.service.ts `refuseBroken`)
 * and for the read-only check (`check`), so the two never disagree. Each limit is inclusive: an order at exactly
 * max_order_value, or a customer with exactly rto_threshold returns to origin, is still offered COD.
 */
export function codRefusals(facts: CodRuleFacts, order: CodOrder): { refusals: CodRefusal[]; notChecked: CodRule[] } {
  const refusals: CodRefusal[] = [];
  const notChecked: CodRule[] = [];

  if (facts.blocked_pincodes.length > 0) {
    if (!order.pincode) notChecked.push('blocked_pincode');
    else if (facts.blocked_pincodes.some((range) => pinInRange(Number(order.pincode), range)))
      refusals.push({ rule: 'blocked_pincode', message: `cash on delivery is not offered for PIN code ${order.pincode}; offer prepaid payment` });
  }

  if (facts.max_order_value !== null) {
    if (!order.amount) notChecked.push('max_order_value');
    else if (order.amount.gt(facts.max_order_value))
      refusals.push({
        rule: 'max_order_value',
        message: `cash on delivery is offered for orders up to ${money(facts.max_order_value)} INR; this one comes to ${money(order.amount)} INR; offer prepaid payment`,
      });
  }

  if (facts.rto_threshold !== null) {
    if (facts.returned_to_origin === null) notChecked.push('rto_threshold');
    else if (facts.returned_to_origin > facts.rto_threshold)
      refusals.push({
        rule: 'rto_threshold',
        message: `cash on delivery is not offered to this customer: ${facts.returned_to_origin} of their parcels came back undelivered (returned to origin), above the company's limit of ${facts.rto_threshold}; offer prepaid payment`,
      });
  }

  return { refusals, notChecked };
}
