import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indianNumberWords, rupeesInWords } from '../../src/lib/amount-words.js';
import { gstinCheckCharacter, gstinProblem, gstState, GST_STATE_CODES } from '../../src/lib/gstin.js';
import { includedGst, taxByRate, taxLine, taxTotals } from '../../src/lib/gst-tax.js';
import { Decimal } from '../../src/lib/money.js';
import { INDIAN_STATES } from '../../src/lib/pincode.js';

describe('GSTIN', () => {
  // Published GSTINs of real businesses (their check characters come from the GSTN, not from this code).
  it.each(['27AAPFU0939F1ZV', '29AAGCB7383J1Z4', '07AAGFF2194N1Z1'])('%s is valid', (gstin) => {
    expect(gstinProblem(gstin)).toBeNull();
    expect(gstinCheckCharacter(gstin.slice(0, 14))).toBe(gstin[14]);
  });

  it('refuses every single-character change of the check character', () => {
    for (const c of '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'.replace('V', '')) expect(gstinProblem(`27AAPFU0939F1Z${c}`)).toMatch(/check character/);
  });

  it('catches a mistyped digit or two swapped neighbours', () => {
    expect(gstinProblem('27AAPFU0938F1ZV')).toMatch(/check character/);
    expect(gstinProblem('27AAPUF0939F1ZV')).toMatch(/check character/);
  });

  it.each([
    ['27AAPFU0939F1Z', /15 characters/],
    ['27AAPFU0939F1ZVX', /15 characters/],
    ['27aapfu0939f1zv', /PAN/],
    ['2AAAPFU0939F1ZV', /PAN/],
    ['27AAPF10939F1ZV', /PAN/],
    ['27AAPFU0939F0ZV', /PAN/],
    ['00AAPFU0939F1ZV', /state code/],
    ['45AAPFU0939F1ZV', /state code/],
  ])('%s is refused (%s)', (gstin, why) => {
    expect(gstinProblem(gstin)).toMatch(why);
  });

  it('has a GST state code for each of the 36 states and union territories, all different', () => {
    expect(INDIAN_STATES.map((s) => gstState(s)?.code ?? s).filter((c) => !/^\d{2}$/.test(c))).toEqual([]);
    expect(new Set(Object.values(GST_STATE_CODES)).size).toBe(36);
    expect(gstState('orissa')).toEqual({ name: 'Odisha', code: '21' });
    expect(gstState('Atlantis')).toBeNull();
  });
});

describe('amount in words (Indian system)', () => {
  it.each([
    ['0', 'Rupees Zero Only'],
    ['7.05', 'Rupees Seven and Five Paise Only'],
    ['19.99', 'Rupees Nineteen and Ninety-Nine Paise Only'],
    ['1180.00', 'Rupees One Thousand One Hundred Eighty Only'],
    ['100000', 'Rupees One Lakh Only'],
    ['250075.50', 'Rupees Two Lakh Fifty Thousand Seventy-Five and Fifty Paise Only'],
    ['1234567.89', 'Rupees Twelve Lakh Thirty-Four Thousand Five Hundred Sixty-Seven and Eighty-Nine Paise Only'],
    ['10000000', 'Rupees One Crore Only'],
    ['123456789.01', 'Rupees Twelve Crore Thirty-Four Lakh Fifty-Six Thousand Seven Hundred Eighty-Nine and One Paise Only'],
    [
      '999999999999.99',
      'Rupees Ninety-Nine Thousand Nine Hundred Ninety-Nine Crore Ninety-Nine Lakh Ninety-Nine Thousand Nine Hundred Ninety-Nine and Ninety-Nine Paise Only',
    ],
  ])('%s -> %s', (amount, words) => {
    expect(rupeesInWords(amount)).toBe(words);
  });

  it('names every number below a crore with at most one each of lakh, thousand and hundred', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9_999_999 }), (n) => {
        const words = indianNumberWords(BigInt(n));
        expect(words).not.toMatch(/Million|Billion|Zero|undefined| {2}/);
        for (const unit of ['Lakh', 'Thousand', 'Hundred']) expect(words.split(unit).length).toBeLessThanOrEqual(2);
        expect(words.includes('Lakh')).toBe(n >= 100_000);
      }),
    );
  });
});

describe('GST out of prices that include it', () => {
  it('splits 1180 at 18% into 1000 taxable, 90 CGST, 90 SGST within the state, 180 IGST across states', () => {
    expect(taxLine('1180.00', '18', 'intra')).toMatchObject({ taxable: '1000.00', cgst: '90.00', sgst: '90.00', igst: '0.00' });
    expect(taxLine('1180.00', '18', 'inter')).toMatchObject({ taxable: '1000.00', cgst: '0.00', sgst: '0.00', igst: '180.00' });
    expect(taxLine('1180.00', '18', 'none')).toMatchObject({ taxable: '1180.00', cgst: '0.00', sgst: '0.00', igst: '0.00', rate: '0.00' });
  });

  it('rounds the GST half up, the taxable value is the rest, and the odd paisa goes to CGST: 99.99 at 5%', () => {
    // 99.99 × 5 / 105 = 4.7614… -> 4.76; taxable 95.23; CGST 2.38, SGST 2.38
    expect(taxLine('99.99', '5', 'intra')).toMatchObject({ taxable: '95.23', cgst: '2.38', sgst: '2.38' });
    // 10.01 at 12%: 1.0725 -> 1.07; taxable 8.94; CGST 0.54 (0.535 half up), SGST 0.53
    expect(taxLine('10.01', '12', 'intra')).toMatchObject({ taxable: '8.94', cgst: '0.54', sgst: '0.53' });
  });

  it('takes the half paisa into the GST on an exact tie (12% and 28% have them)', () => {
    // 0.14 × 12 / 112 = 0.015 exactly: GST 0.02, taxable 0.12 (rounding the taxable 0.125 up instead would leave GST 0.01)
    expect(includedGst('0.14', '12').toFixed(2)).toBe('0.02');
    expect(taxLine('0.14', '12', 'inter')).toMatchObject({ taxable: '0.12', igst: '0.02' });
    // 0.16 × 28 / 128 = 0.035 exactly
    expect(taxLine('0.16', '28', 'intra')).toMatchObject({ taxable: '0.12', cgst: '0.02', sgst: '0.02' });
  });

  it('always adds up: per line and in total, taxable + taxes = what was charged, for any lines and rates', () => {
    const line = fc.record({
      gross: fc.integer({ min: 0, max: 5_000_000_00 }).map((p) => new Decimal(p).dividedBy(100).toFixed(2)),
      rate: fc.constantFrom('0', '0.25', '3', '5', '12', '18', '28', '40'),
    });
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 50 }), fc.constantFrom('intra' as const, 'inter' as const), (lines, kind) => {
        const taxed = lines.map((l) => taxLine(l.gross, l.rate, kind));
        for (const t of taxed) {
          expect(new Decimal(t.taxable).plus(t.cgst).plus(t.sgst).plus(t.igst).toFixed(2)).toBe(t.gross);
          expect(new Decimal(t.cgst).minus(t.sgst).abs().lte('0.01')).toBe(true);
        }
        const totals = taxTotals(taxed);
        const charged = lines.reduce((a, l) => a.plus(l.gross), new Decimal(0)).toFixed(2);
        expect(totals.total).toBe(charged);
        expect(new Decimal(totals.taxable).plus(totals.cgst).plus(totals.sgst).plus(totals.igst).toFixed(2)).toBe(charged);
        const byRate = taxByRate(taxed);
        expect(byRate.reduce((a, r) => a.plus(r.taxable), new Decimal(0)).toFixed(2)).toBe(totals.taxable);
      }),
      { numRuns: 500 },
    );
  });
});
