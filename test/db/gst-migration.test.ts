import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createPgDatabase } from '../../src/db/client.js';
import { migrate, MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { createEmptyDatabase, onCitus } from '../helpers/db.js';

/**
 * Migration 0016 on a database that already runs the previous release (on Citus: already distributed), not only on a
 * new one: existing invoices keep their numbers; credit_notes joins the tenant tables' co-location group with its key.
 */
describe('migration 0016 on an existing database', () => {
  it('keeps existing invoice numbers; credit_notes is keyed to invoices (and distributed with them on Citus)', { timeout: 180_000 }, async (ctx) => {
    const empty = await createEmptyDatabase();
    if (!empty) return ctx.skip('needs a PostgreSQL server (TEST_DATABASE_URL)');
    const dir = mkdtempSync(join(tmpdir(), 'gst-mig-'));
    const db = createPgDatabase({ url: empty.url, poolMax: 2, statementTimeoutMs: 60_000, connectTimeoutMs: 5_000 });
    try {
      const files = readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{4}_/.test(f));
      for (const f of files.filter((f) => f < '0016')) copyFileSync(join(MIGRATIONS_DIR, f), join(dir, f));
      await migrate(db, dir);
      const c = 'co_mig';
      await db.query(sql`INSERT INTO companies (id, name, slug) VALUES (${c}, 'Old Shop', 'old-shop')`);
      await db.query(sql`INSERT INTO customers (company_id, id, name, phone_e164) VALUES (${c}, 'cus_1', 'Asha', '+919876543210')`);
      await db.query(sql`INSERT INTO orders (company_id, id, order_number, external_reference, customer_id, status, payment, amount)
        VALUES (${c}, 'ord_1', 'ORD-100001', 'ext-1', 'cus_1', 'shipped', 'cod', 499.00)`);
      await db.query(sql`INSERT INTO invoices (company_id, id, order_id, invoice_number, financial_year, total, issued_at, due_at)
        VALUES (${c}, 'inv_1', 'ord_1', 'INV/2026-27/000001', '2026-27', 499.00, now(), now())`);

      copyFileSync(join(MIGRATIONS_DIR, '0016_gst_invoices.sql'), join(dir, '0016_gst_invoices.sql'));
      expect(await migrate(db, dir)).toEqual(['0016_gst_invoices.sql']);
      expect(await db.query(sql`SELECT invoice_number, document FROM invoices WHERE company_id = ${c}`)).toEqual([
        { invoice_number: 'INV/2026-27/000001', document: null },
      ]);
      await db.query(sql`INSERT INTO credit_notes (company_id, id, invoice_id, credit_note_number, financial_year, reason, total, issued_at)
        VALUES (${c}, 'cn_1', 'inv_1', 'CN/26-27/000001', '2026-27', 'returned', 499.00, now())`);
      await expect(
        db.query(sql`INSERT INTO credit_notes (company_id, id, invoice_id, credit_note_number, financial_year, reason, total, issued_at)
          VALUES (${c}, 'cn_2', 'inv_missing', 'CN/26-27/000002', '2026-27', 'returned', 499.00, now())`),
      ).rejects.toThrow(/foreign key/);
      if (onCitus()) {
        const rows = await db.query<{ name: string; method: string; colocation: number }>(sql`
          SELECT logicalrelid::regclass::text AS name, partmethod AS method, colocationid AS colocation FROM pg_dist_partition
           WHERE logicalrelid IN ('invoices'::regclass, 'credit_notes'::regclass, 'tax_profiles'::regclass, 'credit_note_counters'::regclass) ORDER BY 1`);
        expect(rows.map((r) => [r.name, r.method])).toEqual([
          ['credit_note_counters', 'h'],
          ['credit_notes', 'h'],
          ['invoices', 'h'],
          ['tax_profiles', 'h'],
        ]);
        expect(new Set(rows.map((r) => r.colocation)).size).toBe(1);
      }
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
      await empty.drop();
    }
  });
});
