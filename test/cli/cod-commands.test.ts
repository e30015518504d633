import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';

const ctx = useTestApp();

/** Runs an admin command on this file's database and services; exit code, stdout and stderr. */
async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(argv, (t) => out.push(t), { db: ctx.testDb.db, services: ctx.services, caller: { err: (t) => err.push(t) } });
  return { code, out: out.join('\n'), err: err.join('') };
}

const json = async (...argv: string[]) => {
  const r = await admin(...argv, '--json');
  expect(r.code, r.err || r.out).toBe(0);
  return JSON.parse(r.out);
};

describe('admin CLI: cod', () => {
  it('shows the defaults, sets every field, and keeps what a later set leaves out', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    const co = company.slug;
    expect(await json('cod', 'show', '--company', co)).toEqual({
      confirm_before_booking: false,
      confirm_within_minutes: 1440,
      on_timeout: 'cancel',
      blocked_pincodes: [],
      max_order_value: null,
      rto_threshold: null,
      updated_at: null,
    });
    const set = await json(
      'cod',
      'set',
      '--company',
      co,
      '--confirm-before-booking',
      'on',
      '--confirm-within-minutes',
      '60',
      '--on-timeout',
      'staff',
      '--blocked-pincodes',
      '560038, 110001-110099,560038',
      '--max-order-value',
      '4999',
      '--rto-threshold',
      '2',
    );
    expect(set).toMatchObject({
      confirm_before_booking: true,
      confirm_within_minutes: 60,
      on_timeout: 'staff',
      blocked_pincodes: ['110001-110099', '560038'],
      max_order_value: '4999.00',
      rto_threshold: 2,
    });
    const cleared = await json('cod', 'set', '--company', company.id, '--max-order-value', 'none', '--rto-threshold', 'none', '--blocked-pincodes', 'none');
    expect(cleared).toMatchObject({
      confirm_before_booking: true,
      confirm_within_minutes: 60,
      blocked_pincodes: [],
      max_order_value: null,
      rto_threshold: null,
    });
    const table = await admin('cod', 'show', '--company', co);
    expect(table.code).toBe(0);
    expect(table.out).toContain('CONFIRM FIRST');
  });

  it('refuses a wrong call with its usage (exit 2) and a bad value with the rule (exit 1), changing nothing', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    const co = company.slug;
    expect((await admin('cod', 'set', '--company', co)).code).toBe(2);
    expect((await admin('cod', 'set', '--company', co, '--confirm-before-booking', 'maybe')).code).toBe(2);
    expect((await admin('cod', 'set', '--company', co, '--on-timeout', 'later')).code).toBe(2);
    expect((await admin('cod', 'set', '--company', co, '--rto-threshold', 'many')).code).toBe(2);
    expect((await admin('cod', 'show')).code).toBe(2);
    const minutes = await admin('cod', 'set', '--company', co, '--confirm-within-minutes', '4');
    expect(minutes.code).toBe(1);
    expect(minutes.err + minutes.out).toContain('confirm_within_minutes');
    const pin = await admin('cod', 'set', '--company', co, '--blocked-pincodes', '560038,99');
    expect(pin.code).toBe(1);
    expect(pin.err + pin.out).toContain('blocked_pincodes[1]');
    expect((await json('cod', 'show', '--company', co)).updated_at).toBeNull();
  });
});
