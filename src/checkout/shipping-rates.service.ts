import type { Db } from '../db/index.js';
import { recordAudit, type Actor } from '../db/audit-log.js';
import { shippingRateInput, type ShippingRate } from '../contract/checkout-admin.js';
import { notFound, validationError } from '../contract/errors.js';
import { issuesToDetails } from '../contract/validation.js';
import { shippingOptions, type ShippingDestination, type ShippingQuote } from './shipping-options.js';
import {
  deactivateShippingRate,
  findShippingRate,
  findShippingRates,
  insertShippingRate,
  updateShippingRate,
  type ShippingRateRecord,
} from './shipping-rates.queries.js';

export function shippingRateOut(r: ShippingRateRecord): ShippingRate {
  return { ...r, created_at: r.created_at.toISOString() };
}

function parseRate(input: unknown) {
  const parsed = shippingRateInput.safeParse(input);
  if (!parsed.success) throw validationError(issuesToDetails(parsed.error.issues));
  return parsed.data;
}

/** The fields a change names; those it leaves out (undefined) keep their value. */
const named = (patch: Record<string, unknown>) => Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));

/** A company's shipping rates (admin CLI), and the options they give a checkout's destination. */
export function createShippingRateService({ db, clock = () => new Date() }: { db: Db; clock?: () => Date }) {
  const unknown = (id: string) => notFound(`no shipping rate "${id}" in this company`, [{ path: 'id', message: 'is not a rate of this company' }]);

  return {
    /** Adds a rate; the id of a removed rate may be used again (the rate is created afresh). */
    async create(companyId: string, actor: Actor, input: unknown): Promise<ShippingRate> {
      const rate = parseRate(input);
      return db.tx(async (tx) => {
        const created = await insertShippingRate(tx, companyId, rate, clock());
        if (!created) throw validationError([{ path: 'id', message: `a shipping rate "${rate.id}" already exists` }]);
        await recordAudit(tx, companyId, actor, {
          action: 'shipping_rate.added',
          subjectKind: 'shipping_rate',
          subjectId: rate.id,
          detail: { fields: Object.keys(named(rate)) },
        });
        return shippingRateOut(created);
      });
    },

    /** Every rate, removed ones too unless `activeOnly`. */
    async list(companyId: string, activeOnly = false): Promise<ShippingRate[]> {
      return (await findShippingRates(db, companyId, activeOnly)).map(shippingRateOut);
    },

    /** Changes the fields named (`null` clears an optional one); the rate as changed is checked whole. */
    async update(companyId: string, actor: Actor, id: string, patch: Record<string, unknown>): Promise<ShippingRate> {
      return db.tx(async (tx) => {
        const current = await findShippingRate(tx, companyId, id, true);
        if (!current) throw unknown(id);
        const rate = parseRate({ ...current, ...named(patch), id: current.id });
        const updated = await updateShippingRate(tx, companyId, rate);
        await recordAudit(tx, companyId, actor, {
          action: 'shipping_rate.updated',
          subjectKind: 'shipping_rate',
          subjectId: current.id,
          detail: { fields: Object.keys(named(patch)) },
        });
        return shippingRateOut(updated);
      });
    },

    /** Takes a rate out of what checkouts offer (kept, inactive: a checkout may still name it). */
    async remove(companyId: string, actor: Actor, id: string): Promise<ShippingRate> {
      return db.tx(async (tx) => {
        const removed = await deactivateShippingRate(tx, companyId, id);
        if (!removed) throw unknown(id);
        await recordAudit(tx, companyId, actor, { action: 'shipping_rate.removed', subjectKind: 'shipping_rate', subjectId: removed.id });
        return shippingRateOut(removed);
      });
    },

    /** The options a destination is offered for goods worth `goodsSubtotal` holding `skus` (shipping-options.ts). */
    async options(companyId: string, destination: ShippingDestination, goodsSubtotal: string, skus: readonly string[]): Promise<ShippingQuote> {
      return shippingOptions(await findShippingRates(db, companyId, true), destination, goodsSubtotal, skus);
    },
  };
}

export type ShippingRateService = ReturnType<typeof createShippingRateService>;
