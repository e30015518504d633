import { sql } from 'drizzle-orm';
import { describe, expect, inject, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { orderBody } from '../helpers/orders.js';
import { generateCatalogue } from '../../src/catalogue/catalogue.generate.js';
import { createPgDatabase } from '../../src/db/client.js';
import { createServices } from '../../src/services.js';

/**
 * An order reads and locks its own stock rows by primary key, never by scanning the company's stock
 * (migration 0019): before, reserve_stock() scanned every stock row of the company three times per order (half an
 * order's database CPU at 1,000 products, and growing with the catalogue). Checked with PostgreSQL's own counters on
 * one connection; PostgreSQL only (PGlite has no statistics collector; on Citus the function's statements run on a
 * worker's shard, whose counters are not this database's).
 */
const testDb = inject('testDb');
const ctx = useTestApp();

describe.skipIf(!testDb || Boolean(testDb.citus))("reserve_stock finds the order's rows by key", () => {
  it('placing orders adds no sequential scan of stock_levels, with thousands of stock rows in the company', async () => {
    const co = await createCompanyWithKey(ctx.services);
    await generateCatalogue(ctx.db, co.company.id, { products: 1000, seed: 7 });
    await ctx.db.query(sql`UPDATE stock_levels SET on_hand = 1000 WHERE company_id = ${co.company.id}`);
    await ctx.db.query(sql`ANALYZE stock_levels`);
    const skus = (await ctx.db.query<{ sku: string }>(sql`SELECT sku FROM variants WHERE company_id = ${co.company.id} ORDER BY id LIMIT 3`)).map((r) => r.sku);

    // one connection: the orders and the counters are the same backend's
    const one = createPgDatabase({ url: ctx.testDb.url!, poolMax: 1, statementTimeoutMs: 30_000, connectTimeoutMs: 5_000 });
    try {
      const services = createServices({ db: one, config: ctx.config });
      const scans = async () => {
        await one.query(sql`SELECT pg_stat_force_next_flush()`);
        await one.query(sql`SELECT 1`); // the flush happens when the backend goes idle after a statement
        await one.query(sql`SELECT pg_stat_clear_snapshot()`);
        const [row] = await one.query<{ seq: number; idx: number }>(
          sql`SELECT seq_scan::int AS seq, idx_scan::int AS idx FROM pg_stat_user_tables WHERE relname = 'stock_levels'`,
        );
        return row;
      };
      const tenant = { companyId: co.company.id, keyId: co.keyRecord.id, keyPrefix: 'test', permissions: ['commerce'] };
      const before = await scans();
      for (let i = 0; i < 5; i++)
        await services.orders.place(
          tenant,
          orderBody({
            payment: 'cod',
            items: [
              { product_id: skus[i % 3], quantity: 1 },
              { product_id: skus[(i + 1) % 3], quantity: 2 },
            ],
          }) as never,
        );
      const after = await scans();
      expect(after.seq - before.seq).toBe(0);
      expect(after.idx - before.idx).toBeGreaterThanOrEqual(5 * 3); // lock, check and update of each order by key
      const [reserved] = await one.query<{ n: string }>(sql`SELECT sum(reserved)::text AS n FROM stock_levels WHERE company_id = ${co.company.id}`);
      expect(reserved.n).toBe('15.000');
    } finally {
      await one.close();
    }
  });
});
