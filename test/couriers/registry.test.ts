import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import {
  COURIER_ADAPTERS,
  COURIER_REGISTRY,
  courierAdapter,
  CourierError,
  courierStatus,
  SHIPMENT_STATUSES,
  trackingUrlFor,
} from '../../src/couriers/index.js';
import { ORDER_STATUSES } from '../../src/contract/statuses.js';
import { ORDER_STATUS_LABELS, SHIPMENT_STATUS_LABELS } from '../../src/contract/status-labels.js';

/**
 * The courier registry (src/couriers/registry.ts) is the one list of couriers, and the status unions the one list
 * of statuses: the database's CHECK constraints must say the same, every status has a label, and no second list of
 * courier names comes back beside the registry.
 */
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

/** The quoted values of a CHECK constraint on `table.column` (`CHECK ((col = ANY (ARRAY['a'::text, …])))`). */
async function checkValues(table: string, column: string): Promise<string[]> {
  const rows = await t.db.query<{ def: string }>(sql`
    SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c
    WHERE c.contype = 'c' AND c.conrelid = ${table}::regclass AND c.conname = ${`${table}_${column}_check`}`);
  expect(rows, `${table}.${column} has its CHECK`).toHaveLength(1);
  return [...rows[0].def.matchAll(/'([^']*)'/g)].map((m) => m[1]).sort();
}

describe('the database holds the names the code lists', () => {
  it('courier_configs.adapter and shipments.adapter accept exactly the registry couriers', async () => {
    const names = COURIER_REGISTRY.map((c) => c.name).sort();
    expect(names).toEqual([...COURIER_ADAPTERS].sort());
    expect(await checkValues('courier_configs', 'adapter')).toEqual(names);
    expect(await checkValues('shipments', 'adapter')).toEqual(names);
  });

  it('orders.status and shipments.status accept exactly the status unions, and every status has a label', async () => {
    expect(await checkValues('orders', 'status')).toEqual([...ORDER_STATUSES].sort());
    expect(await checkValues('shipments', 'status')).toEqual([...SHIPMENT_STATUSES].sort());
    expect(Object.keys(ORDER_STATUS_LABELS).sort()).toEqual([...ORDER_STATUSES].sort());
    expect(Object.keys(SHIPMENT_STATUS_LABELS).sort()).toEqual([...SHIPMENT_STATUSES].sort());
    for (const label of [...Object.values(ORDER_STATUS_LABELS), ...Object.values(SHIPMENT_STATUS_LABELS)]) expect(label).toMatch(/^[A-Z][a-z ]+$/);
  });
});

describe('each registry entry', () => {
  it('has a unique name, a settings schema that refuses nothing-at-all unless it needs nothing, and a status mapping', () => {
    expect(new Set(COURIER_ADAPTERS).size).toBe(COURIER_ADAPTERS.length);
    for (const entry of COURIER_REGISTRY) {
      expect(entry.name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(entry.mapStatus('Delivered'), entry.name).toBe('delivered');
      expect(trackingUrlFor(entry.name, null)).toBeNull();
    }
    expect(COURIER_REGISTRY.find((c) => c.name === 'manual')!.configSchema.safeParse({}).success).toBe(true);
    for (const name of ['shiprocket', 'delhivery'] as const)
      expect(COURIER_REGISTRY.find((c) => c.name === name)!.configSchema.safeParse({}).success).toBe(false);
  });

  it('makes no adapter from settings its courier cannot use: a permanent error naming what is missing, no secret', () => {
    const err = (() => {
      try {
        courierAdapter({ adapter: 'shiprocket', baseUrl: null, apiEmail: null, apiPassword: null, pickupLocation: null });
      } catch (e) {
        return e as CourierError;
      }
    })();
    expect(err).toBeInstanceOf(CourierError);
    expect(err).toMatchObject({ retryable: false, message: 'courier "shiprocket" is not fully configured (base URL, email and password)' });
    expect(courierAdapter(null).name).toBe('manual');
    expect(courierAdapter({ adapter: 'delhivery', baseUrl: null, apiEmail: null, apiPassword: 'tok', pickupLocation: 'WH' }).name).toBe('delhivery');
  });

  it("reads a callback's words by the company's courier: Shiprocket's for shiprocket and manual, Delhivery's for delhivery", () => {
    expect(courierStatus('shiprocket', 'OUT FOR DELIVERY')).toBe('out_for_delivery');
    expect(courierStatus('manual', 'RTO Initiated')).toBe('rto');
    expect(courierStatus('delhivery', 'Dispatched')).toBe('out_for_delivery');
    expect(courierStatus('delhivery', 'RT In Transit')).toBe('rto');
    expect(courierStatus('shiprocket', 'Dispatched')).toBeNull();
    expect(trackingUrlFor('shiprocket', 'A1')).toBe('https://shiprocket.co/tracking/A1');
    expect(trackingUrlFor('delhivery', 'A1')).toBe('https://www.delhivery.com/track/package/A1');
  });
});

describe('one list of couriers', () => {
  const root = join(import.meta.dirname, '..', '..');
  const files = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
    );

  it("names a courier only in its own file under src/couriers/ (no second list, no hard-wired courier's mapping elsewhere)", () => {
    const outside = files('src')
      .filter((f) => !f.startsWith(join('src', 'couriers')))
      .flatMap((f) => {
        const text = readFileSync(join(root, f), 'utf8');
        return [/'shiprocket'/, /'delhivery'/, /mapShiprocketStatus|mapDelhiveryStatus/]
          .filter((re) => re.test(text))
          .map((re) => `${relative(root, join(root, f))}: ${re.source}`);
      });
    expect(outside).toEqual([]);
  });
});
