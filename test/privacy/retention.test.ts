import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { recordAudit } from '../../src/db/audit-log.js';
import { writePrivacySettings } from '../../src/customers/privacy-settings.queries.js';
import { createRetentionWorker } from '../../src/privacy/retention-worker.js';
import { retentionRules, type AnonymiseInactiveCustomers } from '../../src/privacy/retention.service.js';
import { useTestApp } from '../helpers/app.js';
import { orderBody, post, teeShop, uid } from '../helpers/fulfilment.js';

/**
 * Retention by rule: each rule deletes (or strips) a company's rows past its settings and keeps the younger ones, a
 * pending delivery keeps its event, one company's settings never reach another's rows, the inactive-customer rule
 * is off by default, and a failing rule is logged while the pass and the process go on.
 */
const ctx = useTestApp();
const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);

const worker = (extra: Partial<Parameters<typeof createRetentionWorker>[0]> = {}) =>
  createRetentionWorker({ db: ctx.db, config: ctx.config, log: ctx.workerLog('retention'), ...extra });

const count = async (table: string, companyId: string, where = sql``) => {
  const [row] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${sql.raw(table)} WHERE company_id = ${companyId} ${where}`);
  return Number(row.n);
};

/** A company with one order, and of each kind of row one 40 days old and one a day old (two events pending delivery). */
async function seeded() {
  const s = await teeShop(ctx, '100');
  const c = s.companyId;
  const placed = await post(ctx, s.headers, orderBody());
  expect(placed.status).toBe(201);
  const orderId: string = placed.body.data.order_id;
  const db = ctx.db;
  await db.query(
    sql`INSERT INTO webhook_endpoints (company_id, id, url, events, secret_enc) VALUES (${c}, 'we_1', 'https://hooks.example/x', '{order.created}', 'x')`,
  );
  for (const [id, age, status] of [
    ['ev_old_done', 40, 'delivered'],
    ['ev_old_failed', 40, 'failed'],
    ['ev_old_pending', 40, 'pending'],
    ['ev_old_none', 40, null],
    ['ev_young', 1, 'delivered'],
  ] as const) {
    await db.query(
      sql`INSERT INTO events (company_id, id, type, subject_id, data, created_at) VALUES (${c}, ${id}, 'order.created', 'ord_x', '{}', ${ago(age)})`,
    );
    if (status)
      await db.query(sql`INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id, subject_id, seq, status)
                         VALUES (${c}, 'we_1', ${id}, 'ord_x', 1, ${status})`);
  }
  for (const [id, age, status] of [
    ['job_done_old', 40, 'done'],
    ['job_failed_old', 40, 'failed'],
    ['job_pending_old', 40, 'pending'],
    ['job_done_young', 1, 'done'],
  ] as const)
    await db.query(
      sql`INSERT INTO jobs (company_id, id, kind, status, updated_at, created_at) VALUES (${c}, ${id}, 'test', ${status}, ${ago(age)}, ${ago(age)})`,
    );
  for (const [id, age, status] of [
    ['ucpd_old', 40, 'delivered'],
    ['ucpd_old_pending', 40, 'pending'],
    ['ucpd_young', 1, 'failed'],
  ] as const)
    await db.query(sql`INSERT INTO ucp_order_deliveries (company_id, id, checkout_id, order_id, event_type, url, status, created_at)
                       VALUES (${c}, ${id}, 'chk_done_old', ${orderId}, 'order_shipped', 'https://platform.example/e', ${status}, ${ago(age)})`);
  for (const [id, age, status] of [
    ['pay_old', 40, 'acted'],
    ['pay_old_attention', 40, 'needs_attention'],
    ['pay_young', 5, 'acted'],
  ] as const)
    await db.query(sql`INSERT INTO payment_events (company_id, provider, event_id, event_type, status, payload, created_at)
                       VALUES (${c}, 'razorpay', ${id}, 'payment.captured', ${status}, '{}', ${ago(age)})`);
  for (const [key, age] of [
    ['k_old', 40],
    ['k_young', 1],
  ] as const)
    await db.query(sql`INSERT INTO idempotency_records (company_id, scope, key, request_hash, status_code, response, created_at)
                       VALUES (${c}, 'POST checkout-sessions', ${key}, '\\x00', 201, '{}', ${ago(age)})`);
  const session = (id: string, status: string, age: number, order: string | null) =>
    db.query(sql`INSERT INTO checkout_sessions (company_id, id, status, ucp_version, buyer, fulfillment, expires_at, order_id, completed_view, created_at, updated_at)
                 VALUES (${c}, ${id}, ${status}, '2026-01-11', '{"email":"asha@example.in"}', '{"methods":[]}', ${ago(age)}, ${order},
                         ${order ? JSON.stringify({ methods: [{ id: 'm1', destinations: [{ id: 'd1', street_address: '12 MG Road' }], selected_destination_id: 'd1', groups: [] }] }) : null}::jsonb,
                         ${ago(age)}, ${ago(age)})`);
  await session('chk_canceled_old', 'canceled', 40, null);
  await session('chk_canceled_young', 'canceled', 1, null);
  await session('chk_open_old', 'incomplete', 40, null);
  await session('chk_done_old', 'completed', 40, orderId);
  const variantId = s.variantIds['TEE-M'];
  const [loc] = await db.query<{ location_id: string }>(
    sql`SELECT location_id FROM stock_levels WHERE company_id = ${c} AND variant_id = ${variantId} LIMIT 1`,
  );
  await db.query(sql`INSERT INTO stock_reservations (company_id, id, order_id, checkout_id, variant_id, location_id, quantity, status, closed_at)
                     VALUES (${c}, ${`res_${uid()}`}, NULL, 'chk_canceled_old', ${variantId}, ${loc.location_id}, 1, 'released', ${ago(40)})`);
  const service = { kind: 'service' as const, name: 'test' };
  await recordAudit(db, c, service, { action: 'test.old', at: ago(1200) });
  await recordAudit(db, c, service, { action: 'test.young', at: ago(1000) });
  return { ...s, c, orderId };
}

async function ids(table: string, column: string, c: string): Promise<string[]> {
  const rows = await ctx.db.query<{ id: string }>(sql`SELECT ${sql.raw(column)} AS id FROM ${sql.raw(table)} WHERE company_id = ${c} ORDER BY 1`);
  // the order placed made an event of its own (order.created, just now): only the seeded ones are looked at
  // and the company's and its keys' own audit entries (written when they were made) are not the seeded ones either
  return rows.map((r) => r.id).filter((id) => (table !== 'events' || id.startsWith('ev_')) && (table !== 'audit_log' || id.startsWith('test.')));
}

describe('retention rules', () => {
  it('removes what is past each rule at the defaults and keeps what is younger, pending or open', async () => {
    const s = await seeded();
    await worker().runOnce();
    const c = s.c;
    expect(await ids('events', 'id', c)).toEqual(['ev_old_pending', 'ev_young']);
    expect(await ids('webhook_deliveries', 'event_id', c)).toEqual(['ev_old_pending', 'ev_young']);
    expect(await ids('jobs', 'id', c)).toEqual(['job_done_young', 'job_pending_old']);
    expect(await ids('ucp_order_deliveries', 'id', c)).toEqual(['ucpd_old_pending', 'ucpd_young']);
    expect(await ids('payment_events', 'event_id', c)).toEqual(['pay_old_attention', 'pay_young']);
    expect(await ids('idempotency_records', 'key', c)).toEqual(['k_young']);
    expect(await ids('checkout_sessions', 'id', c)).toEqual(['chk_canceled_young', 'chk_done_old', 'chk_open_old']);
    expect(await count('stock_reservations', c, sql`AND checkout_id = 'chk_canceled_old'`)).toBe(0);
    // the order's checkout stays for the UCP order lookup, without the buyer's details
    const [done] = await ctx.db.query<{ buyer: unknown; fulfillment: unknown; completed_view: { methods: Record<string, unknown>[] }; order_id: string }>(
      sql`SELECT buyer, fulfillment, completed_view, order_id FROM checkout_sessions WHERE company_id = ${c} AND id = 'chk_done_old'`,
    );
    expect(done).toMatchObject({ buyer: null, fulfillment: null, order_id: s.orderId });
    expect(done.completed_view.methods).toEqual([{ id: 'm1', groups: [] }]);
    // the young ones keep theirs
    const [young] = await ctx.db.query<{ buyer: unknown }>(sql`SELECT buyer FROM checkout_sessions WHERE company_id = ${c} AND id = 'chk_open_old'`);
    expect(young.buyer).toEqual({ email: 'asha@example.in' });
    expect((await ids('audit_log', 'action', c)).sort()).toEqual(['test.young']);
    // the order is untouched
    expect(await count('orders', c)).toBe(1);
    // one info line per company and rule with its counts, no row content
    const lines = ctx.logs.filter((l) => l.component === 'retention' && l.company === c);
    expect(lines.map((l) => l.rule)).toEqual([
      'events',
      'jobs',
      'ucp_order_deliveries',
      'payment_events',
      'idempotency_records',
      'canceled_checkouts',
      'completed_checkouts',
      'audit_log',
    ]);
    expect(lines[0]).toMatchObject({ events: 3, deliveries: 2 });
    expect(JSON.stringify(lines)).not.toContain('asha@example.in');
    // a second pass finds nothing more
    await worker().runOnce();
    expect(ctx.logs.filter((l) => l.component === 'retention' && l.company === c)).toHaveLength(lines.length);
  });

  it("follows each company's own settings and never touches another company's rows", async () => {
    const a = await seeded();
    const b = await seeded();
    await writePrivacySettings(ctx.db, b.c, {
      events_retention_days: 60,
      jobs_retention_days: 60,
      checkout_sessions_retention_days: 60,
      audit_retention_days: 1500,
    });
    await writePrivacySettings(ctx.db, a.c, { events_retention_days: 1, jobs_retention_days: 1, checkout_sessions_retention_days: 1 });
    await worker().runOnce();
    // a: everything a day old or more goes (the pending delivery's event stays); a Razorpay event is kept 7 days at least
    expect(await ids('events', 'id', a.c)).toEqual(['ev_old_pending']);
    expect(await ids('jobs', 'id', a.c)).toEqual(['job_pending_old']);
    expect(await ids('payment_events', 'event_id', a.c)).toEqual(['pay_old_attention', 'pay_young']);
    expect(await ids('checkout_sessions', 'id', a.c)).toEqual(['chk_done_old', 'chk_open_old']);
    // b keeps all of it
    expect(await count('events', b.c, sql`AND id LIKE 'ev\\_%'`)).toBe(5);
    expect(await count('webhook_deliveries', b.c)).toBe(4);
    expect(await count('jobs', b.c)).toBe(4);
    expect(await count('ucp_order_deliveries', b.c)).toBe(3);
    expect(await count('payment_events', b.c)).toBe(3);
    expect(await count('idempotency_records', b.c)).toBe(2);
    expect(await count('checkout_sessions', b.c)).toBe(4);
    expect(await count('checkout_sessions', b.c, sql`AND buyer IS NOT NULL`)).toBe(4);
    expect(await count('audit_log', b.c, sql`AND action LIKE 'test.%'`)).toBe(2);
  });

  it('purges in batches until nothing is due (a batch of 2 over 7 rows), paging past a pending delivery', async () => {
    const s = await teeShop(ctx, '1');
    const c = s.companyId;
    for (let i = 0; i < 7; i++)
      await ctx.db.query(sql`INSERT INTO jobs (company_id, id, kind, status, updated_at) VALUES (${c}, ${`job_${i}`}, 'test', 'done', ${ago(40)})`);
    await ctx.db.query(
      sql`INSERT INTO webhook_endpoints (company_id, id, url, events, secret_enc) VALUES (${c}, 'we_1', 'https://hooks.example/x', '{order.created}', 'x')`,
    );
    for (let i = 0; i < 7; i++) {
      await ctx.db.query(
        sql`INSERT INTO events (company_id, id, type, subject_id, data, created_at) VALUES (${c}, ${`ev_${i}`}, 'order.created', 'ord_x', '{}', ${ago(50 - i)})`,
      );
      await ctx.db.query(sql`INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id, subject_id, seq, status)
                             VALUES (${c}, 'we_1', ${`ev_${i}`}, 'ord_x', ${i}, ${i === 1 ? 'pending' : 'delivered'})`);
    }
    const w = createRetentionWorker({
      db: ctx.db,
      config: { ...ctx.config, RETENTION_BATCH: 2, RETENTION_PAUSE_MS: 1 },
      log: ctx.workerLog('retention'),
    });
    await w.runOnce();
    expect(await count('jobs', s.companyId)).toBe(0);
    expect(ctx.logs.find((l) => l.company === s.companyId && l.rule === 'jobs')).toMatchObject({ jobs: 7 });
    expect(await ids('events', 'id', c)).toEqual(['ev_1']);
    expect(ctx.logs.find((l) => l.company === c && l.rule === 'events')).toMatchObject({ events: 6, deliveries: 6 });
  });

  it('leaves inactive customers alone unless the company sets inactive_customer_years (off by default)', async () => {
    const calls: unknown[][] = [];
    const anonymise: AnonymiseInactiveCustomers = async (_db, companyId, years, _now, limit) => {
      calls.push([companyId, years, limit]);
      return 0;
    };
    const off = await teeShop(ctx, '1');
    const on = await teeShop(ctx, '1');
    await writePrivacySettings(ctx.db, on.companyId, { inactive_customer_years: 3 });
    await worker({ anonymiseInactiveCustomers: anonymise }).runOnce();
    expect(calls.filter(([c]) => c === off.companyId)).toEqual([]);
    expect(calls.filter(([c]) => c === on.companyId)).toEqual([[on.companyId, 3, ctx.config.RETENTION_BATCH]]);
    // without the function the rule is not in the list at all
    expect(retentionRules(undefined).map((r) => r.name)).not.toContain('inactive_customers');
  });

  it('logs a failing rule and goes on with the other rules and companies; the loop keeps running', async () => {
    const s = await seeded();
    const errors: string[] = [];
    const failing = {
      name: 'jobs' as const,
      days: () => 1,
      batch: async () => {
        await ctx.db.query(sql`SELECT * FROM no_such_table_for_retention`);
        return {};
      },
    };
    const w = worker({ rules: [failing, ...retentionRules(undefined)], onError: (stage) => errors.push(stage) });
    await expect(w.runOnce()).resolves.toBe(false);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e === 'rule')).toBe(true);
    const failed = ctx.logs.find((l) => l.company === s.c && l.level === 50 && l.rule === 'jobs');
    expect(failed).toBeDefined();
    // the real rules ran after it
    expect(await ids('events', 'id', s.c)).toEqual(['ev_old_pending', 'ev_young']);
    // started as main.ts starts it, it keeps polling through failing passes and stops cleanly
    const looping = worker({
      rules: [failing],
      onError: (stage) => errors.push(stage),
      config: { ...ctx.config, RETENTION_POLL_MS: 10 },
    });
    const before = errors.length;
    looping.start();
    await new Promise((r) => setTimeout(r, 300));
    await looping.stop();
    expect(errors.length).toBeGreaterThan(before + 1);
  });
});
