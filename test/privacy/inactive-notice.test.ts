import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { writePrivacySettings } from '../../src/customers/privacy-settings.queries.js';
import { anonymiseInactiveCustomers, ERASURE_NOTICE_MS } from '../../src/privacy/customer-data.service.js';
import { createRetentionWorker } from '../../src/privacy/retention-worker.js';
import { useTestApp } from '../helpers/app.js';
import { get, orderBody, post, shop } from '../helpers/orders.js';

/**
 * The inactive-customer rule tells the customer first (DPDP Rules, Rule 8(2)): one `customer.erasure_scheduled` event
 * per period of inactivity, the erasure no sooner than 48 hours later, and none when the customer came back meanwhile.
 */
const ctx = useTestApp();

const phone = () => `+91 97${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
const YEAR_MS = 365 * 86_400_000;
const later = (from: Date, ms: number) => new Date(from.getTime() + ms);

/** A shop with one customer whose only order was cancelled three years ago, unchanged since. */
async function idleCustomer() {
  const s = await shop(ctx, [{ sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', selling_price: '499.00', stock: '100' }] }]);
  const p = phone();
  const placed = await post(ctx, s.headers, orderBody({ customer: { name: 'Idle Iyer', phone: p, email: 'idle@example.com' } }));
  expect(placed.status).toBe(201);
  await ctx.services.fulfilment.move(s.companyId, placed.body.data.order_number, 'cancelled');
  const old = new Date(Date.now() - 3 * YEAR_MS).toISOString();
  await ctx.db.query(sql`UPDATE customers SET updated_at = ${old}::timestamptz WHERE company_id = ${s.companyId}`);
  await ctx.db.query(sql`UPDATE orders SET created_at = ${old}::timestamptz WHERE company_id = ${s.companyId}`);
  const [c] = await ctx.db.query<{ id: string; updated_at: Date }>(sql`SELECT id, updated_at FROM customers WHERE company_id = ${s.companyId}`);
  return { ...s, phone: p, customerId: c.id, oldUpdatedAt: c.updated_at };
}

const notices = (companyId: string) =>
  ctx.db.query<{ subject_id: string; data: Record<string, unknown>; created_at: Date }>(
    sql`SELECT subject_id, data, created_at FROM events WHERE company_id = ${companyId} AND type = 'customer.erasure_scheduled' ORDER BY created_at, id`,
  );
const customerRow = async (companyId: string, id: string) =>
  (
    await ctx.db.query<{ erased_at: Date | null; erasure_notice_at: Date | null; updated_at: Date; name: string }>(
      sql`SELECT erased_at, erasure_notice_at, updated_at, name FROM customers WHERE company_id = ${companyId} AND id = ${id}`,
    )
  )[0];
const auditActions = (companyId: string) =>
  ctx.db.query<{ action: string; actor: string; detail: unknown }>(
    sql`SELECT action, actor, detail FROM audit_log WHERE company_id = ${companyId} AND subject_kind = 'customer' ORDER BY seq`,
  );

describe('the inactive-customer rule: a notice at least 48 hours before the erasure', () => {
  it('tells the customer once (event and stamp, updated_at untouched), erases nothing within 48 hours, erases after', async () => {
    const s = await idleCustomer();
    const lookup = (await get(ctx, s.headers, `/customers?phone=${encodeURIComponent(s.phone)}`)).body.data;
    const now = new Date();

    expect(await anonymiseInactiveCustomers(ctx.db, s.companyId, 2, now, 10)).toBe(1);
    const [notice, ...more] = await notices(s.companyId);
    expect(more).toEqual([]);
    expect(notice.subject_id).toBe(s.customerId);
    expect(notice.created_at.getTime()).toBe(now.getTime());
    // the customer as GET /customers answers it, and when the erasure is due
    expect(notice.data).toEqual({ ...lookup, erasure_due_at: later(now, 48 * 3_600_000).toISOString() });
    expect(ERASURE_NOTICE_MS).toBe(48 * 3_600_000);
    let row = await customerRow(s.companyId, s.customerId);
    expect(row.erasure_notice_at?.getTime()).toBe(now.getTime());
    expect(row.updated_at.getTime()).toBe(s.oldUpdatedAt.getTime());
    expect(row.erased_at).toBeNull();

    // passes within the 48 hours: no second notice, nothing erased
    for (const at of [now, later(now, 3_600_000), later(now, ERASURE_NOTICE_MS - 1)])
      expect(await anonymiseInactiveCustomers(ctx.db, s.companyId, 2, at, 10)).toBe(0);
    expect(await notices(s.companyId)).toHaveLength(1);
    expect((await get(ctx, s.headers, `/customers?phone=${encodeURIComponent(s.phone)}`)).status).toBe(200);

    // 48 hours on: erased, the notice's own copy of the customer too
    const due = later(now, ERASURE_NOTICE_MS);
    expect(await anonymiseInactiveCustomers(ctx.db, s.companyId, 2, due, 10)).toBe(1);
    row = await customerRow(s.companyId, s.customerId);
    expect(row.erased_at?.getTime()).toBe(due.getTime());
    expect((await get(ctx, s.headers, `/customers?phone=${encodeURIComponent(s.phone)}`)).status).toBe(404);
    const [scrubbed] = await notices(s.companyId);
    expect(JSON.stringify(scrubbed.data)).not.toMatch(/Idle Iyer|idle@example\.com/);
    expect(await auditActions(s.companyId)).toEqual([
      { action: 'customer.erasure_scheduled', actor: 'retention.inactive_customers', detail: { erasure_due_at: due.toISOString() } },
      { action: 'customer.erased', actor: 'retention.inactive_customers', detail: expect.any(Object) },
    ]);
    expect(await anonymiseInactiveCustomers(ctx.db, s.companyId, 2, later(due, YEAR_MS), 10)).toBe(0);
    expect(await notices(s.companyId)).toHaveLength(1);
  });

  it('an order placed after the notice cancels the erasure; inactive again for the whole period, a new notice, then the erasure', async () => {
    const s = await idleCustomer();
    const now = new Date(Date.now() - 60_000);
    expect(await anonymiseInactiveCustomers(ctx.db, s.companyId, 2, now, 10)).toBe(1);
    const back = await post(ctx, s.headers, orderBody({ customer: { name: 'Idle Iyer', phone: s.phone } }));
    expect(back.status).toBe(201);
    await ctx.services.fulfilment.move(s.companyId, back.body.data.order_number, 'cancelled');

    const due = later(now, ERASURE_NOTICE_MS);
    expect(await anonymiseInactiveCustomers(ctx.db, s.companyId, 2, due, 10)).toBe(0);
    expect((await customerRow(s.companyId, s.customerId)).erased_at).toBeNull();
    expect(await notices(s.companyId)).toHaveLength(1);

    // two years after the order, inactive again: told again (the old notice predates the order), not erased
    const again = later(now, 2 * YEAR_MS + 3 * 86_400_000);
    expect(await anonymiseInactiveCustomers(ctx.db, s.companyId, 2, again, 10)).toBe(1);
    expect(await notices(s.companyId)).toHaveLength(2);
    expect((await customerRow(s.companyId, s.customerId)).erased_at).toBeNull();
    expect(await anonymiseInactiveCustomers(ctx.db, s.companyId, 2, later(again, ERASURE_NOTICE_MS - 1), 10)).toBe(0);
    expect(await anonymiseInactiveCustomers(ctx.db, s.companyId, 2, later(again, ERASURE_NOTICE_MS), 10)).toBe(1);
    expect((await customerRow(s.companyId, s.customerId)).erased_at).not.toBeNull();
  });

  it('a correction after the notice (updated_at moves) cancels the erasure too', async () => {
    const s = await idleCustomer();
    const now = new Date(Date.now() - 60_000);
    expect(await anonymiseInactiveCustomers(ctx.db, s.companyId, 2, now, 10)).toBe(1);
    await ctx.services.customerData.correct(s.companyId, { kind: 'cli', name: 'test' }, { customer_id: s.customerId, name: 'Idle K Iyer' });
    expect(await anonymiseInactiveCustomers(ctx.db, s.companyId, 2, later(now, ERASURE_NOTICE_MS), 10)).toBe(0);
    expect((await customerRow(s.companyId, s.customerId)).erased_at).toBeNull();
    expect(await notices(s.companyId)).toHaveLength(1);
  });

  it('through the retention worker: off by default writes nothing; on, a pass tells every inactive customer however small the batch', async () => {
    const off = await idleCustomer();
    const on = await idleCustomer();
    const second = phone();
    const placed = await post(ctx, on.headers, orderBody({ customer: { name: 'Other Idle', phone: second } }));
    await ctx.services.fulfilment.move(on.companyId, placed.body.data.order_number, 'cancelled');
    const old = new Date(Date.now() - 3 * YEAR_MS).toISOString();
    await ctx.db.query(sql`UPDATE customers SET updated_at = ${old}::timestamptz WHERE company_id = ${on.companyId}`);
    await ctx.db.query(sql`UPDATE orders SET created_at = ${old}::timestamptz WHERE company_id = ${on.companyId}`);
    await writePrivacySettings(ctx.db, on.companyId, { inactive_customer_years: 2 });

    const now = new Date();
    const worker = (at: Date) =>
      createRetentionWorker({
        db: ctx.db,
        config: { ...ctx.config, RETENTION_BATCH: 1, RETENTION_PAUSE_MS: 1 },
        log: ctx.workerLog('retention'),
        anonymiseInactiveCustomers,
        now: () => at,
      });
    await worker(now).runOnce();
    expect(await notices(off.companyId)).toEqual([]);
    expect((await customerRow(off.companyId, off.customerId)).erasure_notice_at).toBeNull();
    expect(await auditActions(off.companyId)).toEqual([]);
    expect((await notices(on.companyId)).map((n) => n.created_at.getTime())).toEqual([now.getTime(), now.getTime()]);

    // a pass within the 48 hours changes nothing; one after erases both (the batch of one full each time)
    await worker(later(now, ERASURE_NOTICE_MS - 1)).runOnce();
    expect(await notices(on.companyId)).toHaveLength(2);
    await worker(later(now, ERASURE_NOTICE_MS)).runOnce();
    const [{ n }] = await ctx.db.query<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM customers WHERE company_id = ${on.companyId} AND erased_at IS NOT NULL`,
    );
    expect(n).toBe(2);
    expect((await customerRow(off.companyId, off.customerId)).erased_at).toBeNull();
  });
});
