import type { Db } from '../db/index.js';
import { recordAudit, type Actor } from '../db/audit-log.js';
import { discountCodeInput, type DiscountCode } from '../contract/checkout-admin.js';
import { notFound, validationError } from '../contract/errors.js';
import { issuesToDetails } from '../contract/validation.js';
import { evaluateDiscounts, type DiscountEvaluation } from './discounts.js';
import {
  countCustomerRedemptions,
  findDiscountCode,
  findDiscountCodes,
  findDiscountCodesNamed,
  insertDiscountCode,
  updateDiscountCode,
  type DiscountCodeRecord,
} from './discount-codes.queries.js';

export function discountCodeOut(d: DiscountCodeRecord): DiscountCode {
  return {
    ...d,
    starts_at: d.starts_at?.toISOString() ?? null,
    ends_at: d.ends_at?.toISOString() ?? null,
    created_at: d.created_at.toISOString(),
  };
}

function parseCode(input: unknown) {
  const parsed = discountCodeInput.safeParse(input);
  if (!parsed.success) throw validationError(issuesToDetails(parsed.error.issues));
  return parsed.data;
}

/** The fields a change names; those it leaves out (undefined) keep their value. */
const named = (patch: Record<string, unknown>) => Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));

/** A company's discount codes (admin CLI), and which of those a buyer entered apply. */
export function createDiscountCodeService({ db, clock = () => new Date() }: { db: Db; clock?: () => Date }) {
  const unknown = (code: string) => notFound(`no discount code "${code}" in this company`, [{ path: 'code', message: 'is not a code of this company' }]);

  /** Changes the fields named (`null` clears an optional one); the code as changed is checked whole. */
  async function update(companyId: string, actor: Actor, code: string, patch: Record<string, unknown>, action = 'discount.updated'): Promise<DiscountCode> {
    return db.tx(async (tx) => {
      const current = await findDiscountCode(tx, companyId, code.trim().toUpperCase(), true);
      if (!current) throw unknown(code);
      const changed = parseCode({ ...discountCodeOut(current), ...named(patch), code: current.code });
      const updated = await updateDiscountCode(tx, companyId, changed);
      await recordAudit(tx, companyId, actor, { action, subjectKind: 'discount_code', subjectId: current.code, detail: { fields: Object.keys(named(patch)) } });
      return discountCodeOut(updated);
    });
  }

  return {
    /** Adds a code. A code is never removed (orders name it), so a code once added cannot be added again. */
    async create(companyId: string, actor: Actor, input: unknown): Promise<DiscountCode> {
      const code = parseCode(input);
      return db.tx(async (tx) => {
        const created = await insertDiscountCode(tx, companyId, code, clock());
        if (!created) throw validationError([{ path: 'code', message: `the code ${code.code} already exists` }]);
        await recordAudit(tx, companyId, actor, {
          action: 'discount.added',
          subjectKind: 'discount_code',
          subjectId: created.code,
          detail: { fields: Object.keys(named(code)) },
        });
        return discountCodeOut(created);
      });
    },

    /** Every code, disabled ones too unless `activeOnly`. */
    async list(companyId: string, activeOnly = false): Promise<DiscountCode[]> {
      return (await findDiscountCodes(db, companyId, activeOnly)).map(discountCodeOut);
    },

    update: (companyId: string, actor: Actor, code: string, patch: Record<string, unknown>): Promise<DiscountCode> => update(companyId, actor, code, patch),

    /** Stops a code applying to checkouts from now on (kept: orders name it). */
    disable: (companyId: string, actor: Actor, code: string): Promise<DiscountCode> => update(companyId, actor, code, { active: false }, 'discount.disabled'),

    /**
     * Which of the codes a buyer entered apply to goods worth `goodsSubtotal` now (discounts.ts); with `customerId`, the
     * per-customer limits are checked against that customer's orders.
     */
    async evaluate(companyId: string, entered: readonly string[], goodsSubtotal: string, customerId: string | null = null): Promise<DiscountEvaluation> {
      const keys = [...new Set(entered.map((c) => c.trim().toUpperCase()))];
      const rows = keys.length ? await findDiscountCodesNamed(db, companyId, keys) : [];
      const customerRedemptions = customerId && rows.length ? await countCustomerRedemptions(db, companyId, customerId, keys) : undefined;
      return evaluateDiscounts(entered, rows, { now: clock(), goodsSubtotal, customerRedemptions });
    },
  };
}

export type DiscountCodeService = ReturnType<typeof createDiscountCodeService>;
