import type { Db } from '../../src/db/index.js';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { createCheckoutExpiryWorker, type ExpiryWorkerStage } from '../../src/checkout/expiry-worker.js';
import { holdStock, insufficientStock } from '../../src/orders/reservations.js';
import { useTestApp } from '../helpers/app.js';
import { auditCompany } from '../helpers/audit.js';
import { addCheckout, checkoutRow, completeCheckout, requests, reservationsOf, shipFrom, type Item } from '../helpers/checkout.js';
import { orderBody, post, shop, stockRow } from '../helpers/orders.js';
import { recordingDatabase } from '../helpers/round-trips.js';

/** Open checkouts past their expiry give their held stock back; nothing else is touched, and no fault stops the worker. */

const ctx = useTestApp();

type Shop = Awaited<ReturnType<typeof shopWith>>;

async function shopWith(stock: Record<string, string>) {
  const products = Object.entries(stock).map(([name, onHand]) => ({
    sku: name,
    name,
    variants: [{ sku: `${name}-1`, selling_price: '100.00', stock: onHand }],
  }));
  const s = await shop(ctx, products);
  const item = (name: string, quantity: string): Item => ({ variantId: s.variantIds[`${name}-1`], sku: `${name}-1`, quantity });
  return { ...s, item, locationId: await shipFrom(ctx.db, s.companyId) };
}

const hold = (s: Shop, checkoutId: string, items: Item[]) =>
  ctx.db.tx((tx) => holdStock(tx, { companyId: s.companyId, locationId: s.locationId, checkoutId, lines: requests(items) }));
const reserved = async (s: Shop, name: string) => (await stockRow(ctx, s.companyId, s.variantIds[`${name}-1`])).reserved;

function worker(opts: { db?: typeof ctx.db; pollMs?: number } = {}) {
  const errors: ExpiryWorkerStage[] = [];
  const w = createCheckoutExpiryWorker({
    db: opts.db ?? ctx.db,
    config: { CHECKOUT_EXPIRY_POLL_MS: opts.pollMs ?? 60_000 },
    log: ctx.workerLog('checkout-expiry'),
    onError: (stage) => errors.push(stage),
  });
  return Object.assign(w, { errors });
}

const expiryLogs = (checkoutId: string) => ctx.logs.filter((l) => l.component === 'checkout-expiry' && l.checkout === checkoutId);

async function expectSound(s: Shop) {
  const a = await auditCompany(ctx.db, s.companyId);
  expect({ stock: a.stock, partial: a.partial, orphans: a.orphans, strayHolds: a.strayHolds }).toEqual({ stock: [], partial: [], orphans: [], strayHolds: [] });
}

/** The real database, with `then` run as soon as the poll's read of due sessions has answered: before any claim. */
function actingAfterPoll(then: () => Promise<unknown>): typeof ctx.db {
  const dialect = new PgDialect();
  const isPoll = (query: SQL) => dialect.sqlToQuery(query).sql.includes('checkout.expired-sessions');
  return Object.assign(Object.create(ctx.db) as typeof ctx.db, {
    async query<T>(query: SQL, name?: string): Promise<T[]> {
      const rows = await ctx.db.query<T>(query, name);
      if (isPoll(query)) await then();
      return rows;
    },
    // on Citus the poll runs in a transaction of its own (crossCompany sets the guard's level in it): act once it ends
    async tx<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      let polled = false;
      const result = await ctx.db.tx((inner) =>
        fn(
          Object.assign(Object.create(inner) as typeof inner, {
            async query<R>(query: SQL, name?: string): Promise<R[]> {
              const rows = await inner.query<R>(query, name);
              if (isPoll(query)) polled = true;
              return rows;
            },
          }),
        ),
      );
      if (polled) await then();
      return result;
    },
  });
}

const later = <T>(ms: number, fn: () => Promise<T>) => new Promise<void>((r) => setTimeout(r, ms)).then(fn);

async function until(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('checkout expiry worker', () => {
  it('with nothing due, a poll is one statement and changes nothing', async () => {
    const s = await shopWith({ A: '5' });
    const live = await addCheckout(ctx.db, s.companyId);
    await hold(s, live, [s.item('A', '1')]);
    const db = recordingDatabase(ctx.db);
    const w = worker({ db });
    await w.runOnce(); // the first also asks once whether the database is Citus
    db.statements.length = 0;
    expect(await w.runOnce()).toBe(false);
    expect(db.statements.filter((q) => !/set_config/.test(q))).toEqual([expect.stringMatching(/FROM checkout_sessions/)]);
    expect(await checkoutRow(ctx.db, s.companyId, live)).toEqual({ status: 'incomplete', order_id: null });
  });

  it('releases open sessions past their expiry and cancels them; live, completed and canceled ones are left alone', async () => {
    const s = await shopWith({ A: '10' });
    const expired = await addCheckout(ctx.db, s.companyId, { expiresInMs: -1000 });
    const escalated = await addCheckout(ctx.db, s.companyId, { expiresInMs: -1000, status: 'requires_escalation' });
    const live = await addCheckout(ctx.db, s.companyId, { expiresInMs: 60_000 });
    const completed = await addCheckout(ctx.db, s.companyId, { expiresInMs: -1000, status: 'ready_for_complete' });
    await hold(s, expired, [s.item('A', '2')]);
    await hold(s, escalated, [s.item('A', '1')]);
    await hold(s, live, [s.item('A', '3')]);
    await hold(s, completed, [s.item('A', '4')]);
    const order = await completeCheckout(ctx.db, s.companyId, completed, [s.item('A', '4')]);
    const canceled = await addCheckout(ctx.db, s.companyId, { expiresInMs: -1000, status: 'canceled' });
    const before = await checkoutRow(ctx.db, s.companyId, canceled);

    const w = worker();
    expect(await w.runOnce()).toBe(false); // less than a full batch: nothing more to read at once
    expect(await checkoutRow(ctx.db, s.companyId, expired)).toEqual({ status: 'canceled', order_id: null });
    expect(await checkoutRow(ctx.db, s.companyId, escalated)).toEqual({ status: 'canceled', order_id: null });
    expect((await reservationsOf(ctx.db, s.companyId, expired)).map((r) => r.status)).toEqual(['released']);
    expect((await reservationsOf(ctx.db, s.companyId, escalated)).map((r) => r.status)).toEqual(['released']);
    expect(await checkoutRow(ctx.db, s.companyId, live)).toEqual({ status: 'incomplete', order_id: null });
    expect((await reservationsOf(ctx.db, s.companyId, live)).map((r) => r.status)).toEqual(['open']);
    expect(await checkoutRow(ctx.db, s.companyId, completed)).toEqual({ status: 'completed', order_id: order.id });
    expect(await checkoutRow(ctx.db, s.companyId, canceled)).toEqual(before);
    expect(await reserved(s, 'A')).toBe('7.000'); // the live hold's 3 and the order's 4
    expect(expiryLogs(expired)).toEqual([expect.objectContaining({ msg: 'checkout expired: its held stock was released', released: 1 })]);
    expect(w.errors).toEqual([]);
    await expectSound(s);

    await w.runOnce();
    expect(await reserved(s, 'A')).toBe('7.000');
    expect(expiryLogs(expired)).toHaveLength(1);
  });

  it("a session completed after the poll read it is claimed by no one: it stays completed, its stock the order's", async () => {
    const s = await shopWith({ A: '1' });
    const chk = await addCheckout(ctx.db, s.companyId, { expiresInMs: -1000 });
    await hold(s, chk, [s.item('A', '1')]);
    let orderId = '';
    const w = worker({ db: actingAfterPoll(async () => (orderId = (await completeCheckout(ctx.db, s.companyId, chk, [s.item('A', '1')])).id)) });
    await w.runOnce();
    expect(orderId).not.toBe('');
    expect(await checkoutRow(ctx.db, s.companyId, chk)).toEqual({ status: 'completed', order_id: orderId });
    expect((await reservationsOf(ctx.db, s.companyId, chk)).map((r) => [r.status, r.order_id])).toEqual([['open', orderId]]);
    expect(await reserved(s, 'A')).toBe('1.000');
    await expectSound(s);
  });

  it('once started, polls by itself: a session that expires later is released', async () => {
    const s = await shopWith({ A: '5' });
    const chk = await addCheckout(ctx.db, s.companyId, { expiresInMs: 300 });
    await hold(s, chk, [s.item('A', '5')]);
    const w = worker({ pollMs: 20 });
    w.start();
    try {
      await until(async () => (await checkoutRow(ctx.db, s.companyId, chk)).status === 'canceled');
    } finally {
      await w.stop();
    }
    expect(await reserved(s, 'A')).toBe('0.000');
    await expectSound(s);
  });

  it('a session that cannot be released is logged and left for the next poll; the others still expire', async () => {
    const s = await shopWith({ A: '5', B: '5' });
    const broken = await addCheckout(ctx.db, s.companyId, { expiresInMs: -2000 });
    const fine = await addCheckout(ctx.db, s.companyId, { expiresInMs: -1000 });
    await hold(s, broken, [s.item('A', '2')]);
    await hold(s, fine, [s.item('B', '1')]);
    // a real fault: the counter no longer covers the hold, so releasing it would take reserved below 0 (a CHECK)
    await ctx.db.query(sql`UPDATE stock_levels SET reserved = 0 WHERE company_id = ${s.companyId} AND variant_id = ${s.variantIds['A-1']}`);

    const w = worker();
    await w.runOnce();
    expect(await checkoutRow(ctx.db, s.companyId, fine)).toEqual({ status: 'canceled', order_id: null });
    expect(await checkoutRow(ctx.db, s.companyId, broken)).toEqual({ status: 'incomplete', order_id: null });
    expect((await reservationsOf(ctx.db, s.companyId, broken)).map((r) => r.status)).toEqual(['open']);
    expect(w.errors).toEqual(['session']);
    expect(expiryLogs(broken)).toEqual([expect.objectContaining({ level: 50, msg: 'checkout expiry failed; tried again at the next poll' })]);

    await ctx.db.query(sql`UPDATE stock_levels SET reserved = 2 WHERE company_id = ${s.companyId} AND variant_id = ${s.variantIds['A-1']}`);
    await w.runOnce();
    expect(await checkoutRow(ctx.db, s.companyId, broken)).toEqual({ status: 'canceled', order_id: null });
    expect([await reserved(s, 'A'), await reserved(s, 'B')]).toEqual(['0.000', '0.000']);
    await expectSound(s);
  });

  it('expiry racing completion and a POST /orders for the last unit of one session: one sale wins, never two', async () => {
    const rounds = 8;
    const s = await shopWith(Object.fromEntries(Array.from({ length: rounds }, (_, i) => [`R${i}`, '1'])));
    const w = worker();
    const winners: string[] = [];
    for (let i = 0; i < rounds; i++) {
      const name = `R${i}`;
      const chk = await addCheckout(ctx.db, s.companyId, { expiresInMs: -1 });
      await hold(s, chk, [s.item(name, '1')]);
      const [held] = await reservationsOf(ctx.db, s.companyId, chk);
      // the completion starts a little later each round, so each side gets to lock the session first
      const [, completion, order] = await Promise.all([
        w.runOnce(),
        later((i % 4) * 4, () => completeCheckout(ctx.db, s.companyId, chk, [s.item(name, '1')])).then(
          (o) => o.id,
          (err: unknown) => insufficientStock(err)?.kind ?? err,
        ),
        post(ctx, s.headers, orderBody({ items: [{ product_id: `${name}-1`, quantity: 1 }] })).then((r) =>
          r.status === 201 ? (r.body.data.order_id as string) : r.body.error.code,
        ),
      ]);
      const sold = [completion, order].filter((r) => typeof r === 'string' && r.startsWith('ord_'));
      expect(sold, `round ${i}: ${String(completion)} / ${String(order)}`).toHaveLength(1);
      expect([completion, order].filter((r) => r === 'insufficient_stock')).toHaveLength(1);
      const session = await checkoutRow(ctx.db, s.companyId, chk);
      expect(session).toEqual(completion === sold[0] ? { status: 'completed', order_id: completion } : { status: 'canceled', order_id: null });
      const open = await ctx.db.query<{ id: string; order_id: string | null }>(
        sql`SELECT id, order_id FROM stock_reservations WHERE company_id = ${s.companyId} AND variant_id = ${s.variantIds[`${name}-1`]} AND status = 'open'`,
      );
      expect(open).toEqual([{ id: expect.any(String), order_id: sold[0] }]);
      expect(await reserved(s, name)).toBe('1.000');
      winners.push(completion !== sold[0] ? 'order after expiry' : open[0].id === held.id ? 'completion took the hold' : 'completion after expiry');
    }
    console.info(`[checkout expiry race] winners over ${rounds} rounds: ${winners.join(', ')}`);
    expect(w.errors).toEqual([]);
    await expectSound(s);
  });
});
