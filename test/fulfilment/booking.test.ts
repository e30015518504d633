import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { acrossCompanies } from '../helpers/across-companies.js';
import { createPgDatabase, type Database } from '../../src/db/client.js';
import { createCourierWorker, type WorkerConfig } from '../../src/fulfilment/worker.js';
import { fakeCourier, get, jobsOf, orderBody, post, teeShop } from '../helpers/fulfilment.js';

const ctx = useTestApp();
let courier: Awaited<ReturnType<typeof fakeCourier>>;
beforeAll(async () => {
  courier = await fakeCourier();
});
afterAll(async () => {
  await courier.close();
});

const workerConfig = (over: Partial<WorkerConfig> = {}): WorkerConfig => ({
  FULFILMENT_POLL_MS: 20,
  FULFILMENT_MAX_ATTEMPTS: 5,
  FULFILMENT_RETRY_BASE_MS: 1,
  FULFILMENT_LEASE_MS: 60_000,
  COURIER_TIMEOUT_MS: 5_000,
  ...over,
});

async function shiprocketShop(opts: { stock?: string; password?: string } = {}) {
  const s = await teeShop(ctx, opts.stock ?? '100', { auto_courier_booking: true });
  await ctx.services.fulfilment.configureCourier(
    s.companyId,
    { kind: 'cli', name: 'test' },
    {
      adapter: 'shiprocket',
      baseUrl: courier.url,
      email: 'ops@shop.test',
      password: opts.password ?? 'pw-secret',
      pickupLocation: 'WH',
    },
  );
  return s;
}

async function waitFor(check: () => Promise<boolean>, ms = 10_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition not met in time');
}

describe('automatic booking is recorded only when enabled and the address is usable', () => {
  it('auto-booking off: no job, even with an address', async () => {
    const s = await teeShop(ctx, '5');
    await post(ctx, s.headers, orderBody());
    expect(await jobsOf(ctx, s.companyId)).toHaveLength(0);
  });

  it('auto-booking on, no address: no job until staff add one; then exactly one job', async () => {
    const s = await teeShop(ctx, '5', { auto_courier_booking: true });
    const res = await post(ctx, s.headers, orderBody({ delivery_address: undefined, customer: { name: 'No Address', phone: '9811122233' } }));
    expect(res.body.data.delivery_address).toBeNull();
    expect(await jobsOf(ctx, s.companyId)).toHaveLength(0);
    const ref = res.body.data.order_number;
    const updated = await ctx.services.fulfilment.setAddress(s.companyId, ref, { line1: '1 Residency Rd', city: 'Bengaluru', pincode: '560025' });
    expect(updated.booking_enqueued).toBe(true);
    expect(updated.delivery_address).toMatchObject({ line1: '1 Residency Rd', state: 'Karnataka', pincode: '560025' });
    const again = await ctx.services.fulfilment.setAddress(s.companyId, ref, { line1: '2 Residency Rd', city: 'Bengaluru', pincode: '560025' });
    expect(again.booking_enqueued).toBe(true);
    expect(await jobsOf(ctx, s.companyId)).toHaveLength(1); // one pending job per order
  });

  it('a bad address is refused with field paths; an address for a shipped order is refused', async () => {
    const s = await teeShop(ctx, '5');
    const res = await post(ctx, s.headers, orderBody());
    const err = await ctx.services.fulfilment.setAddress(s.companyId, res.body.data.order_number, { line1: '', city: 'X', pincode: '12' }).catch((e) => e);
    expect(err.kind).toBe('validation_failed');
    expect(err.details.map((d: { path: string }) => d.path).sort()).toEqual(['delivery_address.line1', 'delivery_address.pincode']);
    await ctx.services.fulfilment.move(s.companyId, res.body.data.order_number, 'shipped');
    await expect(ctx.services.fulfilment.setAddress(s.companyId, res.body.data.order_number, { line1: 'a', city: 'b', pincode: '560025' })).rejects.toThrow(
      /can no longer change/,
    );
  });
});

// The worker serves every company in the database: each test starts with no other company's job due.
const closeOtherJobs = () => acrossCompanies(ctx.db, sql`UPDATE jobs SET status = 'done', last_error = 'closed by test setup' WHERE status = 'pending'`);

describe('the worker books through the Shiprocket-style adapter', () => {
  beforeEach(closeOtherJobs);
  it('books once, exposes AWB and tracking on lookup', async () => {
    const s = await shiprocketShop();
    const res = await post(ctx, s.headers, orderBody({ payment: 'cod' }));
    const ref = res.body.data.order_number;
    const before = courier.state.creates;
    expect((await get(ctx, s.headers, `/orders/${ref}`)).body.data.shipment).toBeNull();
    const worker = createCourierWorker({ db: ctx.db, config: workerConfig(), log: ctx.workerLog('courier-worker') });
    expect(await worker.runOnce()).toBe(true);
    expect(courier.state.creates - before).toBe(1);
    const sent = courier.state.bodies.at(-1);
    expect(sent).toMatchObject({
      order_id: ref,
      payment_method: 'COD',
      sub_total: '499.00',
      billing_pincode: '560038',
      billing_state: 'Karnataka',
      pickup_location: 'WH',
    });
    const shipment = (await get(ctx, s.headers, `/orders/${ref}`)).body.data.shipment;
    expect(shipment).toEqual({
      awb: expect.stringMatching(/^AWB\d+$/),
      courier: 'Delhivery Surface',
      status: 'booked',
      status_label: 'Courier booked',
      tracking_url: `https://shiprocket.co/tracking/${shipment.awb}`,
      delivered_at: null,
    });
    expect((await jobsOf(ctx, s.companyId))[0]).toMatchObject({ status: 'done', attempts: 1 });
    expect(await worker.runOnce()).toBe(false);
  });

  it('two workers racing over many jobs book each order exactly once', async () => {
    const s = await shiprocketShop();
    const refs: string[] = [];
    for (let i = 0; i < 12; i++) refs.push((await post(ctx, s.headers, orderBody())).body.data.order_number);
    const before = courier.state.creates;
    courier.state.delayMs = 30; // each booking takes a while, so the two really overlap
    // a second pool: the second worker is another "instance" with its own connections
    const otherDb: Database = createPgDatabase({ url: ctx.testDb.url!, poolMax: 5, statementTimeoutMs: 10_000, connectTimeoutMs: 5_000 });
    const a = createCourierWorker({ db: ctx.db, config: workerConfig(), log: ctx.workerLog('courier-worker') });
    const b = createCourierWorker({ db: otherDb, config: workerConfig(), log: ctx.workerLog('courier-worker') });
    try {
      a.start();
      b.start();
      await waitFor(async () => (await jobsOf(ctx, s.companyId)).every((j) => j.status === 'done'));
    } finally {
      await a.stop();
      await b.stop();
      await otherDb.close();
      courier.state.delayMs = 0;
    }
    expect(courier.state.creates - before).toBe(12);
    const shipments = await ctx.db.query<{ n: number; awbs: number }>(
      sql`SELECT count(*)::int AS n, count(DISTINCT awb)::int AS awbs FROM shipments WHERE company_id = ${s.companyId} AND status = 'booked'`,
    );
    expect(shipments[0]).toEqual({ n: 12, awbs: 12 });
    expect((await jobsOf(ctx, s.companyId)).every((j) => j.attempts === 1)).toBe(true);
  });

  it('a courier 500 is retried with backoff and then succeeds', async () => {
    const s = await shiprocketShop();
    const ref = (await post(ctx, s.headers, orderBody())).body.data.order_number;
    courier.state.failNext = 1;
    const worker = createCourierWorker({ db: ctx.db, config: workerConfig({ FULFILMENT_RETRY_BASE_MS: 300 }), log: ctx.workerLog('courier-worker') });
    await worker.runOnce();
    let [job] = await jobsOf(ctx, s.companyId);
    expect(job).toMatchObject({ status: 'pending', attempts: 1 });
    expect(job.last_error).toMatch(/answered 500: Internal courier error/);
    expect(await worker.runOnce()).toBe(false); // not due yet: backoff
    await new Promise((r) => setTimeout(r, 350));
    expect(await worker.runOnce()).toBe(true);
    [job] = await jobsOf(ctx, s.companyId);
    expect(job).toMatchObject({ status: 'done', attempts: 2 });
    expect((await get(ctx, s.headers, `/orders/${ref}`)).body.data.shipment.status).toBe('booked');
  });

  it('after the last attempt the job is failed for staff; jobs retry makes it due again', async () => {
    const s = await shiprocketShop();
    await post(ctx, s.headers, orderBody());
    courier.state.failNext = 2;
    const worker = createCourierWorker({ db: ctx.db, config: workerConfig({ FULFILMENT_MAX_ATTEMPTS: 2 }), log: ctx.workerLog('courier-worker') });
    await worker.runOnce();
    await new Promise((r) => setTimeout(r, 5));
    await worker.runOnce();
    let [job] = await jobsOf(ctx, s.companyId);
    expect(job).toMatchObject({ status: 'failed', attempts: 2 });
    const failed = await ctx.services.fulfilment.listJobs({ companyId: s.companyId, failed: true });
    expect(failed.map((j) => j.id)).toEqual([job.id]);
    await ctx.services.fulfilment.retryJob(job.id);
    expect(await worker.runOnce()).toBe(true);
    [job] = await jobsOf(ctx, s.companyId);
    expect(job.status).toBe('done');
  });

  it('refused credentials fail the job at once (not retryable), and no secret reaches last_error', async () => {
    const s = await shiprocketShop({ password: 'wrong-password-xyz' });
    await post(ctx, s.headers, orderBody());
    const worker = createCourierWorker({ db: ctx.db, config: workerConfig(), log: ctx.workerLog('courier-worker') });
    await worker.runOnce();
    const [job] = await jobsOf(ctx, s.companyId);
    expect(job).toMatchObject({ status: 'failed', attempts: 1 });
    expect(job.last_error).toMatch(/answered 401/);
    expect(job.last_error).not.toContain('wrong-password-xyz');
  });

  it('a worker stopped mid-booking hands the job back; a new worker books it once', async () => {
    const s = await shiprocketShop();
    const ref = (await post(ctx, s.headers, orderBody())).body.data.order_number;
    const before = courier.state.creates;
    courier.state.delayMs = 2_000;
    const first = createCourierWorker({ db: ctx.db, config: workerConfig(), log: ctx.workerLog('courier-worker') });
    first.start();
    await waitFor(async () => courier.state.creates > before);
    await first.stop(); // aborts the call in flight
    courier.state.delayMs = 0;
    let [job] = await jobsOf(ctx, s.companyId);
    expect(job).toMatchObject({ status: 'pending', attempts: 0 });
    expect(job.last_error).toMatch(/interrupted/);
    expect((await get(ctx, s.headers, `/orders/${ref}`)).body.data.shipment).toBeNull();

    const second = createCourierWorker({ db: ctx.db, config: workerConfig(), log: ctx.workerLog('courier-worker') });
    expect(await second.runOnce()).toBe(true);
    [job] = await jobsOf(ctx, s.companyId);
    expect(job).toMatchObject({ status: 'done', attempts: 1 });
    expect(courier.state.orders.has(ref)).toBe(true);
    const [n] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM shipments WHERE company_id = ${s.companyId}`);
    expect(n.n).toBe(1);
  });

  it('a job whose worker died is due again when its lease runs out, and is booked once', async () => {
    const s = await shiprocketShop();
    await post(ctx, s.headers, orderBody());
    // what a crashed worker leaves behind: claimed, attempt counted, lease in the future
    await ctx.db.query(sql`UPDATE jobs SET claimed_by = 'wkr_dead', attempts = 1, run_at = now() + interval '1 hour' WHERE company_id = ${s.companyId}`);
    const worker = createCourierWorker({ db: ctx.db, config: workerConfig(), log: ctx.workerLog('courier-worker') });
    expect(await worker.runOnce()).toBe(false);
    await ctx.db.query(sql`UPDATE jobs SET run_at = now() - interval '1 second' WHERE company_id = ${s.companyId}`); // lease over
    expect(await worker.runOnce()).toBe(true);
    expect((await jobsOf(ctx, s.companyId))[0]).toMatchObject({ status: 'done', attempts: 2 });
  });

  it('a cancelled order is not booked: its job is closed as skipped', async () => {
    const s = await shiprocketShop();
    const ref = (await post(ctx, s.headers, orderBody())).body.data.order_number;
    await ctx.services.fulfilment.move(s.companyId, ref, 'cancelled');
    const before = courier.state.creates;
    await createCourierWorker({ db: ctx.db, config: workerConfig(), log: ctx.workerLog('courier-worker') }).runOnce();
    expect(courier.state.creates).toBe(before);
    expect((await jobsOf(ctx, s.companyId))[0]).toMatchObject({ status: 'done', last_error: 'skipped: order is cancelled' });
  });
});

describe('manual courier', () => {
  beforeEach(closeOtherJobs);
  it('the worker does not pretend to book: the shipment waits, pending, for staff to enter AWB and courier', async () => {
    const s = await teeShop(ctx, '5', { auto_courier_booking: true });
    const ref = (await post(ctx, s.headers, orderBody())).body.data.order_number;
    const before = courier.state.creates;
    await createCourierWorker({ db: ctx.db, config: workerConfig(), log: ctx.workerLog('courier-worker') }).runOnce();
    expect(courier.state.creates).toBe(before);
    let lookup = (await get(ctx, s.headers, `/orders/${ref}`)).body.data;
    expect(lookup.shipment).toEqual({
      awb: null,
      courier: null,
      status: 'pending',
      status_label: 'Waiting for courier booking',
      tracking_url: null,
      delivered_at: null,
    });
    expect(lookup.order_status).toBe('confirmed');

    await ctx.services.fulfilment.ship(s.companyId, ref, {
      awb: 'BD123456789IN',
      courier: 'India Post',
      trackingUrl: 'https://www.indiapost.gov.in/track?id=BD123456789IN',
    });
    lookup = (await get(ctx, s.headers, `/orders/${ref}`)).body.data;
    expect(lookup.order_status).toBe('shipped');
    expect(lookup.shipment).toMatchObject({
      awb: 'BD123456789IN',
      courier: 'India Post',
      status: 'booked',
      tracking_url: 'https://www.indiapost.gov.in/track?id=BD123456789IN',
    });
  });
});
