import type { ShippingRateRow } from '../db/schema/checkout.js';
import { Decimal } from '../lib/money.js';
import { officialStateName, pinInRange, resolveDeliveryState } from '../lib/pincode.js';
import { amountOf, type Amount } from './totals.js';

/** The options a destination is offered, from the company's shipping rates (no SQL: the rates are handed in). */

export type ShippingRate = Pick<
  ShippingRateRow,
  'id' | 'title' | 'description' | 'level' | 'zone_kind' | 'zone_values' | 'price' | 'free_above' | 'free_skus' | 'active'
>;
export type ServiceLevel = ShippingRate['level'];

export interface ShippingDestination {
  /** ISO 3166-1 alpha-2 code, any case; without it nothing is offered */
  country?: string | null;
  /** the state or region as the buyer gave it */
  state?: string | null;
  /** for India, the 6-digit PIN code */
  postalCode?: string | null;
}

export interface ShippingOption {
  /** the rate's id */
  id: string;
  /** the rate's title, with " (Free)" when free */
  title: string;
  description: string | null;
  level: ServiceLevel;
  price: Amount;
}

export interface ShippingQuote {
  options: ShippingOption[];
  /** why an Indian address gets no options (its PIN is not valid, or a shared PIN needs the state); else null */
  problem: string | null;
}

/** How specific a zone is: per service level, the most specific matching rate wins. */
const SPECIFICITY: Record<ShippingRate['zone_kind'], number> = { pincodes: 3, states: 2, countries: 1, everywhere: 0 };
const LEVEL_ORDER: Record<ServiceLevel, number> = { standard: 0, express: 1 };

/** Where a destination is, as the zones read it: the PIN and state only for India (PIN ranges and states are Indian). */
interface Place {
  country: string;
  pin: number | null;
  state: string | null;
}

function placeOf(destination: ShippingDestination): Place | { problem: string | null } {
  const country = destination.country?.trim().toUpperCase();
  if (!country) return { problem: null };
  if (country !== 'IN') return { country, pin: null, state: null };
  const pin = destination.postalCode?.replace(/\s+/g, '') ?? '';
  if (pin === '') return { country, pin: null, state: officialStateName(destination.state) };
  const resolved = resolveDeliveryState(pin, destination.state);
  return resolved.ok ? { country, pin: Number(pin), state: resolved.state } : { problem: resolved.message };
}

function matches(rate: ShippingRate, place: Place): boolean {
  switch (rate.zone_kind) {
    case 'pincodes':
      return place.pin !== null && rate.zone_values.some((range) => pinInRange(place.pin!, range));
    case 'states':
      return place.state !== null && rate.zone_values.some((state) => officialStateName(state) === place.state);
    case 'countries':
      return rate.zone_values.some((code) => code.trim().toUpperCase() === place.country);
    case 'everywhere':
      return true;
  }
}

/** At one service level: the most specific zone, then the lower price, then the id (so two overlapping zones cannot flip). */
function better(a: ShippingRate, b: ShippingRate): ShippingRate {
  const bySpecificity = SPECIFICITY[a.zone_kind] - SPECIFICITY[b.zone_kind];
  if (bySpecificity !== 0) return bySpecificity > 0 ? a : b;
  const byPrice = new Decimal(a.price).comparedTo(b.price);
  if (byPrice !== 0) return byPrice < 0 ? a : b;
  return a.id <= b.id ? a : b;
}

/**
 * The options for a destination: one per service level from the active rates whose zone holds it (the most specific
 * zone winning: PIN codes, states, countries, everywhere), free (price 0, title + " (Free)") when the goods come to
 * `free_above` or more or the cart holds one of `free_skus`; sorted by price, then standard before express.
 * No country: no options.
 */
export function shippingOptions(
  rates: readonly ShippingRate[],
  destination: ShippingDestination,
  goodsSubtotal: string,
  skus: readonly string[],
): ShippingQuote {
  const place = placeOf(destination);
  if (!('country' in place)) return { options: [], problem: place.problem };
  const chosen = new Map<ServiceLevel, ShippingRate>();
  for (const rate of rates) {
    if (!rate.active || !matches(rate, place)) continue;
    const current = chosen.get(rate.level);
    chosen.set(rate.level, current ? better(current, rate) : rate);
  }
  const goods = new Decimal(goodsSubtotal);
  const inCart = new Set(skus);
  const options = [...chosen.values()].map((rate): ShippingOption => {
    const free = (rate.free_above !== null && goods.gte(rate.free_above)) || rate.free_skus.some((sku) => inCart.has(sku));
    return {
      id: rate.id,
      title: free ? `${rate.title} (Free)` : rate.title,
      description: rate.description,
      level: rate.level,
      price: amountOf(free ? '0' : rate.price),
    };
  });
  options.sort((a, b) => a.price.paise - b.price.paise || LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level]);
  return { options, problem: null };
}
