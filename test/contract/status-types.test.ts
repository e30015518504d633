import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES, SHIPMENT_STATUSES, type OrderStatus, type ShipmentStatus } from '../../src/contract/statuses.js';
import { ORDER_STATUS_LABELS, orderStatusLabel, SHIPMENT_STATUS_LABELS, shipmentStatusLabel } from '../../src/contract/status-labels.js';
import { ORDER_MOVES } from '../../src/fulfilment/lifecycle.service.js';
import { ADDRESS_CAN_CHANGE, DELIVERY_HELD_FOR_STAFF, LEFT_US, READY_TO_SHIP } from '../../src/fulfilment/status-rules.js';
import { SHIPMENT_MOVES, courierEntry, type AdapterName, type CourierConfig } from '../../src/couriers/index.js';
import { COURIER_REGISTRY } from '../../src/couriers/registry.js';

/**
 * Compile-time guards, checked by `npm run typecheck` (tsc includes test/): everything keyed by a status is keyed by
 * its union, so a new status (or a typo) is a compile error wherever it needs a decision. Each `@ts-expect-error`
 * fails the typecheck if the line it covers compiles, e.g. if a map went back to `Record<string, …>`.
 */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const keyedBy = <K extends PropertyKey>() => ({ map: <M extends Record<K, unknown>>(m: M & Record<Exclude<keyof M, K>, never>) => m });

// The maps are keyed by exactly the statuses: not `string`, not a subset.
const orderKeyed: [
  Equal<keyof typeof ORDER_STATUS_LABELS, OrderStatus>,
  Equal<keyof typeof ORDER_MOVES, OrderStatus>,
  Equal<keyof typeof ADDRESS_CAN_CHANGE, OrderStatus>,
  Equal<keyof typeof READY_TO_SHIP, OrderStatus>,
  Equal<keyof typeof DELIVERY_HELD_FOR_STAFF, OrderStatus>,
] = [true, true, true, true, true];
const shipmentKeyed: [
  Equal<keyof typeof SHIPMENT_STATUS_LABELS, ShipmentStatus>,
  Equal<keyof typeof SHIPMENT_MOVES, ShipmentStatus>,
  Equal<keyof typeof LEFT_US, ShipmentStatus>,
] = [true, true, true];
// The courier names are the registry's entries, nothing wider.
const adapterNames: Equal<AdapterName, (typeof COURIER_REGISTRY)[number]['name']> = true;
const notString: Equal<AdapterName, string> = false;

function typeErrors() {
  // @ts-expect-error a status outside the union has no label
  orderStatusLabel('shipping');
  // @ts-expect-error a shipment status outside the union has no label
  shipmentStatusLabel('lost_in_space');
  // @ts-expect-error a label map cannot be read by an arbitrary string
  void ORDER_STATUS_LABELS['on_hold'];
  // @ts-expect-error a rule cannot be read by an arbitrary string
  void READY_TO_SHIP['on_hold'];
  // @ts-expect-error an order move to a status that is not a target
  const moves: (typeof ORDER_MOVES)['draft'][number] = 'draft';
  // @ts-expect-error a courier the registry does not list
  const config: CourierConfig = { adapter: 'fedex', baseUrl: null, apiEmail: null, apiPassword: null, pickupLocation: null };
  // a status map missing one status does not compile (the shape every map above is declared with)
  // @ts-expect-error 'returned' is missing
  keyedBy<OrderStatus>().map({ draft: 1, confirmed: 1, packed: 1, shipped: 1, delivered: 1, cancelled: 1 });
  return [moves, config];
}

describe('status and courier enumerations', () => {
  it('are checked by the compiler (see the typecheck) and agree at run time', () => {
    expect([orderKeyed, shipmentKeyed, adapterNames, notString]).toEqual([[true, true, true, true, true], [true, true, true], true, false]);
    expect(typeof typeErrors).toBe('function');
    for (const s of ORDER_STATUSES) {
      expect(orderStatusLabel(s)).toBeTruthy();
      expect([ADDRESS_CAN_CHANGE[s], READY_TO_SHIP[s], DELIVERY_HELD_FOR_STAFF[s]].map((v) => typeof v)).toEqual(['boolean', 'boolean', 'boolean']);
      expect(Array.isArray(ORDER_MOVES[s])).toBe(true);
    }
    for (const s of SHIPMENT_STATUSES) {
      expect(shipmentStatusLabel(s)).toBeTruthy();
      expect(typeof LEFT_US[s]).toBe('boolean');
    }
    for (const c of COURIER_REGISTRY) expect(courierEntry(c.name)).toBe(c);
    expect(() => courierEntry('fedex')).toThrow(/unknown courier adapter "fedex"/);
  });

  it('keep the fulfilment rules that were literal lists: the same statuses as before', () => {
    const on = (r: Record<string, boolean>) => Object.keys(r).filter((k) => r[k]);
    expect(on(ADDRESS_CAN_CHANGE)).toEqual(['draft', 'confirmed', 'packed']);
    expect(on(READY_TO_SHIP)).toEqual(['confirmed', 'packed']);
    expect(on(DELIVERY_HELD_FOR_STAFF).sort()).toEqual(['cancelled', 'draft']);
    expect(on(LEFT_US)).toEqual(['picked_up', 'in_transit', 'out_for_delivery', 'delivered']);
  });
});
