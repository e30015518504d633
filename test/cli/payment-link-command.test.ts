import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { useTestApp } from '../helpers/app.js';
import { orderBody, post, teeShop } from '../helpers/fulfilment.js';
import { fakeRazorpay, type FakeRazorpay } from '../helpers/razorpay.js';

const ctx = useTestApp({ PAYMENT_API_ALLOW_LOCAL: 'true' });
let rzp: FakeRazorpay;
beforeAll(async () => {
  rzp = await fakeRazorpay();
});
afterAll(() => rzp?.close());

async function admin(...argv: string[]) {
  const lines: string[] = [];
  const errs: string[] = [];
  const code = await runAdmin(argv, (t) => lines.push(t), { db: ctx.testDb.db, services: ctx.services, caller: { err: (t) => errs.push(t) } });
  return { code, out: lines.join('\n'), all: [...lines, ...errs].join('\n') };
}

describe('order payment-link', () => {
  it('makes the link staff send by hand, answers the live one again, and refuses a bad expiry with the usage line', async () => {
    const s = await teeShop(ctx);
    const acct = rzp.account();
    await ctx.services.payments.configure(
      s.companyId,
      { kind: 'cli', name: 'test' },
      {
        provider: 'razorpay',
        keyId: acct.keyId,
        keySecret: acct.keySecret,
        webhookSecret: 'whsec-cli-links',
        baseUrl: rzp.url,
      },
    );
    const placed = (await post(ctx, s.headers, orderBody({ payment: 'cod' }))).body.data;

    const made = await admin('order', 'payment-link', placed.order_number, '--company', s.company.slug, '--expire-in-minutes', '60');
    expect(made.code, made.all).toBe(0);
    expect(made.out).toMatch(new RegExp(`^payment link made for ${placed.order_number}: 499.00 INR, created, expires \\S+\\nhttps://rzp\\.io/i/\\w+$`));
    const again = JSON.parse((await admin('order', 'payment-link', placed.order_number, '--company', s.company.slug, '--json')).out);
    expect(again).toMatchObject({ order_number: placed.order_number, amount: '499.00', status: 'created', existing: true });

    for (const bad of ['14', '10081', '1.5', 'soon']) {
      const r = await admin('order', 'payment-link', placed.order_number, '--company', s.company.slug, '--expire-in-minutes', bad);
      expect(r.code, bad).toBe(2);
      expect(r.all).toMatch(/--expire-in-minutes must be a whole number from 15 to 10080/);
    }
    const prepaid = (await post(ctx, s.headers, orderBody())).body.data;
    const refused = await admin('order', 'payment-link', prepaid.order_number, '--company', s.company.slug);
    expect(refused.code).not.toBe(0);
    expect(refused.all).toMatch(/is prepaid already/);
  });
});
