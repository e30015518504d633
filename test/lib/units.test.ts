import { describe, expect, it } from 'vitest';
import { isWholeUnit } from '../../src/lib/units.js';

describe('selling units', () => {
  it('counted units (GST UQC codes and any unit not a measure) are whole', () => {
    for (const unit of ['PCS', 'NOS', 'BOX', 'PAC', 'SET', 'PRS', 'DOZ', 'BTL', 'CTN', 'ROL', 'UNT', 'OTH', 'pcs', 'Piece', '500G PACK', ''])
      expect(isWholeUnit(unit), unit).toBe(true);
  });

  it('weights, volumes, lengths and areas take decimals, however they are written', () => {
    for (const unit of [
      'KG',
      'G',
      'L',
      'ML',
      'M',
      'KGS',
      'GMS',
      'LTR',
      'MLT',
      'MTR',
      'TON',
      'QTL',
      'SQF',
      'SQM',
      'CBM',
      'Kg.',
      'kg',
      'Litre',
      'metres',
      'sq. ft',
    ])
      expect(isWholeUnit(unit), unit).toBe(false);
  });
});
