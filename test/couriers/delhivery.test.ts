import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { acrossCompanies } from '../helpers/across-companies.js';
import { fakeDelhivery } from '../helpers/delhivery.js';
import { get, jobsOf, orderBody, post, teeShop } from '../helpers/fulfilment.js';
import { signCallback } from '../../src/couriers/callback-signature.js';
import { courierAdapter, mapDelhiveryStatus } from '../../src/couriers/index.js';
import { findCourierConfig } from '../../src/fulfilment/fulfilment.queries.js';
import { createCourierWorker, type WorkerConfig } from '../../src/fulfilment/worker.js';

/** Delhivery added through the courier registry, booked by the real worker against a local Delhivery simulator. */
const ctx = useTestApp();
let dlv: Awaited<ReturnType<typeof fakeDelhivery>>;
beforeAll(async () => {
  dlv = await fakeDelhivery();
});
afterAll(async () => {
  await dlv.close();
});
// The worker serves every company in the database: each test starts with no other company's job due.
beforeEach(() => acrossCompanies(ctx.db, sql`UPDATE jobs SET status = 'done', last_error = 'closed by test setup' WHERE status = 'pending'`));

const workerConfig = (over: Partial<WorkerConfig> = {}): WorkerConfig => ({
  FULFILMENT_POLL_MS: 20,
  FULFILMENT_MAX_ATTEMPTS: 5,
  FULFILMENT_RETRY_BASE_MS: 1,
  FULFILMENT_LEASE_MS: 60_000,
  COURIER_TIMEOUT_MS: 5_000,
  ...over,
});
const worker = (over: Partial<WorkerConfig> = {}) => createCourierWorker({ db: ctx.db, config: workerConfig(over), log: ctx.workerLog('courier-worker') });

async function delhiveryShop(token = dlv.account()) {
  const s = await teeShop(ctx, '100', { auto_courier_booking: true });
  const cfg = await ctx.services.fulfilment.configureCourier(
    s.companyId,
    { kind: 'cli', name: 'test' },
    { adapter: 'delhivery', baseUrl: dlv.url, token, pickupLocation: 'WH-BLR' },
  );
  return { ...s, token, slug: s.company.slug, secret: cfg.callback_secret! };
}

/** What a tracking poll does: ask the company's courier for the waybill's state and record it as the worker's update. */
async function poll(companyId: string, awb: string) {
  const adapter = courierAdapter((await findCourierConfig(ctx.db, companyId))!);
  const status = await adapter.track(awb, AbortSignal.timeout(5_000));
  expect(status).not.toBeNull();
  return ctx.services.fulfilment.track(companyId, { awb }, status!, { source: 'worker' });
}

function signedCallback(slug: string, secret: string, body: unknown) {
  const payload = JSON.stringify(body);
  return ctx.app.inject({
    method: 'POST',
    url: `/couriers/${slug}/callback`,
    headers: { 'content-type': 'application/json', 'x-courier-signature': signCallback(secret, payload) },
    payload,
  });
}

describe('Delhivery through the registry: configured, booked by the worker, tracked to delivered', () => {
  it('books once with a form body and token auth, then follows the parcel to delivered (tracking and callbacks)', async () => {
    const s = await delhiveryShop();
    const ref = (await post(ctx, s.headers, orderBody({ payment: 'cod' }))).body.data.order_number;
    const before = dlv.state.creates;
    const w = worker();
    expect(await w.runOnce()).toBe(true);
    expect(dlv.state.creates - before).toBe(1);
    expect(dlv.state.auth.at(-1)).toBe(`Token ${s.token}`);
    expect(dlv.state.contentTypes.at(-1)).toBe('application/x-www-form-urlencoded');
    const sent = dlv.state.created.at(-1)!;
    expect(sent.pickup_location).toEqual({ name: 'WH-BLR' });
    expect(sent.shipments[0]).toMatchObject({ order: ref, payment_mode: 'COD', cod_amount: '499.00', pin: '560038', state: 'Karnataka', country: 'India' });

    const booked = (await get(ctx, s.headers, `/orders/${ref}`)).body.data;
    const awb: string = booked.shipment.awb;
    expect(booked.shipment).toEqual({
      awb: expect.stringMatching(/^\d{11}$/),
      courier: 'Delhivery',
      status: 'booked',
      status_label: 'Courier booked',
      tracking_url: `https://www.delhivery.com/track/package/${awb}`,
      delivered_at: null,
    });
    expect((await jobsOf(ctx, s.companyId))[0]).toMatchObject({ status: 'done', attempts: 1 });
    expect(await ctx.db.query(sql`SELECT adapter, courier_shipment_id FROM shipments WHERE company_id = ${s.companyId}`)).toEqual([
      { adapter: 'delhivery', courier_shipment_id: `UPL${awb}` },
    ]);

    dlv.setStatus(awb, 'UD', 'In Transit');
    expect((await poll(s.companyId, awb)).update.result).toBe('applied');
    let view = (await get(ctx, s.headers, `/orders/${ref}`)).body.data;
    expect([view.order_status, view.shipment.status]).toEqual(['shipped', 'in_transit']);

    // A callback carrying Delhivery's own words is read by Delhivery's mapping (not Shiprocket's).
    const res = await signedCallback(s.slug, s.secret, { awb, status: 'UD Dispatched' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ result: 'applied', shipment: { status: 'out_for_delivery' } });

    dlv.setStatus(awb, 'DL', 'Delivered');
    expect((await poll(s.companyId, awb)).update.result).toBe('applied');
    view = (await get(ctx, s.headers, `/orders/${ref}`)).body.data;
    expect([view.order_status, view.shipment.status]).toEqual(['delivered', 'delivered']);
    expect(view.shipment.delivered_at).not.toBeNull();
    expect((await poll(s.companyId, awb)).update.result).toBe('repeated');
  });

  it('a courier 500 is retried with backoff and then books', async () => {
    const s = await delhiveryShop();
    const ref = (await post(ctx, s.headers, orderBody())).body.data.order_number;
    dlv.state.failNext = 1;
    const w = worker({ FULFILMENT_RETRY_BASE_MS: 300 });
    await w.runOnce();
    let [job] = await jobsOf(ctx, s.companyId);
    expect(job).toMatchObject({ status: 'pending', attempts: 1 });
    expect(job.last_error).toMatch(/POST \/api\/cmu\/create.json answered 500/);
    expect(await w.runOnce()).toBe(false); // not due yet: backoff
    await new Promise((r) => setTimeout(r, 350));
    expect(await w.runOnce()).toBe(true);
    [job] = await jobsOf(ctx, s.companyId);
    expect(job).toMatchObject({ status: 'done', attempts: 2 });
    expect((await get(ctx, s.headers, `/orders/${ref}`)).body.data.shipment.status).toBe('booked');
  });

  it('a create whose answer was lost is not booked twice: the retry finds the waybill by our order number', async () => {
    const s = await delhiveryShop();
    const ref = (await post(ctx, s.headers, orderBody())).body.data.order_number;
    dlv.state.loseNext = 1;
    const w = worker();
    await w.runOnce();
    expect((await jobsOf(ctx, s.companyId))[0]).toMatchObject({ status: 'pending', attempts: 1 });
    await new Promise((r) => setTimeout(r, 5));
    expect(await w.runOnce()).toBe(true);
    const parcels = [...dlv.state.parcels.entries()].filter(([, p]) => p.token === s.token && p.order === ref);
    expect(parcels).toHaveLength(1);
    expect((await get(ctx, s.headers, `/orders/${ref}`)).body.data.shipment).toMatchObject({ awb: parcels[0][0], status: 'booked' });
  });

  it('a refused token fails the job at once (not retryable), and the token reaches neither last_error nor the log', async () => {
    const s = await delhiveryShop('wrong-token-xyz');
    await post(ctx, s.headers, orderBody());
    await worker().runOnce();
    const [job] = await jobsOf(ctx, s.companyId);
    expect(job).toMatchObject({ status: 'failed', attempts: 1 });
    expect(job.last_error).toMatch(/answered 401/);
    expect(job.last_error).not.toContain('wrong-token-xyz');
    expect(ctx.rawLogs()).not.toContain('wrong-token-xyz');
  });
});

describe('Delhivery settings are checked by its configSchema where they are set', () => {
  it('refuses a configuration without the token or the pickup location, and a base URL that is not http(s)', async () => {
    const s = await teeShop(ctx, '5');
    const err = await ctx.services.fulfilment.configureCourier(s.companyId, { kind: 'cli', name: 'test' }, { adapter: 'delhivery' }).catch((e) => e);
    expect(err.kind).toBe('validation_failed');
    expect(err.details).toEqual([
      { path: 'token', message: 'required for the delhivery adapter' },
      { path: 'pickupLocation', message: 'required for the delhivery adapter' },
    ]);
    const bad = await ctx.services.fulfilment
      .configureCourier(s.companyId, { kind: 'cli', name: 'test' }, { adapter: 'delhivery', token: 't', pickupLocation: 'WH', baseUrl: 'ftp://x' })
      .catch((e) => e);
    expect(bad.details).toEqual([{ path: 'baseUrl', message: 'must be an http(s) URL' }]);
    // the base URL may be left out: Delhivery's production address
    const ok = await ctx.services.fulfilment.configureCourier(
      s.companyId,
      { kind: 'cli', name: 'test' },
      { adapter: 'delhivery', token: 't', pickupLocation: 'WH' },
    );
    expect(ok).toMatchObject({ adapter: 'delhivery', base_url: null, password_set: true, pickup_location: 'WH' });
    expect(JSON.stringify(ok)).not.toContain('"t"');
  });
});

describe("Delhivery's (StatusType, Status) pairs in the spec's set", () => {
  it.each([
    ['UD', 'Manifested', 'booked'],
    ['UD', 'Not Picked', 'booked'],
    ['UD', 'In Transit', 'in_transit'],
    ['UD', 'Pending', 'in_transit'],
    ['UD', 'Dispatched', 'out_for_delivery'],
    ['DL', 'Delivered', 'delivered'],
    ['RT', 'In Transit', 'rto'],
    ['RT', 'Dispatched', 'rto'],
    ['DL', 'RTO', 'rto'],
    ['UD', 'Returned', 'rto'],
    ['CN', 'Canceled', 'cancelled'],
    ['UD', 'Cancelled', 'cancelled'],
    ['PP', 'Scheduled', null],
    ['PU', 'In Transit', null],
    ['DL', 'DTO', null],
    ['UD', 'Something new', null],
  ])('%s %s -> %s', (type, status, expected) => {
    expect(mapDelhiveryStatus(type, status)).toBe(expected);
  });
});
