import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/contract/errors.js';
import { createCheckoutExpiryWorker } from '../../src/checkout/expiry-worker.js';
import { holdStock, insufficientStock, releaseReservations, replaceHolds } from '../../src/orders/reservations.js';
import { useTestApp } from '../helpers/app.js';
import { auditCompany } from '../helpers/audit.js';
import { addCheckout, checkoutRow, completeCheckout, requests, reservationsOf, shipFrom, type Item } from '../helpers/checkout.js';
import { count, fetchJson, listeningUrl, orderBody, post, shop, stockRow } from '../helpers/orders.js';

/** A checkout's held stock is a reservation like an order's: same counter, same locks, same audit rule. */

const ctx = useTestApp();

type Shop = Awaited<ReturnType<typeof shopWith>>;

/** A shop with one product `<name>` per entry, its one variant `<name>-1` with that stock at the ship-from location. */
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

const holding = (s: Shop, checkoutId: string, items: Item[]) => ({ companyId: s.companyId, locationId: s.locationId, checkoutId, lines: requests(items) });
const hold = (s: Shop, checkoutId: string, items: Item[]) => ctx.db.tx((tx) => holdStock(tx, holding(s, checkoutId, items)));
const replace = (s: Shop, checkoutId: string, items: Item[]) => ctx.db.tx((tx) => replaceHolds(tx, holding(s, checkoutId, items)));
const release = (s: Shop, checkoutId: string) => ctx.db.tx((tx) => releaseReservations(tx, { companyId: s.companyId, checkoutId }));

const reserved = async (s: Shop, name: string) => (await stockRow(ctx, s.companyId, s.variantIds[`${name}-1`])).reserved;

async function inStock(s: Shop, name: string): Promise<boolean> {
  const [row] = await ctx.db.query<{ in_stock: boolean }>(sql`SELECT in_stock FROM products WHERE company_id = ${s.companyId} AND sku = ${name}`);
  return row.in_stock;
}

/** The refusal a call ended with (or 'ok'), as the API would name it. */
const outcome = (work: Promise<unknown>) =>
  work.then(
    () => 'ok',
    (err: unknown) => (err instanceof AppError ? err.kind : (insufficientStock(err)?.kind ?? err)),
  );

/** reserved = sum(open reservations), on hand never below reserved, every order whole, no hold left by a finished checkout. */
async function expectSound(s: Shop) {
  const a = await auditCompany(ctx.db, s.companyId);
  expect({ stock: a.stock, partial: a.partial, orphans: a.orphans, strayHolds: a.strayHolds }).toEqual({ stock: [], partial: [], orphans: [], strayHolds: [] });
}

describe('a checkout holds stock', () => {
  it('a hold takes stock from POST /orders as an order does', async () => {
    const s = await shopWith({ A: '5' });
    const chk = await addCheckout(ctx.db, s.companyId);
    await hold(s, chk, [s.item('A', '3')]);
    expect(await stockRow(ctx, s.companyId, s.variantIds['A-1'])).toEqual({ on_hand: '5.000', reserved: '3.000', open: '3.000' });
    expect((await reservationsOf(ctx.db, s.companyId, chk)).map((r) => [r.quantity, r.status, r.order_id])).toEqual([['3.000', 'open', null]]);

    const refused = await post(ctx, s.headers, orderBody({ items: [{ product_id: 'A-1', quantity: 3 }] }));
    expect(refused.status).toBe(409);
    expect(refused.body.error.details).toEqual([{ product_id: 'A-1', requested: '3.000', available: '2.000' }]);
    expect((await post(ctx, s.headers, orderBody({ items: [{ product_id: 'A-1', quantity: 2 }] }))).status).toBe(201);
    expect(await reserved(s, 'A')).toBe('5.000');
    expect(await inStock(s, 'A')).toBe(false);
    await expectSound(s);
  });

  it('a hold short of stock is refused with insufficient_stock and changes nothing', async () => {
    const s = await shopWith({ A: '5', B: '1' });
    const chk = await addCheckout(ctx.db, s.companyId);
    const err = await hold(s, chk, [s.item('A', '2'), s.item('B', '2')]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).kind).toBe('insufficient_stock');
    expect((err as AppError).details).toEqual([{ product_id: 'B-1', requested: '2.000', available: '1.000' }]);
    expect(await reservationsOf(ctx.db, s.companyId, chk)).toEqual([]);
    expect([await reserved(s, 'A'), await reserved(s, 'B')]).toEqual(['0.000', '0.000']);
  });

  it('parallel holds and POST /orders over the last units, items in opposite orders: exactly the stock is taken, never more', async () => {
    const s = await shopWith({ A: '10', B: '10' });
    const url = await listeningUrl(ctx);
    const names = (i: number) => (i % 2 === 0 ? ['A', 'B'] : ['B', 'A']);
    const checkouts = await Promise.all(Array.from({ length: 20 }, () => addCheckout(ctx.db, s.companyId)));

    const holds = checkouts.map((chk, i) =>
      outcome(
        hold(
          s,
          chk,
          names(i).map((n) => s.item(n, '1')),
        ),
      ),
    );
    const orders = Array.from({ length: 20 }, (_, i) =>
      fetchJson(`${url}/orders`, {
        method: 'POST',
        headers: s.headers,
        body: orderBody({
          items: names(i).map((n) => ({ product_id: `${n}-1`, quantity: 1 })),
          customer: { name: `Buyer ${i}`, phone: `98765${String(10000 + i)}` },
        }),
      }).then((r) => (r.status === 201 ? 'ok' : r.body.error.code)),
    );
    const results = await Promise.all([...holds, ...orders]);

    expect(results.filter((r) => r === 'ok')).toHaveLength(10);
    expect(results.filter((r) => r === 'insufficient_stock')).toHaveLength(30);
    expect([await reserved(s, 'A'), await reserved(s, 'B')]).toEqual(['10.000', '10.000']);
    const holders = await Promise.all(checkouts.map((chk) => reservationsOf(ctx.db, s.companyId, chk)));
    expect(holders.filter((rows) => rows.length > 0)).toHaveLength(results.slice(0, 20).filter((r) => r === 'ok').length);
    await expectSound(s);
  });
});

describe("a checkout's lines change", () => {
  it('the old holds are released and the new lines held in one step; on short stock the old holds stay', async () => {
    const s = await shopWith({ A: '5', B: '2' });
    const chk = await addCheckout(ctx.db, s.companyId);
    await hold(s, chk, [s.item('A', '2')]);
    const before = await reservationsOf(ctx.db, s.companyId, chk);

    const err = await replace(s, chk, [s.item('A', '1'), s.item('B', '3')]).catch((e: unknown) => e);
    expect((err as AppError).kind).toBe('insufficient_stock');
    expect((err as AppError).details).toEqual([{ product_id: 'B-1', requested: '3.000', available: '2.000' }]);
    expect(await reservationsOf(ctx.db, s.companyId, chk)).toEqual(before);
    expect([await reserved(s, 'A'), await reserved(s, 'B')]).toEqual(['2.000', '0.000']);

    // all 5 of A: only possible because the hold of 2 is released in the same step
    await replace(s, chk, [s.item('A', '5'), s.item('B', '2')]);
    const after = await reservationsOf(ctx.db, s.companyId, chk);
    expect(after.filter((r) => r.status === 'released').map((r) => r.id)).toEqual(before.map((r) => r.id));
    expect(
      after
        .filter((r) => r.status === 'open')
        .map((r) => [r.variant_id, r.quantity])
        .sort(),
    ).toEqual(
      [
        [s.variantIds['A-1'], '5.000'],
        [s.variantIds['B-1'], '2.000'],
      ].sort(),
    );
    expect([await reserved(s, 'A'), await reserved(s, 'B')]).toEqual(['5.000', '2.000']);
    expect([await inStock(s, 'A'), await inStock(s, 'B')]).toEqual([false, false]);

    await replace(s, chk, [s.item('A', '1')]);
    expect([await reserved(s, 'A'), await reserved(s, 'B')]).toEqual(['1.000', '0.000']);
    expect([await inStock(s, 'A'), await inStock(s, 'B')]).toEqual([true, true]);
    await expectSound(s);
  });
});

describe('a checkout is cancelled', () => {
  it("its holds go back to stock; releasing again changes nothing; an order's reservations are not touched", async () => {
    const s = await shopWith({ A: '3' });
    const chk = await addCheckout(ctx.db, s.companyId);
    await hold(s, chk, [s.item('A', '2')]);
    expect((await post(ctx, s.headers, orderBody({ items: [{ product_id: 'A-1', quantity: 1 }] }))).status).toBe(201);
    expect(await inStock(s, 'A')).toBe(false);

    expect(await release(s, chk)).toBe(1);
    expect(await stockRow(ctx, s.companyId, s.variantIds['A-1'])).toEqual({ on_hand: '3.000', reserved: '1.000', open: '1.000' });
    expect(await inStock(s, 'A')).toBe(true);

    expect(await release(s, chk)).toBe(0);
    expect(await stockRow(ctx, s.companyId, s.variantIds['A-1'])).toEqual({ on_hand: '3.000', reserved: '1.000', open: '1.000' });
    expect((await reservationsOf(ctx.db, s.companyId, chk)).map((r) => r.status)).toEqual(['released']);
    await expectSound(s);
  });
});

describe('a checkout completes into an order', () => {
  it('the order takes the holds as they are: reserved does not move, the same reservation rows now name the order', async () => {
    const s = await shopWith({ A: '2', B: '4' });
    const chk = await addCheckout(ctx.db, s.companyId, { status: 'ready_for_complete' });
    await hold(s, chk, [s.item('A', '2'), s.item('B', '1')]);
    const held = await reservationsOf(ctx.db, s.companyId, chk);

    const order = await completeCheckout(ctx.db, s.companyId, chk, [s.item('B', '1'), s.item('A', '2')]);
    expect((await reservationsOf(ctx.db, s.companyId, chk)).map((r) => [r.id, r.status, r.order_id])).toEqual(held.map((r) => [r.id, 'open', order.id]));
    expect(await count(ctx, 'stock_reservations', s.companyId)).toBe(2);
    expect([await reserved(s, 'A'), await reserved(s, 'B')]).toEqual(['2.000', '1.000']);
    expect(await checkoutRow(ctx.db, s.companyId, chk)).toEqual({ status: 'completed', order_id: order.id });
    // the holds are the order's now: releasing the checkout leaves them
    expect(await release(s, chk)).toBe(0);
    expect(await reserved(s, 'A')).toBe('2.000');
    await expectSound(s);
  });

  it("lines that differ from the holds: the holds are released and the order's lines reserved in one step", async () => {
    const s = await shopWith({ A: '3' });
    const chk = await addCheckout(ctx.db, s.companyId);
    await hold(s, chk, [s.item('A', '2')]);
    const [old] = await reservationsOf(ctx.db, s.companyId, chk);

    // 3 with 1 available: only possible because the hold of 2 is released in the same step
    const order = await completeCheckout(ctx.db, s.companyId, chk, [s.item('A', '3')]);
    const [fresh] = await ctx.db.query<{ id: string; quantity: string; status: string }>(
      sql`SELECT id, quantity, status FROM stock_reservations WHERE company_id = ${s.companyId} AND order_id = ${order.id}`,
    );
    expect(fresh).toMatchObject({ quantity: '3.000', status: 'open' });
    expect(fresh.id).not.toBe(old.id);
    expect((await reservationsOf(ctx.db, s.companyId, chk)).map((r) => [r.id, r.status, r.order_id])).toEqual([[old.id, 'released', null]]);
    expect(await stockRow(ctx, s.companyId, s.variantIds['A-1'])).toEqual({ on_hand: '3.000', reserved: '3.000', open: '3.000' });
    await expectSound(s);
  });

  it('after expiry the order reserves afresh, or is refused with insufficient_stock and writes nothing', async () => {
    const s = await shopWith({ A: '3' });
    const worker = createCheckoutExpiryWorker({ db: ctx.db, config: { CHECKOUT_EXPIRY_POLL_MS: 60_000 }, log: ctx.workerLog('checkout-expiry') });
    const first = await addCheckout(ctx.db, s.companyId, { expiresInMs: -1000 });
    await hold(s, first, [s.item('A', '2')]);
    await worker.runOnce();
    expect(await checkoutRow(ctx.db, s.companyId, first)).toEqual({ status: 'canceled', order_id: null });
    expect(await reserved(s, 'A')).toBe('0.000');

    const order = await completeCheckout(ctx.db, s.companyId, first, [s.item('A', '2')]);
    expect(await reserved(s, 'A')).toBe('2.000');
    expect(await checkoutRow(ctx.db, s.companyId, first)).toEqual({ status: 'completed', order_id: order.id });

    // the second checkout's stock is sold while it is expired
    const second = await addCheckout(ctx.db, s.companyId, { expiresInMs: -1000 });
    await hold(s, second, [s.item('A', '1')]);
    await worker.runOnce();
    expect((await post(ctx, s.headers, orderBody({ items: [{ product_id: 'A-1', quantity: 1 }] }))).status).toBe(201);
    const err = await completeCheckout(ctx.db, s.companyId, second, [s.item('A', '1')]).catch((e: unknown) => e);
    expect(insufficientStock(err)?.details).toEqual([{ product_id: 'A-1', requested: '1.000', available: '0.000' }]);
    expect(await count(ctx, 'orders', s.companyId)).toBe(2);
    expect(await checkoutRow(ctx.db, s.companyId, second)).toEqual({ status: 'canceled', order_id: null });
    expect(await stockRow(ctx, s.companyId, s.variantIds['A-1'])).toEqual({ on_hand: '3.000', reserved: '3.000', open: '3.000' });
    await expectSound(s);
  });
});
