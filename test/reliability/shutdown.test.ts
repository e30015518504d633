import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createServices } from '../../src/services.js';
import { testConfig } from '../helpers/app.js';
import { auditCompany } from '../helpers/audit.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { serverProcesses } from '../helpers/server-process.js';

/**
 * SIGTERM to the real server process while clients place orders: readiness fails at once while requests are still
 * served (the drain), then the server stops accepting, finishes what is in flight and exits 0. No request that reached
 * the server fails: every answer is a 201, every 201 is a whole order with its courier job, and the audit is clean.
 */
let testDb: TestDatabase;
const servers = serverProcesses();

/** On embedded PGlite this file is skipped: the server is a second process, and a PGlite folder belongs to one process. */
const SERVER = inject('testDb') !== null;

beforeAll(async () => {
  if (!SERVER) return;
  testDb = await createTestDatabase();
});
afterAll(async () => {
  servers.killAll();
  await testDb?.drop();
});

describe.skipIf(!SERVER)('SIGTERM under load', () => {
  it('fails readiness first, serves through the drain, finishes requests in flight, loses no order, exits 0', async () => {
    const services = createServices({ db: testDb.db, config: testConfig() });
    const co = await createCompanyWithKey(services);
    await addLocations(testDb.db, co.company.id);
    await testDb.db.query(sql`UPDATE companies SET auto_courier_booking = true WHERE id = ${co.company.id}`);
    await addProduct(testDb.db, co.company.id, { sku: 'T', name: 'Term item', variants: [{ sku: 'T-1', selling_price: '10.00', stock: '100000' }] });
    // The drain and its bound are this test's subject: a drain long enough to see readiness fail while orders are still
    // answered, and a bound that a loaded test machine cannot reach before the requests in flight have finished.
    const { child, base } = await servers.start(testDb.url!, { SHUTDOWN_DRAIN_MS: '3000', SHUTDOWN_TIMEOUT_MS: '30000' });
    const origin = new URL(base).origin;
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    const answers: number[] = [];
    let refused = 0; // connections the closed server did not accept: never reached it, so not lost
    let stop = false;
    const client = async (n: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await fetch(`${base}/orders`, {
            method: 'POST',
            headers: { ...co.headers, 'content-type': 'application/json' },
            body: JSON.stringify({
              customer: { name: `Term ${n}`, phone: `96${String(10_000_000 + n * 1000 + i).slice(-8)}` },
              items: [{ product_id: 'T-1', quantity: 1 }],
              external_reference: `term-${n}-${i}-${randomBytes(3).toString('hex')}`,
              delivery_address: { line1: '1 MG Road', city: 'Bengaluru', pincode: '560001' },
            }),
            signal: AbortSignal.timeout(20_000),
          });
          answers.push(res.status);
          await res.arrayBuffer();
        } catch {
          refused++;
          return;
        }
      }
    };
    const clients = Array.from({ length: 8 }, (_, n) => client(n));
    // let some orders through, then signal
    for (let i = 0; i < 300 && answers.length < 40; i++) await new Promise((r) => setTimeout(r, 50));
    expect(answers.length).toBeGreaterThanOrEqual(40);
    const beforeSignal = answers.length;
    child.kill('SIGTERM');

    // readiness fails within the drain, while orders are still being answered
    let ready = 200;
    for (const until = Date.now() + 10_000; ready !== 503 && Date.now() < until;) {
      ready = (await fetch(`${origin}/readyz`).catch(() => ({ status: -1 }))).status;
      if (ready !== 503) await new Promise((r) => setTimeout(r, 25));
    }
    expect(ready).toBe(503);
    const exitCode = await exited;
    stop = true;
    await Promise.all(clients);

    expect(exitCode).toBe(0);
    expect(answers.length).toBeGreaterThan(beforeSignal); // the drain served requests after the signal
    expect(answers.filter((s) => s !== 201)).toEqual([]);
    expect(refused).toBeGreaterThan(0); // the clients stopped because the server had stopped accepting

    const audit = await auditCompany(testDb.db, co.company.id);
    expect(audit.totals.orders).toBe(answers.length);
    expect([audit.stock, audit.partial, audit.orphans, audit.duplicates]).toEqual([[], [], [], []]);
    // each order has its one courier job (written in the order's transaction), none lost or doubled
    const jobs = await testDb.db.query<{ n: number; orders: number }>(sql`
      SELECT count(*)::int AS n, count(DISTINCT order_id)::int AS orders FROM jobs WHERE company_id = ${co.company.id} AND kind = 'book_courier'`);
    expect(jobs).toEqual([{ n: answers.length, orders: answers.length }]);
  }, 120_000);
});
