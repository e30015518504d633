import { describe, expect, it } from 'vitest';
import { evaluateDiscounts, type DiscountCode, type DiscountContext } from '../../src/checkout/discounts.js';

const NOW = new Date('2026-11-27T10:00:00.000Z');
const ms = (n: number) => new Date(NOW.getTime() + n);

const code = (c: Partial<DiscountCode> & Pick<DiscountCode, 'code'>): DiscountCode => ({
  title: `${c.code} title`,
  kind: 'percentage',
  value: '10.00',
  min_order: null,
  starts_at: null,
  ends_at: null,
  usage_limit: null,
  per_customer_limit: null,
  used_count: 0,
  active: true,
  ...c,
});

const ROWS: DiscountCode[] = [
  code({ code: '10OFF', title: '10% Off' }),
  code({ code: 'WELCOME20', title: '20% Off', value: '20.00' }),
  code({ code: 'FIXED500', title: '₹5 Off', kind: 'fixed', value: '5.00' }),
];

const ctx = (over: Partial<DiscountContext> = {}): DiscountContext => ({ now: NOW, goodsSubtotal: '35.00', ...over });
/** The one code's outcome: its reason when rejected, 'applied' when not. */
const outcome = (row: DiscountCode, over: Partial<DiscountContext> = {}) => {
  const e = evaluateDiscounts([row.code], [row], ctx(over));
  return e.rejected[0]?.reason ?? (e.applied.length === 1 ? 'applied' : 'neither');
};

describe('discount codes: matching', () => {
  it('applies known codes case-insensitively, in the order entered, with the stored code and title', () => {
    const e = evaluateDiscounts(['welcome20', ' 10off '], ROWS, ctx());
    expect(e.codes).toEqual(['welcome20', '10off']);
    expect(e.applied).toEqual([
      { code: 'WELCOME20', title: '20% Off', kind: 'percentage', value: '20.00', index: 0 },
      { code: '10OFF', title: '10% Off', kind: 'percentage', value: '10.00', index: 1 },
    ]);
    expect(e.rejected).toEqual([]);
  });

  it('rejects an unknown code with the UCP warning naming it at its place', () => {
    const e = evaluateDiscounts(['10OFF', 'INVALID_CODE'], ROWS, ctx());
    expect(e.applied.map((a) => a.code)).toEqual(['10OFF']);
    expect(e.rejected).toEqual([
      {
        code: 'INVALID_CODE',
        index: 1,
        reason: 'unknown',
        message: { type: 'warning', code: 'discount_code_invalid', path: '$.discounts.codes[1]', content: "Code 'INVALID_CODE' is not valid" },
      },
    ]);
  });

  it('counts a code entered twice once, where it was first entered, so later paths point into the codes kept', () => {
    const e = evaluateDiscounts(['10OFF', 'fixed500', '10off', 'NOPE'], ROWS, ctx());
    expect(e.codes).toEqual(['10OFF', 'fixed500', 'NOPE']);
    expect(e.applied.map((a) => [a.code, a.index])).toEqual([
      ['10OFF', 0],
      ['FIXED500', 1],
    ]);
    expect(e.rejected.map((r) => r.message.path)).toEqual(['$.discounts.codes[2]']);
  });
});

describe('discount codes: each reason at its edge', () => {
  it('is inactive when disabled', () => {
    expect(outcome(code({ code: 'OFF', active: false }))).toBe('inactive');
    expect(evaluateDiscounts(['off'], [code({ code: 'OFF', active: false })], ctx()).rejected[0].message).toMatchObject({
      code: 'discount_code_invalid',
      content: "Code 'off' is no longer valid",
    });
  });

  it('starts at starts_at itself; a millisecond before, it is not valid yet', () => {
    expect(outcome(code({ code: 'SOON', starts_at: NOW }))).toBe('applied');
    expect(outcome(code({ code: 'SOON', starts_at: ms(1) }))).toBe('not_yet_valid');
    expect(evaluateDiscounts(['SOON'], [code({ code: 'SOON', starts_at: ms(1) })], ctx()).rejected[0].message.code).toBe('discount_code_not_yet_valid');
  });

  it('has expired when ends_at is exactly now; a millisecond later it still applies', () => {
    expect(outcome(code({ code: 'LAST', ends_at: NOW }))).toBe('expired');
    expect(outcome(code({ code: 'LAST', ends_at: ms(1) }))).toBe('applied');
    expect(evaluateDiscounts(['last'], [code({ code: 'LAST', ends_at: NOW })], ctx()).rejected[0].message).toEqual({
      type: 'warning',
      code: 'discount_code_expired',
      path: '$.discounts.codes[0]',
      content: "Code 'last' has expired",
    });
  });

  it('applies at the minimum order exactly, not a paisa below', () => {
    const min = code({ code: 'BIG', min_order: '500.00' });
    expect(outcome(min, { goodsSubtotal: '500.00' })).toBe('applied');
    expect(outcome(min, { goodsSubtotal: '499.99' })).toBe('below_minimum');
    expect(evaluateDiscounts(['BIG'], [min], ctx({ goodsSubtotal: '499.99' })).rejected[0].message).toMatchObject({
      code: 'discount_code_minimum_not_met',
      content: "Code 'BIG' needs an order of at least ₹500.00",
    });
  });

  it('is used up when used_count reaches usage_limit', () => {
    expect(outcome(code({ code: 'FEW', usage_limit: 3, used_count: 2 }))).toBe('applied');
    expect(outcome(code({ code: 'FEW', usage_limit: 3, used_count: 3 }))).toBe('usage_limit_reached');
    expect(evaluateDiscounts(['FEW'], [code({ code: 'FEW', usage_limit: 3, used_count: 3 })], ctx()).rejected[0].message.code).toBe(
      'discount_code_usage_limit_reached',
    );
  });

  it('is used up for a buyer whose orders with it reach per_customer_limit; an unknown buyer is checked when the order is placed', () => {
    const once = code({ code: 'ONCE', per_customer_limit: 1 });
    expect(outcome(once, { customerRedemptions: new Map([['ONCE', 1]]) })).toBe('per_customer_limit_reached');
    expect(outcome(once, { customerRedemptions: new Map() })).toBe('applied');
    expect(outcome(once)).toBe('applied');
    expect(evaluateDiscounts(['ONCE'], [once], ctx({ customerRedemptions: new Map([['ONCE', 1]]) })).rejected[0].message.code).toBe(
      'discount_code_user_ineligible',
    );
  });

  it('gives the first reason that holds: a disabled, expired code is inactive', () => {
    expect(outcome(code({ code: 'GONE', active: false, ends_at: ms(-1), usage_limit: 1, used_count: 1 }))).toBe('inactive');
    expect(outcome(code({ code: 'OLD', ends_at: ms(-1), min_order: '1000.00' }))).toBe('expired');
  });
});
