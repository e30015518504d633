import { describe, expect, it } from 'vitest';
import { normalizePhone } from '../../src/lib/phone.js';

describe('normalizePhone', () => {
  it.each([
    '98765 43210',
    '+91-98765-43210',
    '09876543210',
    '919876543210',
    '0091 98765 43210',
    '00919876543210',
    ' +91 (98765) 43210 ',
    '(+91) 98765-43210',
    '+91.98765.43210',
    '098765/43210',
  ])('%j -> +919876543210', (raw) => {
    expect(normalizePhone(raw)).toEqual({ ok: true, e164: '+919876543210' });
  });

  it.each([
    ['+44 7911 123456', '+447911123456'], // UK mobile
    ['0044 7911 123456', '+447911123456'],
    ['+1 415 555 2671', '+14155552671'], // US: FIXED_LINE_OR_MOBILE, the plan cannot tell
    ['+971 50 123 4567', '+971501234567'], // UAE mobile
  ])('accepts the foreign mobile %j', (raw, e164) => {
    expect(normalizePhone(raw)).toEqual({ ok: true, e164 });
  });

  it.each([
    ['+91 80 2222 3333', /landline, not a mobile number the messaging channel can reach/], // Bangalore landline
    ['011 2345 6789', /landline/], // Delhi landline
    ['+44 20 7946 0958', /landline/], // London landline
    ['1800 123 4567', /toll-free number, not a mobile number/],
  ])('refuses the non-mobile %j', (raw, message) => {
    const r = normalizePhone(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['98765', /not a valid phone number|too short/],
    ['9', /not a phone number|too short/],
    ['98765abcde', /not a phone number/],
    ['call me', /not a phone number/],
    ['+91 98765 432100', /not a valid phone number/],
    ['+91 98765 43210 ext 5', /extension/],
  ])('refuses %j', (raw, message) => {
    const r = normalizePhone(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });
});
