import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import type { AdminCaller } from '../../src/cli/admin-socket.js';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';

const ctx = useTestApp({ PAYMENT_API_ALLOW_LOCAL: 'false' });

const KEY_SECRET = 'kS3cr3tFromRazorpayDash01';
const WEBHOOK_SECRET = 'whS3cr3tChosenBySeller77';

/** One admin command on the test's database and services; stdout and stderr together, as a terminal shows them. */
async function admin(argv: string[], caller: Partial<AdminCaller> = {}) {
  const lines: string[] = [];
  const errs: string[] = [];
  const code = await runAdmin(argv, (t) => lines.push(t), { db: ctx.testDb.db, services: ctx.services, caller: { err: (t) => errs.push(t), ...caller } });
  return { code, out: lines.join('\n'), all: [...lines, ...errs].join('\n') };
}

describe('payments configure razorpay / payments show', () => {
  it('stores the secrets sealed and never shows them: not in the output, the database row, or the log', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    const configured = await admin([
      'payments',
      'configure',
      'razorpay',
      '--company',
      company.slug,
      '--key-id',
      'rzp_test_Abc123Xyz789Qw',
      '--key-secret',
      KEY_SECRET,
      '--webhook-secret',
      WEBHOOK_SECRET,
      '--json',
    ]);
    expect(configured.code, configured.all).toBe(0);
    expect(JSON.parse(configured.out)).toEqual({
      provider: 'razorpay',
      key_id: 'rzp_test_…89Qw',
      mode: 'test',
      key_secret_set: true,
      webhook_secret_set: true,
      previous_webhook_secret_until: null,
      base_url: null,
      webhook_path: `${ctx.config.BASE_PATH}/payments/razorpay/webhook/${company.slug}`,
      webhook_url: expect.stringMatching(new RegExp(`^https?://.+/payments/razorpay/webhook/${company.slug}$`)),
      updated_at: expect.any(String),
    });

    const shown = await admin(['payments', 'show', '--company', company.slug]);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('rzp_test_…89Qw');
    expect(shown.out).toContain(`/payments/razorpay/webhook/${company.slug}`);

    const [row] = await ctx.db.query<Record<string, string>>(sql`SELECT * FROM payment_configs WHERE company_id = ${company.id}`);
    expect(row.key_secret_enc).toMatch(/^v1\./);
    for (const text of [configured.all, shown.all, JSON.stringify(row), ctx.rawLogs()]) {
      expect(text).not.toContain(KEY_SECRET);
      expect(text).not.toContain(WEBHOOK_SECRET);
    }
  });

  it('reads the secrets from the environment when the flags are left out (out of shell history)', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    const env = { RAZORPAY_KEY_SECRET: KEY_SECRET, RAZORPAY_WEBHOOK_SECRET: WEBHOOK_SECRET };
    const r = await admin(['payments', 'configure', 'razorpay', '--company', company.slug, '--key-id', 'rzp_live_LiveKey0001', '--json'], { env });
    expect(r.code, r.all).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ mode: 'live', key_secret_set: true, webhook_secret_set: true });
    const provider = await ctx.services.payments.provider(company.id);
    expect(provider.keyId).toBe('rzp_live_LiveKey0001');
    expect(r.all).not.toContain(KEY_SECRET);
  });

  it('refuses a key id of another shape, missing secrets, and an http:// or private base URL; nothing is stored', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    const base = ['payments', 'configure', 'razorpay', '--company', company.slug];
    const badKey = await admin([...base, '--key-id', 'pk_live_123', '--key-secret', KEY_SECRET, '--webhook-secret', WEBHOOK_SECRET]);
    expect(badKey.code).toBe(1);
    expect(badKey.all).toMatch(/key_id: must be rzp_test_ or rzp_live_/);
    const missing = await admin([...base, '--key-id', 'rzp_test_Abc123']);
    expect(missing.code).toBe(1);
    expect(missing.all).toMatch(/key_secret: required/);
    expect(missing.all).toMatch(/webhook_secret: required/);
    const local = await admin([
      ...base,
      '--key-id',
      'rzp_test_Abc123',
      '--key-secret',
      KEY_SECRET,
      '--webhook-secret',
      WEBHOOK_SECRET,
      '--base-url',
      'http://127.0.0.1:9',
    ]);
    expect(local.code).toBe(1);
    expect(local.all).toMatch(/base_url: must be an https:\/\/ URL.*PAYMENT_API_ALLOW_LOCAL/);
    const wrongProvider = await admin(['payments', 'configure', 'stripe', '--company', company.slug]);
    expect(wrongProvider.code).toBe(2);
    expect(await ctx.services.payments.show(company.id)).toBeNull();
    const none = await admin(['payments', 'show', '--company', company.slug]);
    expect([none.code, none.out]).toEqual([0, expect.stringContaining('no payment provider configured')]);
  });

  it('later calls change only what they name; a new key id needs its key secret', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    await ctx.services.payments.configure(
      company.id,
      { kind: 'cli', name: 'test' },
      {
        provider: 'razorpay',
        keyId: 'rzp_test_First0001',
        keySecret: KEY_SECRET,
        webhookSecret: WEBHOOK_SECRET,
      },
    );
    const base = ['payments', 'configure', 'razorpay', '--company', company.slug];
    const newKey = await admin([...base, '--key-id', 'rzp_test_Second0002']);
    expect(newKey.code).toBe(1);
    expect(newKey.all).toMatch(/key_secret: required with a new key id/);
    // a literal public address: the check resolves a name otherwise, and the test should not need DNS
    const url = await admin([...base, '--base-url', 'https://8.8.8.8/', '--json']);
    expect(url.code, url.all).toBe(0);
    expect(JSON.parse(url.out)).toMatchObject({ key_id: 'rzp_test_…0001', base_url: 'https://8.8.8.8', key_secret_set: true });
    expect((await ctx.services.payments.provider(company.id)).keyId).toBe('rzp_test_First0001');
  });
});
