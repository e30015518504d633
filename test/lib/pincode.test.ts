import { describe, expect, it } from 'vitest';
import { INDIAN_STATES, PINCODE_DATA_SOURCE, isIndianState, officialStateName, resolveDeliveryState, statesForPincode } from '../../src/lib/pincode.js';

describe('pincode table', () => {
  it('lists exactly the 28 states and 8 union territories', () => {
    expect(INDIAN_STATES).toHaveLength(36);
    expect(new Set(INDIAN_STATES).size).toBe(36);
    for (const name of [
      'Jammu and Kashmir',
      'Ladakh',
      'Andaman and Nicobar Islands',
      'Chhattisgarh',
      'Puducherry',
      'Dadra and Nagar Haveli and Daman and Diu',
      'Odisha',
      'Uttarakhand',
      'Telangana',
      'Delhi',
    ]) {
      expect(INDIAN_STATES).toContain(name);
    }
    expect(INDIAN_STATES.some((s) => s.includes('&'))).toBe(false);
  });

  it('credits its sources', () => {
    expect(PINCODE_DATA_SOURCE).toMatch(/GeoNames/);
    expect(PINCODE_DATA_SOURCE).toMatch(/CC BY 4\.0/);
    expect(PINCODE_DATA_SOURCE).toMatch(/India Post/);
  });
});

describe('statesForPincode', () => {
  it.each([
    ['560001', 'Karnataka'],
    ['110001', 'Delhi'],
    ['400001', 'Maharashtra'],
    ['194101', 'Ladakh'],
    ['190001', 'Jammu and Kashmir'],
    ['744101', 'Andaman and Nicobar Islands'],
    ['605001', 'Puducherry'],
    ['492001', 'Chhattisgarh'],
  ])('%s -> %s', (pin, state) => {
    expect(statesForPincode(pin)).toEqual([state]);
  });

  it('gives both states of a PIN on a border', () => {
    expect(statesForPincode('605007').sort()).toEqual(['Puducherry', 'Tamil Nadu']);
  });

  it('falls back to the state of a one-state prefix for an unknown PIN', () => {
    expect(statesForPincode('560999')).toEqual(['Karnataka']);
  });

  it('gives nothing for an unknown PIN of a shared prefix, an unknown prefix or a malformed PIN', () => {
    expect(statesForPincode('605999')).toEqual([]); // 605 is Tamil Nadu and Puducherry
    expect(statesForPincode('100001')).toEqual([]);
    expect(statesForPincode('999999')).toEqual([]);
    expect(statesForPincode('56000')).toEqual([]);
    expect(statesForPincode('060001')).toEqual([]);
    expect(statesForPincode('abcdef')).toEqual([]);
  });

  it('ignores spaces inside the PIN', () => {
    expect(statesForPincode(' 560 001 ')).toEqual(['Karnataka']);
  });
});

describe('state names', () => {
  it('accepts case, "&", punctuation and spacing variants and old names', () => {
    expect(officialStateName('jammu & kashmir')).toBe('Jammu and Kashmir');
    expect(officialStateName('Jammu-Kashmir')).toBe('Jammu and Kashmir');
    expect(officialStateName('  TAMIL   NADU ')).toBe('Tamil Nadu');
    expect(officialStateName('Tamilnadu')).toBe('Tamil Nadu');
    expect(officialStateName('Orissa')).toBe('Odisha');
    expect(officialStateName('Pondicherry')).toBe('Puducherry');
    expect(officialStateName('Uttaranchal')).toBe('Uttarakhand');
    expect(officialStateName('Chattisgarh')).toBe('Chhattisgarh');
    expect(officialStateName('Daman & Diu')).toBe('Dadra and Nagar Haveli and Daman and Diu');
    expect(officialStateName('Andaman & Nicobar')).toBe('Andaman and Nicobar Islands');
    expect(officialStateName('NCT of Delhi')).toBe('Delhi');
  });

  it('refuses what is not a state', () => {
    expect(isIndianState('Karnataka')).toBe(true);
    expect(isIndianState('Bangalore')).toBe(false);
    expect(isIndianState('')).toBe(false);
    expect(isIndianState('and')).toBe(false);
    expect(isIndianState(null)).toBe(false);
  });
});

describe('resolveDeliveryState', () => {
  it('takes the state from a one-state PIN', () => {
    expect(resolveDeliveryState('560001')).toEqual({ ok: true, state: 'Karnataka' });
    expect(resolveDeliveryState('110001', null)).toEqual({ ok: true, state: 'Delhi' });
    expect(resolveDeliveryState('400001', '')).toEqual({ ok: true, state: 'Maharashtra' });
    expect(resolveDeliveryState('194101', '   ')).toEqual({ ok: true, state: 'Ladakh' });
  });

  it('accepts a given state that names the PIN state, in any spelling', () => {
    expect(resolveDeliveryState('560001', 'karnataka')).toEqual({ ok: true, state: 'Karnataka' });
    expect(resolveDeliveryState('751001', 'Orissa')).toEqual({ ok: true, state: 'Odisha' });
    expect(resolveDeliveryState('190001', 'Jammu & Kashmir')).toEqual({ ok: true, state: 'Jammu and Kashmir' });
    expect(resolveDeliveryState('605001', 'Pondicherry')).toEqual({ ok: true, state: 'Puducherry' });
  });

  it('refuses a state that contradicts the PIN', () => {
    const r = resolveDeliveryState('560001', 'Kerala');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.message).toContain('state Kerala does not match PIN 560001 (Karnataka)');
      expect(r.message).toContain('delivery_address.state');
    }
    const leh = resolveDeliveryState('194101', 'Jammu and Kashmir');
    expect(leh).toEqual({ ok: false, message: expect.stringContaining('does not match PIN 194101 (Ladakh)') });
    const notAState = resolveDeliveryState('560001', 'Bangalore');
    expect(notAState).toEqual({ ok: false, message: expect.stringContaining('state Bangalore does not match PIN 560001 (Karnataka)') });
  });

  it('needs the given state to choose for a two-state PIN', () => {
    expect(resolveDeliveryState('605007', 'Tamil Nadu')).toEqual({ ok: true, state: 'Tamil Nadu' });
    expect(resolveDeliveryState('605007', 'pondicherry')).toEqual({ ok: true, state: 'Puducherry' });
    expect(resolveDeliveryState('160003', 'punjab')).toEqual({ ok: true, state: 'Punjab' });

    const missing = resolveDeliveryState('605007');
    expect(missing.ok).toBe(false);
    if (!missing.ok) {
      expect(missing.message).toContain('605007');
      expect(missing.message).toContain('"Puducherry"');
      expect(missing.message).toContain('"Tamil Nadu"');
    }
    const wrong = resolveDeliveryState('605007', 'Kerala');
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) {
      expect(wrong.message).toContain('state Kerala does not match PIN 605007');
      expect(wrong.message).toContain('"Puducherry" or "Tamil Nadu"');
    }
  });

  it('uses the prefix state for an unknown PIN of a one-state prefix', () => {
    expect(resolveDeliveryState('560999')).toEqual({ ok: true, state: 'Karnataka' });
    expect(resolveDeliveryState('560999', 'KARNATAKA')).toEqual({ ok: true, state: 'Karnataka' });
    expect(resolveDeliveryState('560999', 'Goa')).toEqual({
      ok: false,
      message: expect.stringContaining('state Goa does not match PIN 560999 (Karnataka)'),
    });
  });

  it('takes the given state for a PIN whose prefix names no single state', () => {
    expect(resolveDeliveryState('999999', 'Tamil Nadu')).toEqual({ ok: true, state: 'Tamil Nadu' });
    expect(resolveDeliveryState('100001', 'delhi')).toEqual({ ok: true, state: 'Delhi' });
    expect(resolveDeliveryState('605999', 'Orissa')).toEqual({ ok: true, state: 'Odisha' });

    const none = resolveDeliveryState('100001');
    expect(none).toEqual({ ok: false, message: expect.stringContaining('unknown PIN code; send delivery_address.state') });
    const bad = resolveDeliveryState('100001', 'Narnia');
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.message).toContain('unknown PIN code');
      expect(bad.message).toContain('"Narnia" is not an Indian state or union territory');
    }
  });

  it('refuses a malformed PIN', () => {
    for (const pin of ['', '56001', '5600011', '060001', 'ABC123']) {
      const r = resolveDeliveryState(pin, 'Karnataka');
      expect(r).toEqual({ ok: false, message: expect.stringContaining('6 digits') });
    }
  });
});
