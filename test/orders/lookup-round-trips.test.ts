import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { recordingDatabase, requestStatements } from '../helpers/round-trips.js';
import { BASE, orderBody, shop } from '../helpers/orders.js';

let testDb: TestDatabase;
let ctx: TestApp;
let recorder: ReturnType<typeof recordingDatabase>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  recorder = recordingDatabase(testDb.db);
  ctx = await buildTestApp(recorder);
});
afterAll(async () => {
  await ctx?.app.close();
  await testDb?.drop();
});

describe('GET /orders/{reference}: round trips', () => {
  it('is one statement once the key is known: the key check, the order, its customer, shipment, invoice and lines together', async () => {
    const s = await shop(ctx, [
      {
        sku: 'TEE',
        name: 'Tee',
        variants: [
          { sku: 'TEE-M', name: 'M', selling_price: '299.00', stock: '10' },
          { sku: 'TEE-L', name: 'L', selling_price: '319.00', stock: '10' },
        ],
      },
    ]);
    const placed = await ctx.app.inject({
      method: 'POST',
      url: `${BASE}/orders`,
      headers: s.headers,
      payload: orderBody({
        items: [
          { product_id: 'TEE-M', quantity: 2 },
          { product_id: 'TEE-L', quantity: '3' },
        ],
      }),
    });
    expect(placed.statusCode).toBe(201);
    const order = placed.json().data;
    for (const ref of [order.order_number, order.order_id]) {
      recorder.statements.length = 0;
      const res = await ctx.app.inject({ url: `${BASE}/orders/${ref}?phone=9876543210`, headers: s.headers });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.items).toEqual([
        { sku: 'TEE-M', name: 'Tee (M)', quantity: '2.000', unit_price: '299.00', line_total: '598.00' },
        { sku: 'TEE-L', name: 'Tee (L)', quantity: '3.000', unit_price: '319.00', line_total: '957.00' },
      ]);
      expect(requestStatements(recorder.statements)).toHaveLength(1);
      expect(requestStatements(recorder.statements)[0]).toContain('AS key_ok');
    }
  });
});
