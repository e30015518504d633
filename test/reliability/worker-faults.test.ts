import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { placeOrderBody } from '../../src/contract/orders.js';
import { createServices, type Services } from '../../src/services.js';
import { testConfig } from '../helpers/app.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { fakeCourier } from '../helpers/fulfilment.js';
import { freePort, refusingReceiver, selfSignedReceiver } from '../helpers/faulty-peers.js';
import { metricValue, serverProcesses, type ServerProcess } from '../helpers/server-process.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { webhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * A failed delivery must never end an instance. Here the real service (`src/server.ts`, a child process) runs at
 * its default settings (workers on, info logs as JSON on stdout, default timeouts, retry delays and rate limit) next to
 * peers that fail: webhook receivers that answer 500, hang past the timeout, present a self-signed certificate, refuse
 * the connection; a courier API that answers 500 and one that hangs; then its database cut away during polls. After
 * each, the process is still up, still answers, and the work is retried and done once the peer is back. The settings
 * changed from the defaults let it reach this machine's receivers (WEBHOOK_ALLOW_HTTP and _PRIVATE_ADDRESSES) and
 * serve its metrics (METRICS_PORT). On d154ba3 the process died at the first failure.
 */
let testDb: TestDatabase;
let proxy: TcpProxy;
let services: Services;
let server: ServerProcess;
let metricsUrl: string;
const servers = serverProcesses();
const config = testConfig({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' });
const closers: (() => Promise<unknown>)[] = [];
export const figures: Record<string, Record<string, unknown>> = {};
const probes = { sent: 0, failed: 0, failedDuringCut: 0, sentDuringCut: 0 };
let probing = true;
let cutting = false;

/** On embedded PGlite this file is skipped: the service is a second process, and a PGlite folder belongs to one process. */
const SERVER = inject('testDb') !== null;

const PHONES = ['9811100001', '9811100002', '9811100003', '9811100004', '9811100005', '9811100006', '9811100007', '9811100008', '9811100009'];

beforeAll(async () => {
  if (!SERVER) return;
  testDb = await createTestDatabase();
  if (!testDb.url) throw new Error('needs a PostgreSQL server (TEST_DATABASE_URL)');
  const u = new URL(testDb.url);
  proxy = await startTcpProxy(u.hostname, Number(u.port || 5432));
  services = createServices({ db: testDb.db, config });
  const metricsPort = await freePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  server = await servers.start(proxy.url(testDb.url), {
    SIGNING_SECRET: config.SIGNING_SECRET,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
    METRICS_PORT: String(metricsPort),
    RATE_LIMIT_MAX: undefined,
  });
});
afterAll(async () => {
  probing = false;
  servers.killAll();
  for (const close of closers.reverse()) await close().catch(() => {});
  await proxy?.close();
  await testDb?.drop();
  if (SERVER) console.log(`[worker-faults] ${JSON.stringify({ faults: figures, probes })}`);
});

/** A company with stock and a key, its orders placed over HTTP to the process. */
async function tenant(opts: { courier?: string } = {}) {
  const co = await createCompanyWithKey(services);
  const companyId = co.company.id;
  await addLocations(testDb.db, companyId);
  await addProduct(testDb.db, companyId, { sku: 'W', name: 'Worker item', variants: [{ sku: 'W-1', selling_price: '250.00', stock: '1000' }] });
  if (opts.courier) {
    await testDb.db.query(sql`UPDATE companies SET auto_courier_booking = true WHERE id = ${companyId}`);
    await services.fulfilment.configureCourier(
      companyId,
      { kind: 'cli', name: 'test' },
      { adapter: 'shiprocket', baseUrl: opts.courier, email: 'ops@shop.test', password: 'pw-secret' },
    );
  }
  const tenant = { companyId, keyId: co.keyRecord.id, keyPrefix: co.keyRecord.prefix, permissions: co.keyRecord.permissions };
  return { ...co, companyId, tenant };
}

let phone = 0;
const orderBody = () => ({
  customer: { name: 'Kamala Devi', phone: PHONES[phone++ % PHONES.length] },
  items: [{ product_id: 'W-1', quantity: 1 }],
  external_reference: `wf-${randomBytes(4).toString('hex')}`,
  delivery_address: { line1: '4 Temple Street', city: 'Bengaluru', pincode: '560001' },
});

async function placeOver(t: { headers: Record<string, string> }) {
  const res = await fetch(`${server.base}/orders`, {
    method: 'POST',
    headers: { ...t.headers, 'content-type': 'application/json' },
    body: JSON.stringify(orderBody()),
    signal: AbortSignal.timeout(20_000),
  });
  expect(res.status).toBe(201);
}

/** A webhook delivery or a courier job, as the worker left it (its last attempt); shipments for a job's company. */
interface Work {
  status: string;
  attempts: number;
  last_error: string | null;
  shipments?: number;
}
const deliveryOf = async (companyId: string): Promise<Work | undefined> =>
  (
    await testDb.db.query<Work>(
      sql`SELECT status, attempts, last_error FROM webhook_deliveries WHERE company_id = ${companyId} ORDER BY created_at DESC LIMIT 1`,
    )
  )[0];
const jobOf = async (companyId: string): Promise<Work | undefined> =>
  (
    await testDb.db.query<Work>(
      sql`SELECT j.status, j.attempts, j.last_error, (SELECT count(*)::int FROM shipments s WHERE s.company_id = ${companyId}) AS shipments
          FROM jobs j WHERE j.company_id = ${companyId} ORDER BY j.created_at DESC LIMIT 1`,
    )
  )[0];

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const code = server.child.exitCode ?? server.child.signalCode;
    if (code !== null) throw new Error(`the service exited (${code}) while waiting for: ${what}\n${server.stderr().slice(-2000)}`);
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${ms} ms (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The process is still running, ready, and answers an authenticated catalogue read. */
async function answering(headers: Record<string, string>) {
  expect(server.child.exitCode, `the process exited: ${server.stderr()}`).toBeNull();
  expect(server.child.signalCode).toBeNull();
  expect((await fetch(`${new URL(server.base).origin}/readyz`)).status).toBe(200);
  expect((await fetch(`${server.base}/catalog/products/W-1`, { headers })).status).toBe(200);
}

/** Reads a bystander's catalogue once a second all along (within the default rate limit): failures are counted. */
function probe(headers: Record<string, string>) {
  void (async () => {
    while (probing) {
      const during = cutting;
      const ok = await fetch(`${server.base}/catalog/products?limit=5`, { headers, signal: AbortSignal.timeout(15_000) })
        .then((r) => r.status === 200)
        .catch(() => false);
      probes.sent++;
      if (during) probes.sentDuringCut++;
      if (!ok) probes[during ? 'failedDuringCut' : 'failed']++;
      await new Promise((r) => setTimeout(r, 1100));
    }
  })();
}

const metric = (name: string, labels: string) => metricValue(metricsUrl, name, labels);

describe.skipIf(!SERVER)('worker faults against the real process at its default settings', () => {
  it('receivers: 500, hang past the timeout, self-signed certificate, refused; courier API: 500, hang. The process stays up and answers; each is retried; each recovered peer gets its work', async () => {
    const bystander = await tenant();
    probe(bystander.headers);
    const r500 = await webhookReceiver({ failShare: 1 });
    const rHang = await webhookReceiver();
    rHang.state.delayMs = 60_000;
    const rTls = await selfSignedReceiver();
    const rRefused = await refusingReceiver();
    const c500 = await fakeCourier();
    c500.state.failNext = 1_000_000;
    const cHang = await fakeCourier();
    cHang.state.delayMs = 60_000;
    closers.push(r500.close, rHang.close, rTls.close, rRefused.close, c500.close, cHang.close);

    // Each fault: its tenant, the peer's own error expected in the attempt, and how the peer comes back (none: the
    // certificate stays bad). A webhook tenant has an endpoint on the peer; a courier tenant books through it.
    interface Fault {
      t: Awaited<ReturnType<typeof tenant>>;
      kind: 'webhook' | 'courier';
      error: RegExp;
      recover?: () => unknown;
    }
    const webhookTo = async (url: string) => {
      const t = await tenant();
      await services.webhooks.create(t.companyId, { kind: 'cli', name: 'test' }, { url, events: ['order.created'], description: null });
      return t;
    };
    const faults: Record<string, Fault> = {
      'receiver answers 500': { t: await webhookTo(r500.url), kind: 'webhook', error: /^HTTP 500$/, recover: () => (r500.state.failShare = 0) },
      'receiver hangs past the timeout (10 s)': {
        t: await webhookTo(rHang.url),
        kind: 'webhook',
        error: /timed out after 10000 ms/,
        recover: () => (rHang.state.delayMs = 0),
      },
      'receiver presents a self-signed certificate': { t: await webhookTo(rTls.url), kind: 'webhook', error: /self[- ]signed certificate/ },
      'receiver refuses the connection': { t: await webhookTo(rRefused.url), kind: 'webhook', error: /ECONNREFUSED/, recover: () => rRefused.recover() },
      'courier API answers 500': { t: await tenant({ courier: c500.url }), kind: 'courier', error: /answered 500/, recover: () => (c500.state.failNext = 0) },
      'courier API hangs past the timeout (15 s)': {
        t: await tenant({ courier: cHang.url }),
        kind: 'courier',
        error: /timed out or was stopped/,
        recover: () => (cHang.state.delayMs = 0),
      },
    };
    const started = Date.now();
    for (const f of Object.values(faults)) await placeOver(f.t);

    const workOf = (f: Fault) => (f.kind === 'webhook' ? deliveryOf(f.t.companyId) : jobOf(f.t.companyId));
    const firstFailures: Promise<unknown>[] = [];
    // Per fault: the attempt fails with the peer's own error and stays due; the peer then comes back (at once, so the
    // next attempt meets it) and the retry delivers or books. The bad certificate is refused again at its retry.
    const outcomes = Object.entries(faults).map(async ([fault, f]) => {
      const first = until(
        fault,
        () => workOf(f),
        (x) => !!x && x.attempts >= 1 && x.last_error !== null,
        40_000,
      );
      firstFailures.push(first);
      const failed = (await first)!;
      expect(failed.status, fault).toBe('pending');
      expect(failed.last_error, fault).toMatch(f.error);
      figures[fault] = { first_failure_s: (Date.now() - started) / 1000, error: failed.last_error };
      const back = Date.now();
      if (!f.recover) {
        const again = (await until(
          fault,
          () => workOf(f),
          (x) => !!x && x.attempts >= 2,
          100_000,
        ))!;
        expect(again.status, 'refused again, kept for the next try: never sent to an unverified peer').toBe('pending');
        expect(rTls.state.requests).toBe(0);
        Object.assign(figures[fault], { attempts: again.attempts, retried_after_s: (Date.now() - back) / 1000, outcome: 'pending, retried', lost: 0 });
        return;
      }
      await f.recover();
      const done = (await until(
        fault,
        () => workOf(f),
        (x) => x?.status === (f.kind === 'webhook' ? 'delivered' : 'done'),
        100_000,
      ))!;
      if (f.kind === 'courier') expect(done.shipments, fault).toBe(1);
      Object.assign(figures[fault], {
        attempts: done.attempts,
        done_after_recovery_s: (Date.now() - back) / 1000,
        outcome: f.kind === 'webhook' ? 'delivered' : 'booked',
        lost: 0,
      });
    });
    for (const o of outcomes) o.catch(() => {}); // a failure is reported by Promise.all below, not as unhandled meanwhile
    await Promise.all(firstFailures);
    await answering(bystander.headers);
    await Promise.all(outcomes);
    expect(r500.state.received).toHaveLength(1);
    expect(rRefused.state.received).toBe(1);
    await answering(bystander.headers);
    expect(await metric('commerce_webhook_deliveries_total', 'outcome="retrying"')).toBeGreaterThanOrEqual(5);
    expect(await metric('commerce_courier_jobs_total', 'outcome="retrying"')).toBeGreaterThanOrEqual(2);
  }, 240_000);

  it('the database gone during polls: each failed poll is logged and counted, the process stays up, readiness comes back, and work written meanwhile is done', async () => {
    const bystander = await tenant();
    const receiver = await webhookReceiver();
    const courier = await fakeCourier();
    closers.push(receiver.close, courier.close);
    const hook = await tenant();
    await services.webhooks.create(hook.companyId, { kind: 'cli', name: 'test' }, { url: receiver.url, events: ['order.created'], description: null });
    const booking = await tenant({ courier: courier.url });
    const pollErrors = async () =>
      (await metric('commerce_worker_errors_total', 'worker="webhooks",stage="poll"')) +
      (await metric('commerce_worker_errors_total', 'worker="courier",stage="poll"'));
    const before = await pollErrors();

    proxy.cut('refuse');
    cutting = true;
    const cutAt = Date.now();
    try {
      // written while the service cannot reach the database (through this test's own connection)
      await services.orders.place(hook.tenant, placeOrderBody.parse(orderBody()));
      await services.orders.place(booking.tenant, placeOrderBody.parse(orderBody()));
      await new Promise((r) => setTimeout(r, 6_000));
      expect(server.child.exitCode, `the process exited: ${server.stderr()}`).toBeNull();
      expect((await fetch(`${new URL(server.base).origin}/readyz`)).status).toBe(503);
      expect((await fetch(`${new URL(server.base).origin}/healthz`)).status).toBe(200);
    } finally {
      proxy.restore();
      cutting = false;
    }
    const restored = Date.now();

    await until(
      'ready again',
      () => fetch(`${new URL(server.base).origin}/readyz`).then((r) => r.status),
      (s) => s === 200,
      30_000,
    );
    const readyAfter = (Date.now() - restored) / 1000;
    await until(
      'delivered after the cut',
      () => deliveryOf(hook.companyId),
      (d) => d?.status === 'delivered',
      30_000,
    );
    await until(
      'booked after the cut',
      () => jobOf(booking.companyId),
      (j) => j?.status === 'done',
      30_000,
    );
    const failedPolls = (await pollErrors()) - before;
    expect(failedPolls).toBeGreaterThanOrEqual(3);
    await answering(bystander.headers);
    const logged = server.logs().filter((l) => /worker: poll failed/.test(String(l.msg)) && (l.time as number) >= cutAt);
    expect(logged.length).toBeGreaterThanOrEqual(3);
    expect(logged[0].err).toMatchObject({ type: expect.any(String), message: expect.any(String) });
    figures['database cut during polls (6 s)'] = {
      failed_polls: failedPolls,
      ready_again_after_restore_s: readyAfter,
      work_written_during_cut: 'delivered and booked after the restore',
      lost: 0,
    };
  }, 120_000);

  it('its log, at the default level, is one JSON object per line (the banner aside): the failures with their real errors, no fatal, no phone number', () => {
    const lines = server.stdout();
    const banner = lines.filter((l) => !l.startsWith('{'));
    expect(
      banner.every((l) => /ready on|Demo key|Reference:/.test(l)),
      banner.join('\n'),
    ).toBe(true);
    const logs = server.logs();
    expect(logs.filter((l) => l.level === 60)).toEqual([]);
    expect(logs.some((l) => l.msg === 'incoming request')).toBe(true); // info, the default level
    const retries = logs.filter((l) => String(l.msg).startsWith('webhook delivery failed; retrying'));
    expect(retries.some((l) => l.reason === 'HTTP 500')).toBe(true);
    expect(retries.some((l) => (l.err as { code?: string } | undefined)?.code === 'ECONNREFUSED')).toBe(true);
    expect(retries.some((l) => /certificate/.test(String((l.err as { message?: string } | undefined)?.message)))).toBe(true);
    const courierRetries = logs.filter((l) => String(l.msg).startsWith('courier booking failed; retrying'));
    expect(courierRetries.some((l) => (l.err as { type?: string } | undefined)?.type === 'CourierError')).toBe(true);
    const text = lines.join('\n');
    for (const p of PHONES) expect(text).not.toContain(p);
    expect(server.stderr()).toBe('');
  });
});
