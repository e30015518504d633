import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { fakeRazorpay, type FakeRazorpay } from '../helpers/razorpay.js';
import { PaymentProviderError } from '../../src/payments/types.js';
import { createRazorpayAdapter } from '../../src/payments/razorpay.js';

/** The Razorpay adapter made from a company's stored settings, against a local Razorpay simulator over real HTTP. */
const ctx = useTestApp({ PAYMENT_API_ALLOW_LOCAL: 'true', PAYMENT_API_TIMEOUT_MS: '300' });
let rzp: FakeRazorpay;
beforeAll(async () => {
  rzp = await fakeRazorpay();
});
afterAll(() => rzp?.close());
beforeEach(() => {
  rzp.state.failNext = 0;
  rzp.state.delayMs = 0;
});

/** A company whose Razorpay account is one of the simulator's; its provider as the checkout gets it. */
async function configured(acct = rzp.account()) {
  const { company } = await createCompanyWithKey(ctx.services);
  await ctx.services.payments.configure(
    company.id,
    { kind: 'cli', name: 'test' },
    {
      provider: 'razorpay',
      keyId: acct.keyId,
      keySecret: acct.keySecret,
      webhookSecret: 'whsec-adapter-test-1',
      baseUrl: rzp.url,
    },
  );
  return { company, acct, provider: await ctx.services.payments.provider(company.id) };
}

/** The PaymentProviderError a call rejects with (fails the test when it resolves or throws something else). */
async function failure(call: Promise<unknown>): Promise<PaymentProviderError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PaymentProviderError);
  return err as PaymentProviderError;
}

describe('createOrder and fetchOrder', () => {
  it('sends the amount in paise with basic auth, keeps the notes, and reads the order back', async () => {
    const { provider, acct } = await configured();
    expect([provider.name, provider.keyId, provider.mode]).toEqual(['razorpay', acct.keyId, 'test']);
    const order = await provider.createOrder({ amountPaise: 49_900, currency: 'INR', receipt: 'chk_0001', notes: { checkout_id: 'chk_0001', company: 'tee' } });
    expect(order).toEqual({
      id: expect.stringMatching(/^order_[A-Za-z0-9]{14}$/),
      amountPaise: 49_900,
      amountPaidPaise: 0,
      currency: 'INR',
      receipt: 'chk_0001',
      status: 'created',
      notes: { checkout_id: 'chk_0001', company: 'tee' },
    });
    const call = rzp.state.calls.at(-1)!;
    expect(call).toMatchObject({ method: 'POST', path: '/v1/orders', body: { amount: 49_900, currency: 'INR', receipt: 'chk_0001' } });
    expect(call.authorization).toBe(`Basic ${Buffer.from(`${acct.keyId}:${acct.keySecret}`).toString('base64')}`);
    expect(rzp.order(order.id)?.amount).toBe(49_900);

    expect(await provider.fetchOrder(order.id)).toEqual(order);
    await rzp.pay(order.id).catch(() => undefined); // no webhook URL set: the order is paid all the same
    expect(await provider.fetchOrder(order.id)).toMatchObject({ status: 'paid', amountPaidPaise: 49_900 });
  });

  it('reads empty notes, which Razorpay answers as [], as no notes', async () => {
    const { provider } = await configured();
    expect((await provider.createOrder({ amountPaise: 100, currency: 'INR', receipt: 'r-empty' })).notes).toEqual({});
  });

  it('refuses a fraction of a paisa before sending anything', async () => {
    const { provider } = await configured();
    const calls = rzp.state.calls.length;
    const err = await failure(provider.createOrder({ amountPaise: 499.5, currency: 'INR', receipt: 'r-frac' }));
    expect(err.retryable).toBe(false);
    expect(rzp.state.calls.length).toBe(calls);
  });
});

describe('errors: retryable only when trying again may work', () => {
  it('wrong credentials: 401, not retryable, and the message names neither the secret nor the key', async () => {
    const { company, acct } = await configured();
    await ctx.services.payments.configure(company.id, { kind: 'cli', name: 'test' }, { provider: 'razorpay', keySecret: 'not-the-secret-123' });
    const provider = await ctx.services.payments.provider(company.id);
    const err = await failure(provider.createOrder({ amountPaise: 1000, currency: 'INR', receipt: 'r-auth' }));
    expect([err.retryable, err.status]).toEqual([false, 401]);
    expect(err.message).toMatch(/401/);
    expect(err.message).not.toContain('not-the-secret-123');
    expect(err.message).not.toContain(acct.keySecret);
  });

  it("Razorpay's refusal of an amount below ₹1: 400, not retryable, with its description", async () => {
    const { provider } = await configured();
    const err = await failure(provider.createOrder({ amountPaise: 99, currency: 'INR', receipt: 'r-small' }));
    expect([err.retryable, err.status, err.code]).toEqual([false, 400, 'BAD_REQUEST_ERROR']);
    expect(err.message).toContain('The amount must be at least INR 1.00');
  });

  it('a 500 is retryable, and the same call then works', async () => {
    const { provider } = await configured();
    rzp.state.failNext = 1;
    const err = await failure(provider.createOrder({ amountPaise: 1000, currency: 'INR', receipt: 'r-500' }));
    expect([err.retryable, err.status, err.code]).toEqual([true, 500, 'SERVER_ERROR']);
    expect((await provider.createOrder({ amountPaise: 1000, currency: 'INR', receipt: 'r-500' })).status).toBe('created');
  });

  it('an answer slower than PAYMENT_API_TIMEOUT_MS is a retryable timeout; the caller may stop a call sooner', async () => {
    const { provider } = await configured();
    rzp.state.delayMs = 1_000;
    const started = Date.now();
    const err = await failure(provider.createOrder({ amountPaise: 1000, currency: 'INR', receipt: 'r-slow' }));
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/timed out/);
    expect(Date.now() - started).toBeLessThan(900);
    const stopped = await failure(provider.fetchOrder('order_AAAAAAAAAAAAAA', AbortSignal.timeout(50)));
    expect(stopped.retryable).toBe(true);
  });

  it('nothing listening at the address: a retryable network failure', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const provider = createRazorpayAdapter({ baseUrl: `http://127.0.0.1:${port}`, keyId: 'rzp_test_X', keySecret: 's', timeoutMs: 1_000 });
    const err = await failure(provider.fetchOrder('order_AAAAAAAAAAAAAA'));
    expect([err.retryable, err.status]).toEqual([true, undefined]);
  });

  it('a company without a provider cannot get one (422)', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    await expect(ctx.services.payments.provider(company.id)).rejects.toMatchObject({ kind: 'unprocessable' });
  });
});

describe('payment links', () => {
  it('creates a link (paise, reference, customer, expiry, callback), refuses its reference twice, and cancels it', async () => {
    const { provider } = await configured();
    const expireBy = new Date(Date.now() + 60 * 60 * 1000);
    const link = await provider.createPaymentLink({
      amountPaise: 129_900,
      referenceId: 'ORD-000123',
      description: 'Order ORD-000123',
      customer: { name: 'Priya Sharma', contact: '+919876543210', email: 'priya@example.com' },
      expireBy,
      notes: { order_id: 'ord_1' },
      callbackUrl: 'https://shop.example.in/orders/ORD-000123/paid',
    });
    expect(link).toEqual({
      id: expect.stringMatching(/^plink_/),
      shortUrl: expect.stringMatching(/^https:\/\/rzp\.io\/i\//),
      status: 'created',
      amountPaise: 129_900,
      referenceId: 'ORD-000123',
    });
    expect(rzp.state.calls.at(-1)!.body).toMatchObject({
      amount: 129_900,
      currency: 'INR',
      accept_partial: false,
      reference_id: 'ORD-000123',
      expire_by: Math.floor(expireBy.getTime() / 1000),
      callback_url: 'https://shop.example.in/orders/ORD-000123/paid',
      callback_method: 'get',
      notify: { sms: false, email: false },
      notes: { order_id: 'ord_1' },
    });

    const again = await failure(provider.createPaymentLink({ amountPaise: 129_900, referenceId: 'ORD-000123', description: 'again', customer: {} }));
    expect([again.retryable, again.status]).toEqual([false, 400]);
    expect(again.message).toContain('reference ID already attempted');

    expect(await provider.cancelPaymentLink(link.id)).toMatchObject({ id: link.id, status: 'cancelled' });
  });

  it('a paid link cannot be cancelled: 400, not retryable (the buyer paid first)', async () => {
    const { provider } = await configured();
    const link = await provider.createPaymentLink({ amountPaise: 5_000, referenceId: 'ORD-PAID-1', description: 'paid first', customer: {} });
    await rzp.pay(link.id).catch(() => undefined);
    const err = await failure(provider.cancelPaymentLink(link.id));
    expect([err.retryable, err.status]).toEqual([false, 400]);
    expect(err.message).toContain('already paid');
  });
});
