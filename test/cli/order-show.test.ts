import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { useTestApp } from '../helpers/app.js';
import { orderBody, post, teeShop } from '../helpers/fulfilment.js';

const ctx = useTestApp();

async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(argv, (t) => out.push(t), { db: ctx.testDb.db, caller: { err: (t) => err.push(t) } });
  return { code, out: out.join('\n'), err: err.join('') };
}

describe('admin CLI: order show', () => {
  it('shows the items, customer, address, shipment, invoice and history of an order, not one line', async () => {
    const s = await teeShop(ctx, '10');
    const slug = s.company.slug;
    const placed = await post(
      ctx,
      s.headers,
      orderBody({
        customer: { name: 'Meera Iyer', phone: '9822200011', email: 'meera@example.in' },
        items: [{ product_id: 'TEE-M', quantity: 2 }],
        payment: 'cod',
      }),
    );
    expect(placed.status).toBe(201);
    const ref = placed.body.data.order_number as string;
    expect((await admin('order', 'move', ref, 'packed', '--company', slug)).code).toBe(0);
    expect((await admin('order', 'ship', ref, '--company', slug, '--awb', 'BLR-77', '--courier', 'Blue Dart')).code).toBe(0);
    expect((await admin('payment', 'record', ref, '100.00', '--company', slug)).code).toBe(0);

    const shown = await admin('order', 'show', ref, '--company', slug);
    expect(shown.code, shown.err).toBe(0);
    const text = shown.out;
    expect(text).toMatch(new RegExp(`^Order: +${ref} \\(ord_`, 'm'));
    expect(text).toMatch(/^Status: +shipped: /m);
    expect(text).toMatch(/^Amount: +998\.00 INR, cod$/m);
    expect(text).toMatch(/^Customer: +Meera Iyer, \+919822200011, meera@example\.in$/m);
    expect(text).toMatch(/^Deliver to: +12 MG Road, Indiranagar, Bengaluru, Karnataka 560038$/m);
    expect(text).toMatch(/^Shipment: +booked, AWB BLR-77, Blue Dart$/m);
    expect(text).toMatch(/^Invoice: +INV-?\S+, partial, total 998\.00, due 898\.00$/m);
    // the lines as a table: SKU, name, quantity, price, GST rate, total
    expect(text).toMatch(/^Items:\n {2}SKU +NAME +QTY +PRICE +GST % +TOTAL\n {2}TEE-M +\S.* +2\.000 +499\.00 +\d+\.\d\d +998\.00$/m);
    // one history row per order event, oldest first, each with the statuses it left
    const history = text.slice(text.indexOf('History:'));
    const rows = history.split('\n').slice(2);
    expect(rows.map((r) => r.trim().split(/\s+/)[1])).toEqual([
      'order.created',
      'order.status_changed',
      'invoice.issued',
      'order.status_changed',
      'shipment.updated',
      'payment.recorded',
    ]);
    expect(rows[0]).toMatch(/^ {2}\d{4}-\d\d-\d\dT\S+Z +order\.created +confirmed +- +-$/);
    expect(rows.at(-1)).toMatch(/payment\.recorded +shipped +booked +partial$/);

    const json = JSON.parse((await admin('order', 'show', ref, '--company', slug, '--json')).out);
    expect(json).toMatchObject({
      order_number: ref,
      order_status: 'shipped',
      customer: { name: 'Meera Iyer', phone: '+919822200011', email: 'meera@example.in' },
      delivery_address: { line1: '12 MG Road', city: 'Bengaluru', pincode: '560038' },
      items: [{ sku: 'TEE-M', quantity: '2.000', unit_price: '499.00', line_total: '998.00' }],
      shipment: { awb: 'BLR-77', courier: 'Blue Dart' },
      invoice: { payment_status: 'partial', amount_due: '898.00' },
    });
    expect(json.history).toHaveLength(6);
    expect(json.history[0]).toMatchObject({ event: 'order.created', order_status: 'confirmed', shipment_status: null, payment_status: null });
  });

  it('shows a draft with no address, shipment, invoice or history yet', async () => {
    const s = await teeShop(ctx, '5');
    const draft = await admin(
      'order',
      'draft',
      'create',
      '--company',
      s.company.slug,
      '--name',
      'Kabir',
      '--phone',
      '9822200012',
      '--item',
      'TEE-M:1',
      '--json',
    );
    expect(draft.code, draft.err).toBe(0);
    const ref = JSON.parse(draft.out).order_number as string;
    const shown = await admin('order', 'show', ref, '--company', s.company.slug);
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toMatch(/^Status: +draft: /m);
    expect(shown.out).toMatch(/^Customer: +Kabir, \+919822200012$/m);
    expect(shown.out).toMatch(/^Deliver to: +\(no address yet\)$/m);
    expect(shown.out).toMatch(/^Shipment: +\(none\)$/m);
    expect(shown.out).toMatch(/^Invoice: +\(not issued\)$/m);
    expect(shown.out).toMatch(/^History:\n {2}\(none\)$/m);
  });
});
