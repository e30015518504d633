import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createServices } from '../../src/services.js';
import { verifyWebhook } from '../../src/lib/webhook-signature.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { serverProcesses } from '../helpers/server-process.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { webhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * The real server process killed with SIGKILL while orders are being created and their events delivered, then
 * started again: every order has exactly one order.created event (outbox in the order's statement), every event
 * reaches the receiver at least once, and a repeat carries the same id (X-Webhook-Id), so it is recognisable.
 */
let testDb: TestDatabase;
const servers = serverProcesses();
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
const config = testConfig({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' });

/** On embedded PGlite (no PostgreSQL server) this file is skipped: a second process opens the same database, and a PGlite folder belongs to one process. */
const SERVER = inject('testDb') !== null;

beforeAll(async () => {
  if (!SERVER) return;
  testDb = await createTestDatabase();
  if (!testDb.url) throw new Error('needs a PostgreSQL server (TEST_DATABASE_URL)');
  receiver = await webhookReceiver();
});
afterAll(async () => {
  servers.killAll();
  await receiver?.close();
  await testDb?.drop();
});

async function startServer() {
  // The default settings, but for the two that let it reach this machine's receiver. A killed worker's claims are due
  // again once their lease (WEBHOOK_TIMEOUT_MS + 5 s, 15 s) runs out.
  return servers.start(testDb.url!, {
    SIGNING_SECRET: config.SIGNING_SECRET,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
  });
}

describe.skipIf(!SERVER)('SIGKILL while events are produced and delivered', () => {
  it('loses no event: each order has one order.created, every event id arrives, repeats carry the same id', async () => {
    const services = createServices({ db: testDb.db, config });
    const co = await createCompanyWithKey(services);
    const companyId = co.company.id;
    await addLocations(testDb.db, companyId);
    await addProduct(testDb.db, companyId, { sku: 'E', name: 'Event item', variants: [{ sku: 'E-1', selling_price: '10.00', stock: '100000' }] });
    const endpoint = await services.webhooks.create(
      companyId,
      { kind: 'cli', name: 'test' },
      { url: receiver.url, events: ['order.created'], description: null },
    );
    receiver.state.delayMs = 20; // deliveries are in flight when the process dies

    const post = async (base: string, ref: string, i: number) => {
      try {
        const res = await fetch(`${base}/orders`, {
          method: 'POST',
          headers: { ...co.headers, 'content-type': 'application/json' },
          body: JSON.stringify({
            customer: { name: `E ${i}`, phone: `97${String(10_000_000 + i).slice(-8)}` },
            items: [{ product_id: 'E-1', quantity: 1 }],
            external_reference: ref,
          }),
          signal: AbortSignal.timeout(20_000),
        });
        return res.status;
      } catch {
        return 0;
      }
    };

    let server = await startServer();
    const refs = Array.from({ length: 200 }, (_, i) => `ev-${i}-${randomBytes(3).toString('hex')}`);
    let created = 0;
    let next = 0;
    const clients = Array.from({ length: 20 }, async () => {
      while (next < refs.length) {
        const i = next++;
        const status = await post(server.base, refs[i], i);
        if (status === 201) created++;
        if (status === 0) return;
      }
    });
    while (created < 60 || receiver.state.received.length < 10) await new Promise((r) => setTimeout(r, 5));
    server.child.kill('SIGKILL');
    await Promise.all(clients);
    await new Promise<void>((r) => (server.child.exitCode !== null || server.child.signalCode !== null ? r() : server.child.once('exit', () => r())));
    expect(server.child.signalCode).toBe('SIGKILL');
    const receivedAtKill = receiver.state.received.length;

    server = await startServer();
    for (const [i, ref] of refs.entries()) {
      for (let attempt = 0; attempt < 20; attempt++) {
        const status = await post(server.base, ref, i);
        if (status === 200 || status === 201) break;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    const pending = async () =>
      (
        await testDb.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE company_id = ${companyId} AND status <> 'delivered'`)
      )[0].n;
    for (let i = 0; i < 600 && (await pending()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    server.child.kill('SIGTERM');

    // One order.created per order, all delivered; the receiver has every event id; repeats are the same event.
    const events = await testDb.db.query<{ id: string; subject_id: string }>(
      sql`SELECT e.id, e.subject_id FROM events e WHERE e.company_id = ${companyId} AND e.type = 'order.created'`,
    );
    const [{ orders }] = await testDb.db.query<{ orders: number }>(sql`SELECT count(*)::int AS orders FROM orders WHERE company_id = ${companyId}`);
    expect(orders).toBe(refs.length);
    expect(events).toHaveLength(refs.length);
    expect(new Set(events.map((e) => e.subject_id)).size).toBe(refs.length);
    expect(await pending()).toBe(0);
    const byId = new Map<string, string>();
    for (const r of receiver.state.received) {
      expect(r.headers['x-webhook-id']).toBe(r.body.id);
      expect(verifyWebhook(endpoint.secret, r.raw, String(r.headers['x-webhook-signature']))).toBe(true);
      const seen = byId.get(r.body.id);
      if (seen !== undefined) expect(r.raw, 'a repeat is the same event, byte for byte').toBe(seen);
      byId.set(r.body.id, r.raw);
    }
    expect([...byId.keys()].sort()).toEqual(events.map((e) => e.id).sort());
    console.log(
      `[webhooks-sigkill] ${created} orders before the kill, ${receivedAtKill} deliveries received by then; ` +
        `${refs.length} events, ${receiver.state.received.length} deliveries received (${receiver.state.received.length - byId.size} repeats)`,
    );
  }, 180_000);
});
