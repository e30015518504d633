import type { Db } from '../db/index.js';
import type { Tenant } from '../keys/keys.service.js';
import { AppError, validationError } from '../contract/errors.js';
import type { CodAvailability, CodAvailabilityQuery } from '../contract/cod.js';
import { Decimal } from '../lib/money.js';
import { normalizePhone } from '../lib/phone.js';
import { codRefusals, type CodRefusal } from './cod-rules.js';
import { findCodRuleFacts } from './cod-settings.queries.js';

/** A COD order about to be placed, as the order path knows it. */
export interface CodOrderToPlace {
  /** the PIN code of the delivery address used (given, or on file); null when the order has none yet */
  pincode: string | null;
  /** where that PIN came from in the request: `delivery_address.pincode`, or `delivery_address` for the address on file */
  pincodePath: string;
  amount: Decimal;
  phoneE164: string;
}

/** The request field each rule answers to on POST /orders and place_order. */
const ORDER_PATHS = { max_order_value: 'items', rto_threshold: 'customer.phone' } as const;

/**
 * The company's COD rules at work: refusing a COD order that breaks one (POST /orders, place_order, with one read:
 * findCodRuleFacts) and answering whether COD is available (GET /cod/availability, check_cod_availability). Both read
 * the same facts and evaluate them with the same function (cod-rules.ts `codRefusals`).
 */
export function createCodRulesService({ db }: { db: Db }) {
  /** The rules a COD order with these facts breaks (none: COD is offered); a checkout completing with COD asks this too. */
  async function refusalsFor(companyId: string, order: { pincode: string | null; amount: Decimal; phoneE164: string | null }): Promise<CodRefusal[]> {
    return codRefusals(await findCodRuleFacts(db, companyId, order.phoneE164), order).refusals;
  }

  return {
    refusalsFor,

    /**
     * Throws 422 `unprocessable` when the COD order breaks a rule, `details` naming each rule broken with the request
     * field it answers to. Called before anything is written; the order path calls it for COD orders only.
     */
    async refuseBroken(companyId: string, order: CodOrderToPlace): Promise<void> {
      const refusals = await refusalsFor(companyId, order);
      if (refusals.length === 0) return;
      const path = (rule: (typeof refusals)[number]['rule']) => (rule === 'blocked_pincode' ? order.pincodePath : ORDER_PATHS[rule]);
      throw new AppError(
        'unprocessable',
        `cash on delivery is refused by the company's COD rules (${refusals.map((r) => r.rule).join(', ')}); nothing was created; place the order as prepaid`,
        refusals.map((r) => ({ rule: r.rule, path: path(r.rule), message: r.message })),
      );
    },

    /** GET /cod/availability: whether a COD order with these facts would be accepted now, and if not, which rules refuse it. */
    async check(tenant: Tenant, query: CodAvailabilityQuery): Promise<CodAvailability> {
      let phoneE164: string | null = null;
      if (query.phone !== undefined) {
        const p = normalizePhone(query.phone);
        if (!p.ok) throw validationError([{ path: 'phone', message: p.message }]);
        phoneE164 = p.e164;
      }
      const facts = await findCodRuleFacts(db, tenant.companyId, phoneE164);
      const { refusals, notChecked } = codRefusals(facts, { pincode: query.pincode, amount: query.amount === undefined ? null : new Decimal(query.amount) });
      return { available: refusals.length === 0, refusals, not_checked: notChecked };
    },
  };
}

export type CodRulesService = ReturnType<typeof createCodRulesService>;
