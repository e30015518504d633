import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createServices } from '../../src/services.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { serverProcesses } from '../helpers/server-process.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { auditCompany } from '../helpers/audit.js';

/**
 * The real server process (`src/server.ts`) killed with SIGKILL while orders are being created, then
 * started again: PostgreSQL rolls back what was in flight, so no order is partial and no reservation
 * leaks; every client retrying its external_reference ends with exactly one order.
 */
let testDb: TestDatabase;
const servers = serverProcesses();

/** On embedded PGlite (no PostgreSQL server) this file is skipped: a second process opens the same database: a PGlite folder belongs to one process. */
const SERVER = inject('testDb') !== null;

beforeAll(async () => {
  if (!SERVER) return;
  testDb = await createTestDatabase();
  if (!testDb.url) throw new Error('needs a PostgreSQL server (TEST_DATABASE_URL)');
});
afterAll(async () => {
  servers.killAll();
  await testDb?.drop();
});

/** Starts `node --import tsx src/server.ts` (one process, so SIGKILL hits the server itself) and waits for its URL. */
async function startServer() {
  return servers.start(testDb.url!);
}

describe.skipIf(!SERVER)('SIGKILL in the middle of order creation', () => {
  it('leaves no partial order and no leaked reservation; after a restart every retried reference has exactly one order', async () => {
    const services = createServices({ db: testDb.db, config: testConfig() });
    const co = await createCompanyWithKey(services);
    await addLocations(testDb.db, co.company.id);
    const skus = ['K-1', 'K-2', 'K-3', 'K-4'];
    await addProduct(testDb.db, co.company.id, {
      sku: 'K',
      name: 'Kill item',
      variants: skus.map((sku) => ({ sku, selling_price: '10.00', stock: '100000' })),
    });
    const body = (ref: string, i: number) => ({
      customer: { name: `K ${i}`, phone: `97${String(10_000_000 + i).slice(-8)}` },
      items: [skus[i % 4], skus[(i + 1) % 4], skus[(i + 2) % 4]].map((product_id) => ({ product_id, quantity: 1 })),
      external_reference: ref,
    });
    const post = async (base: string, ref: string, i: number) => {
      try {
        const res = await fetch(`${base}/orders`, {
          method: 'POST',
          headers: { ...co.headers, 'content-type': 'application/json' },
          body: JSON.stringify(body(ref, i)),
          signal: AbortSignal.timeout(20_000),
        });
        return res.status;
      } catch {
        return 0;
      }
    };

    let server = await startServer();
    const refs = Array.from({ length: 300 }, (_, i) => `kill-${i}-${randomBytes(3).toString('hex')}`);
    let created = 0;
    let next = 0;
    const first: number[] = [];
    // 30 clients, each taking the next reference until the server dies
    const clients = Array.from({ length: 30 }, async () => {
      while (next < refs.length) {
        const i = next++;
        const status = await post(server.base, refs[i], i);
        first[i] = status;
        if (status === 201) created++;
        if (status === 0) return;
      }
    });
    while (created < 60) await new Promise((r) => setTimeout(r, 5));
    server.child.kill('SIGKILL');
    await Promise.all(clients);
    await new Promise<void>((r) => (server.child.exitCode !== null || server.child.signalCode !== null ? r() : server.child.once('exit', () => r())));
    expect(server.child.signalCode).toBe('SIGKILL');
    const inFlight = first.filter((s) => s === 0).length;
    console.log(`[sigkill] killed after ${created} orders created; ${inFlight} requests cut off in flight; ${refs.length - next} not yet sent`);
    expect(inFlight).toBeGreaterThan(0);

    // straight after the kill: only whole orders exist
    const afterKill = await auditCompany(testDb.db, co.company.id);
    expect([afterKill.stock, afterKill.partial, afterKill.orphans, afterKill.duplicates]).toEqual([[], [], [], []]);

    // restart; every client retries its reference (also those never sent) until it has an answer
    server = await startServer();
    const finals = await Promise.all(
      refs.map(async (ref, i) => {
        for (let attempt = 0; attempt < 20; attempt++) {
          const status = await post(server.base, ref, i);
          if (status === 200 || status === 201) return status;
          await new Promise((r) => setTimeout(r, 200));
        }
        return -1;
      }),
    );
    expect(finals.filter((s) => s === -1)).toEqual([]);
    // those created before the kill come back as duplicates, the same order
    for (const [i, s] of first.entries()) if (s === 201) expect(finals[i]).toBe(200);
    const audit = await auditCompany(testDb.db, co.company.id);
    expect(audit.totals.orders).toBe(refs.length);
    expect(audit.totals.reserved).toBe(`${refs.length * 3}.000`);
    expect([audit.stock, audit.partial, audit.orphans, audit.duplicates]).toEqual([[], [], [], []]);
    server.child.kill('SIGTERM');
  }, 120_000);
});
