import { describe, expect, it } from 'vitest';
import { shippingOptions, type ShippingRate } from '../../src/checkout/shipping-options.js';

const rate = (r: Partial<ShippingRate> & Pick<ShippingRate, 'id' | 'level' | 'zone_kind' | 'price'>): ShippingRate => ({
  title: r.id,
  description: null,
  zone_values: [],
  free_above: null,
  free_skus: [],
  active: true,
  ...r,
});

/** The conformance suite's table (ids fixed by its tests, prices in rupees) and an Indian seller's zones. */
const RATES: ShippingRate[] = [
  rate({
    id: 'std-ship',
    title: 'Standard Shipping',
    description: 'Arrives in 5-8 days',
    level: 'standard',
    zone_kind: 'everywhere',
    price: '49.00',
    free_above: '100.00',
    free_skus: ['bouquet_roses'],
  }),
  rate({ id: 'exp-ship-us', title: 'Express Shipping (US)', level: 'express', zone_kind: 'countries', zone_values: ['US'], price: '150.00' }),
  rate({ id: 'exp-ship-intl', title: 'International Express', level: 'express', zone_kind: 'everywhere', price: '250.00' }),
  rate({ id: 'exp-ship-in', title: 'Express Delivery (India)', level: 'express', zone_kind: 'countries', zone_values: ['IN'], price: '99.00' }),
  rate({ id: 'blr-express', title: 'Bengaluru Express', level: 'express', zone_kind: 'pincodes', zone_values: ['560001-560099'], price: '40.00' }),
  rate({ id: 'ka-standard', title: 'Karnataka Standard', level: 'standard', zone_kind: 'states', zone_values: ['Karnataka'], price: '30.00' }),
  rate({ id: 'old-in', title: 'Withdrawn', level: 'standard', zone_kind: 'countries', zone_values: ['IN'], price: '1.00', active: false }),
];

const ids = (quote: ReturnType<typeof shippingOptions>) => quote.options.map((o) => o.id);
const offer = (destination: Parameters<typeof shippingOptions>[1], subtotal = '35.00', skus: string[] = []) =>
  shippingOptions(RATES, destination, subtotal, skus);

describe('shipping options: countries (the conformance suite)', () => {
  it('offers a US address standard and US express, cheapest first, with decimal and paise prices', () => {
    const quote = offer({ country: 'US', state: 'IL', postalCode: '62704' });
    expect(quote).toEqual({
      problem: null,
      options: [
        { id: 'std-ship', title: 'Standard Shipping', description: 'Arrives in 5-8 days', level: 'standard', price: { decimal: '49.00', paise: 4900 } },
        { id: 'exp-ship-us', title: 'Express Shipping (US)', description: null, level: 'express', price: { decimal: '150.00', paise: 15000 } },
      ],
    });
  });

  it('offers a Canadian address standard and international express (no country of its own)', () => {
    expect(ids(offer({ country: 'ca', postalCode: 'M5V 2H1' }))).toEqual(['std-ship', 'exp-ship-intl']);
  });

  it('offers nothing without a country', () => {
    expect(offer({ postalCode: '62704' })).toEqual({ options: [], problem: null });
    expect(offer({ country: '  ' })).toEqual({ options: [], problem: null });
  });
});

describe('shipping options: free shipping', () => {
  it('is free at free_above exactly, not a paisa below: price 0 and " (Free)" in the title, first in the list', () => {
    const at = offer({ country: 'US' }, '100.00');
    expect(at.options[0]).toMatchObject({ id: 'std-ship', title: 'Standard Shipping (Free)', price: { decimal: '0.00', paise: 0 } });
    expect(offer({ country: 'US' }, '99.99').options[0]).toMatchObject({ id: 'std-ship', title: 'Standard Shipping', price: { paise: 4900 } });
  });

  it('is free when the cart holds one of the rate’s free SKUs, whatever the subtotal', () => {
    expect(offer({ country: 'US' }, '35.00', ['pot_terracotta', 'bouquet_roses']).options[0]).toMatchObject({
      title: 'Standard Shipping (Free)',
      price: { paise: 0 },
    });
    expect(offer({ country: 'US' }, '35.00', ['pot_terracotta']).options[0].price.paise).toBe(4900);
  });
});

describe('shipping options: Indian PIN codes and states, the most specific zone per level', () => {
  it('gives Bengaluru 560034 its state’s standard rate and its PIN range’s express rate over the country’s', () => {
    const quote = offer({ country: 'IN', postalCode: '560034' });
    expect(quote.options.map((o) => [o.id, o.price.decimal])).toEqual([
      ['ka-standard', '30.00'],
      ['blr-express', '40.00'],
    ]);
  });

  it('holds both ends of a PIN range and nothing past them', () => {
    expect(ids(offer({ country: 'IN', postalCode: '560001' }))).toContain('blr-express');
    expect(ids(offer({ country: 'IN', postalCode: '560 099' }))).toContain('blr-express');
    expect(ids(offer({ country: 'IN', postalCode: '560100' }))).toEqual(['ka-standard', 'exp-ship-in']);
  });

  it('falls back to the country, then everywhere, outside the state; skips an inactive rate', () => {
    expect(ids(offer({ country: 'IN', postalCode: '400053' }))).toEqual(['std-ship', 'exp-ship-in']);
  });

  it('reads the state when no PIN is given, in any accepted spelling', () => {
    expect(ids(offer({ country: 'IN', state: 'karnataka' }))).toEqual(['ka-standard', 'exp-ship-in']);
    expect(ids(offer({ country: 'IN' }))).toEqual(['std-ship', 'exp-ship-in']);
  });

  it('needs the state for a PIN two states share, and refuses a PIN that is not one', () => {
    const shared = offer({ country: 'IN', postalCode: '160003' });
    expect(shared.options).toEqual([]);
    expect(shared.problem).toMatch(/shared by Chandigarh and Punjab/);
    expect(ids(offer({ country: 'IN', postalCode: '160003', state: 'Punjab' }))).toEqual(['std-ship', 'exp-ship-in']);
    const bad = offer({ country: 'IN', postalCode: '056003' });
    expect(bad).toEqual({ options: [], problem: expect.stringMatching(/not valid/) });
  });
});

describe('shipping options: choosing among rates', () => {
  it('takes the cheaper of two equally specific rates, and lists standard before express at the same price', () => {
    const rates = [
      rate({ id: 'a-std', level: 'standard', zone_kind: 'countries', zone_values: ['IN'], price: '60.00' }),
      rate({ id: 'b-std', level: 'standard', zone_kind: 'countries', zone_values: ['IN', 'NP'], price: '50.00' }),
      rate({ id: 'exp', level: 'express', zone_kind: 'everywhere', price: '50.00' }),
    ];
    expect(ids(shippingOptions([...rates].reverse(), { country: 'IN' }, '10.00', []))).toEqual(['b-std', 'exp']);
    expect(ids(shippingOptions(rates, { country: 'IN' }, '10.00', []))).toEqual(['b-std', 'exp']);
  });

  it('sorts by price across levels: a free express comes before a paid standard', () => {
    const rates = [
      rate({ id: 'std', level: 'standard', zone_kind: 'everywhere', price: '40.00' }),
      rate({ id: 'exp', level: 'express', zone_kind: 'everywhere', price: '90.00', free_skus: ['gift'] }),
    ];
    expect(ids(shippingOptions(rates, { country: 'IN' }, '10.00', ['gift']))).toEqual(['exp', 'std']);
  });
});
