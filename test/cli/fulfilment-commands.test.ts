import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { useTestApp } from '../helpers/app.js';
import { get, orderBody, post, stockView, teeShop } from '../helpers/fulfilment.js';

const ctx = useTestApp();
beforeAll(() => {
  if (ctx.testDb.url) process.env.DATABASE_URL = ctx.testDb.url;
});

async function admin(...argv: string[]) {
  const lines: string[] = [];
  const code = await runAdmin([...argv, '--json'], (t) => lines.push(t), { db: ctx.testDb.db });
  return { code, json: JSON.parse(lines.join('\n')) };
}

describe('admin CLI: order, invoice, payment, courier, jobs', () => {
  it('draft create from flags, confirm, move, ship, track delivered with COD collected', async () => {
    const s = await teeShop(ctx, '6');
    const slug = s.company.slug;
    const draft = await admin(
      'order',
      'draft',
      'create',
      '--company',
      slug,
      '--name',
      'Meera',
      '--phone',
      '9822200011',
      '--item',
      'TEE-M:2',
      '--payment',
      'cod',
      '--line1',
      '7 FC Road',
      '--city',
      'Pune',
      '--pincode',
      '411004',
    );
    expect(draft.code).toBe(0);
    expect(draft.json).toMatchObject({ order_status: 'draft', amount: '998.00' });
    const ref = draft.json.order_number;
    expect((await get(ctx, s.headers, `/orders/${ref}`)).status).toBe(404);

    expect((await admin('order', 'confirm', ref, '--company', slug)).json.order_status).toBe('confirmed');
    expect((await stockView(ctx, s)).available).toBe('4.000');
    expect((await admin('order', 'move', ref, 'packed', '--company', slug)).json.order_status).toBe('packed');
    const shipped = await admin('order', 'ship', ref, '--company', slug, '--awb', 'BLR-900', '--courier', 'Blue Dart');
    expect(shipped.json).toMatchObject({
      order_status: 'shipped',
      shipment: { awb: 'BLR-900', courier: 'Blue Dart', status: 'booked' },
      invoice: { payment_status: 'unpaid', amount_due: '998.00' },
    });
    const delivered = await admin('order', 'track', 'BLR-900', 'delivered', '--company', slug, '--cod-collected');
    expect(delivered.json).toMatchObject({
      order_status: 'delivered',
      shipment: { status: 'delivered' },
      invoice: { payment_status: 'paid', amount_due: '0.00' },
    });
  });

  it('draft from a JSON file; illegal move exits non-zero with a clear message', async () => {
    const s = await teeShop(ctx, '6');
    const dir = mkdtempSync(join(tmpdir(), 'draft-'));
    const file = join(dir, 'order.json');
    writeFileSync(file, JSON.stringify({ customer: { name: 'Kabir', phone: '9822200012' }, items: [{ product_id: 'TEE-M', quantity: 1 }] }));
    const draft = await admin('order', 'draft', 'create', '--company', s.company.slug, '--file', file);
    expect(draft.code).toBe(0);
    const bad = await admin('order', 'move', draft.json.order_number, 'shipped', '--company', s.company.slug);
    expect(bad.code).toBe(1);
    expect(bad.json.error).toMatch(/is draft; it cannot move to shipped \(allowed: confirmed, cancelled\)/);
    const unknown = await admin('order', 'move', draft.json.order_number, 'teleported', '--company', s.company.slug);
    expect(unknown.code).not.toBe(0);
    expect(unknown.json.error).toMatch(/status must be one of/);
    const noCompany = await admin('order', 'show', draft.json.order_number);
    expect(noCompany.code).not.toBe(0);
    expect(noCompany.json.error).toMatch(/--company/);
  });

  it('address, invoice issue, partial payment, courier configure (secret shown once), jobs list/retry', async () => {
    const s = await teeShop(ctx, '6', { auto_courier_booking: true });
    const slug = s.company.slug;
    const ref = (await post(ctx, s.headers, orderBody({ delivery_address: undefined, payment: 'cod', customer: { name: 'Z', phone: '9822200013' } }))).body.data
      .order_number;
    const addr = await admin('order', 'address', ref, '--company', slug, '--line1', '9 Anna Salai', '--city', 'Chennai', '--pincode', '600002');
    expect(addr.json).toMatchObject({ booking_enqueued: true, delivery_address: { state: 'Tamil Nadu' } });
    const jobs = await admin('jobs', 'list', '--company', slug);
    expect(jobs.json).toHaveLength(1);
    expect(jobs.json[0]).toMatchObject({ order_number: ref, status: 'pending' });

    expect((await admin('invoice', 'issue', ref, '--company', slug)).json.invoice).toMatchObject({ payment_status: 'unpaid', total: '499.00' });
    expect((await admin('payment', 'record', ref, '100.50', '--company', slug)).json.invoice).toMatchObject({
      payment_status: 'partial',
      amount_due: '398.50',
    });
    const over = await admin('payment', 'record', ref, '1000', '--company', slug);
    expect(over.code).toBe(1);

    const cfg = await admin(
      'courier',
      'configure',
      '--company',
      slug,
      '--adapter',
      'shiprocket',
      '--base-url',
      'http://127.0.0.1:9',
      '--email',
      'a@b.in',
      '--password',
      'sekrit',
    );
    expect(cfg.json).toMatchObject({ adapter: 'shiprocket', password_set: true, callback_secret: expect.any(String) });
    expect(JSON.stringify(cfg.json)).not.toContain('sekrit');
    expect((await admin('courier', 'configure', '--company', slug, '--adapter', 'shiprocket')).json.callback_secret).toBeUndefined();
    expect((await admin('courier', 'configure', '--company', slug, '--adapter', 'fedex')).code).not.toBe(0);

    const missing = await admin('jobs', 'retry', 'job_nope');
    expect(missing.code).toBe(1);
  });
});
