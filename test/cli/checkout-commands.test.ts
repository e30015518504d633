import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';

const ctx = useTestApp();

async function admin(...argv: string[]) {
  const lines: string[] = [];
  const errors: string[] = [];
  const code = await runAdmin(argv, (t) => lines.push(t), { db: ctx.testDb.db, services: ctx.services, caller: { err: (t) => errors.push(t) } });
  return { code, out: lines.join('\n'), err: errors.join('') };
}
/** A command that must succeed, its --json answer parsed. */
async function json<T = Record<string, unknown>>(...argv: string[]): Promise<T> {
  const r = await admin(...argv, '--json');
  expect(r.code, r.out).toBe(0);
  return JSON.parse(r.out) as T;
}

describe('admin CLI: shipping rates', () => {
  it('adds, lists, changes and removes rates; the checkout is offered what they say', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    const co = company.slug;
    const std = await json(
      'shipping-rate',
      'add',
      '--company',
      co,
      'std-ship',
      '--title',
      'Standard Shipping',
      '--level',
      'standard',
      '--zone-kind',
      'everywhere',
      '--price',
      '49',
      '--free-above',
      '100',
      '--free-skus',
      'bouquet_roses',
    );
    expect(std).toMatchObject({ id: 'std-ship', price: '49.00', free_above: '100.00', free_skus: ['bouquet_roses'], zone_values: [], active: true });
    await json(
      'shipping-rate',
      'add',
      '--company',
      co,
      'blr',
      '--title',
      'Bengaluru Express',
      '--level',
      'express',
      '--zone-kind',
      'pincodes',
      '--zone-values',
      '560001 - 560099, 560100',
      '--price',
      '40',
    );
    await json(
      'shipping-rate',
      'add',
      '--company',
      co,
      'ka',
      '--title',
      'Karnataka',
      '--level',
      'standard',
      '--zone-kind',
      'states',
      '--zone-values',
      'karnataka',
      '--price',
      '30.5',
    );

    const table = await admin('shipping-rate', 'list', '--company', co);
    expect(table.out).toMatch(/blr\s+Bengaluru Express\s+express\s+pincodes: 560001-560099, 560100\s+40\.00/);
    expect(table.out).toContain('states: Karnataka');

    // refused: the same id again, a zone value that is not one, a state that is not Indian, a price with three decimals
    const again = await admin(
      'shipping-rate',
      'add',
      '--company',
      co,
      'ka',
      '--title',
      'K',
      '--level',
      'standard',
      '--zone-kind',
      'everywhere',
      '--price',
      '1',
    );
    expect(again.code).toBe(1);
    expect(again.err).toContain('a shipping rate "ka" already exists; change it with `shipping-rate update`');
    const badPin = await admin(
      'shipping-rate',
      'add',
      '--company',
      co,
      'x',
      '--title',
      'X',
      '--level',
      'express',
      '--zone-kind',
      'pincodes',
      '--zone-values',
      '560001,560099-560001',
      '--price',
      '1',
    );
    expect(badPin).toMatchObject({ code: 1, err: expect.stringContaining('zone_values[1]: must be a 6-digit PIN code or a range') });
    const badState = await admin(
      'shipping-rate',
      'add',
      '--company',
      co,
      'x',
      '--title',
      'X',
      '--level',
      'express',
      '--zone-kind',
      'states',
      '--zone-values',
      'Ontario',
      '--price',
      '1',
    );
    expect(badState).toMatchObject({ code: 1, err: expect.stringContaining('zone_values[0]: must be an Indian state') });
    const badPrice = await admin(
      'shipping-rate',
      'add',
      '--company',
      co,
      'x',
      '--title',
      'X',
      '--level',
      'fast',
      '--zone-kind',
      'everywhere',
      '--price',
      '1.005',
    );
    expect(badPrice.code).toBe(1);
    expect(badPrice.err).toMatch(/level: must be one of standard, express.*price: must be an amount in rupees/s);
    expect((await admin('shipping-rate', 'add', '--company', co)).code).toBe(2);

    const quote = await ctx.services.shippingRates.options(company.id, { country: 'IN', postalCode: '560034' }, '99.99', []);
    expect(quote.options.map((o) => [o.id, o.title, o.price.paise])).toEqual([
      ['ka', 'Karnataka', 3050],
      ['blr', 'Bengaluru Express', 4000],
    ]);

    // a change keeps what it does not name; none clears free_above; the zone is checked with its kind
    const changed = await json('shipping-rate', 'update', '--company', co, 'std-ship', '--price', '59', '--free-above', 'none');
    expect(changed).toMatchObject({ price: '59.00', free_above: null, free_skus: ['bouquet_roses'], title: 'Standard Shipping' });
    const mismatched = await admin('shipping-rate', 'update', '--company', co, 'ka', '--zone-kind', 'countries');
    expect(mismatched).toMatchObject({ code: 1, err: expect.stringContaining('zone_values[0]: must be a 2-letter ISO country code') });

    const removed = await json('shipping-rate', 'remove', '--company', co, 'ka');
    expect(removed).toMatchObject({ id: 'ka', active: false });
    expect((await admin('shipping-rate', 'remove', '--company', co, 'ka')).code).toBe(1);
    expect((await json<{ id: string }[]>('shipping-rate', 'list', '--company', co, '--active')).map((r) => r.id)).toEqual(['blr', 'std-ship']);
    const after = await ctx.services.shippingRates.options(company.id, { country: 'IN', postalCode: '560034' }, '99.99', []);
    expect(after.options.map((o) => [o.id, o.price.paise])).toEqual([
      ['blr', 4000],
      ['std-ship', 5900],
    ]);

    // a removed rate's id may be added again, afresh
    expect(
      await json(
        'shipping-rate',
        'add',
        '--company',
        co,
        'ka',
        '--title',
        'Karnataka',
        '--level',
        'standard',
        '--zone-kind',
        'states',
        '--zone-values',
        'KARNATAKA',
        '--price',
        '25',
      ),
    ).toMatchObject({ price: '25.00', active: true });

    // another company sees none of it
    const other = await createCompanyWithKey(ctx.services);
    expect(await json<unknown[]>('shipping-rate', 'list', '--company', other.company.slug)).toEqual([]);
    expect((await admin('shipping-rate', 'remove', '--company', other.company.slug, 'ka')).code).toBe(1);
  });
});

describe('admin CLI: discount codes', () => {
  it('adds, lists, changes and disables codes; the checkout applies what they say', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    const co = company.slug;
    expect(await json('discount', 'add', '--company', co, '10off', '--title', '10% Off', '--kind', 'percentage', '--value', '10')).toMatchObject({
      code: '10OFF',
      value: '10.00',
      used_count: 0,
      active: true,
    });
    await json(
      'discount',
      'add',
      '--company',
      co,
      'WELCOME20',
      '--title',
      '20% Off',
      '--kind',
      'percentage',
      '--value',
      '20',
      '--min-order',
      '30',
      '--usage-limit',
      '100',
      '--per-customer-limit',
      '1',
    );
    await json(
      'discount',
      'add',
      '--company',
      co,
      'FIXED500',
      '--title',
      '₹5 Off',
      '--kind',
      'fixed',
      '--value',
      '5',
      '--ends-at',
      '2099-01-01T00:00:00+05:30',
    );

    const table = await admin('discount', 'list', '--company', co);
    expect(table.out).toMatch(/WELCOME20\s+20% Off\s+20\.00%\s+30\.00\s+always\s+0\/100\s+1\s+true/);
    expect(table.out).toContain('FIXED500');

    const dup = await admin('discount', 'add', '--company', co, '10OFF', '--title', 'again', '--kind', 'fixed', '--value', '1');
    expect(dup).toMatchObject({ code: 1, err: expect.stringContaining('the code 10OFF already exists; change it with `discount update`') });
    const over = await admin('discount', 'add', '--company', co, 'HALF', '--title', 'x', '--kind', 'percentage', '--value', '101');
    expect(over).toMatchObject({ code: 1, err: expect.stringContaining('value: must be at most 100 for a percentage') });
    const backwards = await admin(
      'discount',
      'add',
      '--company',
      co,
      'WINDOW',
      '--title',
      'x',
      '--kind',
      'fixed',
      '--value',
      '1',
      '--starts-at',
      '2026-12-02T00:00:00Z',
      '--ends-at',
      '2026-12-01T00:00:00Z',
    );
    expect(backwards).toMatchObject({ code: 1, err: expect.stringContaining('ends_at: must be after starts_at') });
    const badCode = await admin('discount', 'add', '--company', co, 'NO SPACES', '--title', 'x', '--kind', 'fixed', '--value', '1');
    expect(badCode).toMatchObject({ code: 1, err: expect.stringContaining('code: must be 1-32 letters') });
    expect((await admin('discount', 'add', '--company', co, 'X1', '--title', 'x', '--kind', 'fixed', '--value', '1', '--usage-limit', '0')).err).toContain(
      'usage_limit: must be at least 1',
    );

    const evaluated = await ctx.services.discountCodes.evaluate(company.id, ['10off', 'welcome20', 'fixed500', 'INVALID_CODE'], '35.00', 'cus_nobody');
    expect(evaluated.applied.map((a) => a.code)).toEqual(['10OFF', 'WELCOME20', 'FIXED500']);
    expect(evaluated.rejected.map((r) => r.message)).toEqual([
      { type: 'warning', code: 'discount_code_invalid', path: '$.discounts.codes[3]', content: "Code 'INVALID_CODE' is not valid" },
    ]);

    // a change keeps what it does not name; none clears a limit
    expect(await json('discount', 'update', '--company', co, 'welcome20', '--min-order', '40', '--usage-limit', 'none')).toMatchObject({
      code: 'WELCOME20',
      value: '20.00',
      min_order: '40.00',
      usage_limit: null,
      per_customer_limit: 1,
    });
    expect((await ctx.services.discountCodes.evaluate(company.id, ['WELCOME20'], '35.00')).rejected[0].reason).toBe('below_minimum');

    expect(await json('discount', 'disable', '--company', co, '10off')).toMatchObject({ code: '10OFF', active: false });
    expect((await ctx.services.discountCodes.evaluate(company.id, ['10OFF'], '35.00')).rejected[0].reason).toBe('inactive');
    expect((await json<{ code: string }[]>('discount', 'list', '--company', co, '--active')).map((c) => c.code)).toEqual(['FIXED500', 'WELCOME20']);
    expect(await json('discount', 'update', '--company', co, '10OFF', '--active', 'true')).toMatchObject({ active: true });
    expect((await admin('discount', 'disable', '--company', co, 'NOPE')).code).toBe(1);

    const other = await createCompanyWithKey(ctx.services);
    expect((await ctx.services.discountCodes.evaluate(other.company.id, ['10OFF'], '35.00')).rejected[0].reason).toBe('unknown');
  });
});
