import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { writeCodSettings } from '../../src/cod/cod-settings.queries.js';
import { useTestApp } from '../helpers/app.js';
import { jobsOf, orderBody, post, stockView, teeShop } from '../helpers/fulfilment.js';

/** Staff and a COD confirmation left to them: `orders attention` lists it, `order cod-confirm` settles it. */
const ctx = useTestApp();
beforeAll(() => {
  if (ctx.testDb.url) process.env.DATABASE_URL = ctx.testDb.url;
});

async function admin(...argv: string[]) {
  const lines: string[] = [];
  const code = await runAdmin([...argv, '--json'], (t) => lines.push(t), { db: ctx.testDb.db });
  return { code, out: lines.join('\n') };
}

describe('admin CLI: order cod-confirm', () => {
  it('an overdue confirmation left to staff is listed, then confirmed (a booking queued) or declined (cancelled, stock back); a wrong answer is a usage error', async () => {
    const s = await teeShop(ctx, '10', { auto_courier_booking: true });
    await writeCodSettings(ctx.db, s.companyId, { confirm_before_booking: true, on_timeout: 'staff' });
    const slug = s.company.slug;
    const first = (await post(ctx, s.headers, orderBody({ payment: 'cod', items: [{ product_id: 'TEE-M', quantity: 2 }] }))).body.data;
    const second = (await post(ctx, s.headers, orderBody({ payment: 'cod', items: [{ product_id: 'TEE-M', quantity: 3 }] }))).body.data;
    await ctx.db.query(sql`UPDATE orders SET cod_confirmation_due_at = now() - interval '1 minute' WHERE company_id = ${s.companyId}`);

    const attention = await admin('orders', 'attention', '--company', slug);
    expect(attention.code).toBe(0);
    expect(
      JSON.parse(attention.out)
        .map((r: { kind: string; order_number: string }) => [r.kind, r.order_number])
        .sort(),
    ).toEqual(
      [
        ['cod_confirmation_overdue', first.order_number],
        ['cod_confirmation_overdue', second.order_number],
      ].sort(),
    );

    const wrong = await admin('order', 'cod-confirm', first.order_number, 'maybe', '--company', slug);
    expect(wrong.code).not.toBe(0);

    const confirmed = await admin('order', 'cod-confirm', first.order_number, 'confirm', '--company', slug);
    expect(confirmed.code).toBe(0);
    expect(JSON.parse(confirmed.out)).toMatchObject({ order_status: 'confirmed', cod_confirmation: 'confirmed' });
    expect(await jobsOf(ctx, s.companyId)).toHaveLength(1);

    const declined = await admin('order', 'cod-confirm', second.order_number, 'decline', '--company', slug);
    expect(JSON.parse(declined.out)).toMatchObject({ order_status: 'cancelled', cod_confirmation: 'declined' });
    expect((await stockView(ctx, s)).reserved).toBe('2.000');
    expect(JSON.parse((await admin('orders', 'attention', '--company', slug)).out)).toEqual([]);

    const again = await admin('order', 'cod-confirm', second.order_number, 'confirm', '--company', slug);
    expect(again.code).not.toBe(0);
    expect(again.out).toMatch(/already declined/);
  });
});
