import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { describe, expect, inject, it } from 'vitest';
import { createPgDatabase, createPgliteDatabase, type Database } from '../../src/db/client.js';
import { migrate, MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { createServices } from '../../src/services.js';
import { testConfig } from '../helpers/app.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { withDatabase } from '../helpers/global-setup.js';

/** An empty database of the given kind, and how to drop it. */
async function emptyDatabase(kind: 'pglite' | 'pg'): Promise<{ db: Database; drop: () => Promise<void> }> {
  if (kind === 'pglite') {
    const db = await createPgliteDatabase(undefined);
    return { db, drop: () => db.close() };
  }
  const server = inject('testDb')!.serverUrl;
  const name = `commerce_t_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const db = createPgDatabase({ url: withDatabase(server, name), poolMax: 5, statementTimeoutMs: 60_000, connectTimeoutMs: 10_000 });
  return {
    db,
    async drop() {
      await db.close();
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
      await c.end();
    },
  };
}

const kinds: ('pglite' | 'pg')[] = inject('testDb') ? ['pglite', 'pg'] : ['pglite'];
const ON_CITUS =
  'on Citus: replays migrations up to 0008, whose catalogue triggers Citus cannot distribute; the 0009 upgrade was done before any database was distributed (PGlite still runs it)';

describe.each(kinds)('migration 0009 on %s: orders placed with the global sequence keep their numbers', (kind) => {
  // PGlite's first open (initdb, 2-17 s here) plus every migration, on shared cores: a hang guard, not a speed check.
  it(
    "each company's new numbers continue above its own highest existing number; a company without orders starts at ORD-100001",
    { timeout: 120_000 },
    async (t) => {
      if (kind === 'pg' && inject('testDb')?.citus) return t.skip(ON_CITUS);
      const before = mkdtempSync(join(tmpdir(), 'migrations-0008-'));
      for (const f of readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{4}_/.test(f) && f < '0009')) copyFileSync(join(MIGRATIONS_DIR, f), join(before, f));
      const { db, drop } = await emptyDatabase(kind);
      try {
        await migrate(db, before);
        const services = createServices({ db, config: testConfig() });
        // companies as the previous release made them (its tables only: today's service also writes its audit trail)
        const company = async (name: string) => {
          const [row] = await db.query<{ id: string }>(
            sql`INSERT INTO companies (id, name, slug) VALUES (${`co_${name}`}, ${name}, ${`co-${name.toLowerCase()}`}) RETURNING id`,
          );
          return row;
        };
        const [a, b, c] = [await company('A'), await company('B'), await company('C')];
        for (const co of [a, b])
          await db.query(sql`INSERT INTO customers (company_id, id, name, phone_e164) VALUES (${co.id}, 'cus_old', 'Old', '+919876543210')`);
        // As the previous release numbered them: one global sequence, companies interleaved; a draft among them.
        const old: { company: string; id: string; status: string }[] = [
          { company: a.id, id: 'ord_a1', status: 'confirmed' },
          { company: b.id, id: 'ord_b1', status: 'confirmed' },
          { company: a.id, id: 'ord_a2', status: 'delivered' },
          { company: b.id, id: 'ord_b2', status: 'cancelled' },
          { company: a.id, id: 'ord_a3', status: 'draft' },
          { company: a.id, id: 'ord_a4', status: 'confirmed' },
        ];
        for (const o of old) {
          await db.query(sql`INSERT INTO orders (company_id, id, order_number, customer_id, status, payment, amount)
          VALUES (${o.company}, ${o.id}, 'ORD-' || nextval('order_number_seq'), 'cus_old', ${o.status}, 'cod', 100)`);
        }
        const numbersNow = () =>
          db.query<{ id: string; order_number: string }>(
            sql`SELECT id, order_number FROM orders WHERE id = ANY(${sql.param(old.map((o) => o.id))}::text[]) ORDER BY id`,
          );
        const oldNumbers = await numbersNow();
        expect(oldNumbers.map((o) => o.order_number).sort()).toEqual(['ORD-100001', 'ORD-100002', 'ORD-100003', 'ORD-100004', 'ORD-100005', 'ORD-100006']);

        expect(await migrate(db)).toContain('0009_order_numbers.sql');
        expect(await numbersNow()).toEqual(oldNumbers);

        for (const co of [a, b, c]) {
          await addLocations(db, co.id);
          await addProduct(db, co.id, { sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', selling_price: '299.00', stock: '100' }] });
        }
        const place = async (companyId: string, ref: string) =>
          (
            await services.orders.place(
              { companyId, keyId: 'k', keyPrefix: 'cok_test', permissions: ['commerce'] },
              {
                customer: { name: 'New', phone: '9876501234' },
                items: [{ product_id: 'TEE-M', quantity: '1' }],
                external_reference: ref,
                payment: 'cod',
              },
            )
          ).order.order_number;
        expect(await place(b.id, 'b-new-1')).toBe('ORD-100005');
        expect(await place(a.id, 'a-new-1')).toBe('ORD-100007');
        expect(await place(c.id, 'c-new-1')).toBe('ORD-100001');
        expect(await place(b.id, 'b-new-2')).toBe('ORD-100006');
        // A company created after the migration has no counter yet: its first number is ORD-100001.
        const d = await services.companies.create({ kind: 'cli', name: 'test' }, { name: 'D' });
        await addLocations(db, d.id);
        await addProduct(db, d.id, { sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', selling_price: '299.00', stock: '100' }] });
        expect(
          (
            await services.fulfilment.createDraft(d.id, {
              customer: { name: 'D', phone: '9876501234' },
              items: [{ product_id: 'TEE-M', quantity: 1 }],
              payment: 'cod',
            })
          ).order_number,
        ).toBe('ORD-100001');
        expect(await place(d.id, 'd-new-1')).toBe('ORD-100002');
      } finally {
        await drop();
        rmSync(before, { recursive: true, force: true });
      }
    },
  );
});
