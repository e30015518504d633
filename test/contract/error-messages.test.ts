import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';

const BASE = '/api/v1/commerce';
const ctx = useTestApp();

/** Messages are for the person reading them: what was wrong, where, and how to fix it. */
describe('error messages', () => {
  const post = async (payload: string, contentType = 'application/json') => {
    const { headers } = await createCompanyWithKey(ctx.services);
    const res = await ctx.app.inject({ method: 'POST', url: `${BASE}/orders`, headers: { ...headers, 'content-type': contentType }, payload });
    return { status: res.statusCode, error: res.json().error };
  };

  it('name every bad field in the message itself, not only in details', async () => {
    const { status, error } = await post(JSON.stringify({ customer: { name: 'A' }, items: [{ product_id: 'X', quantity: 0 }], external_reference: 'r' }));
    expect(status).toBe(400);
    expect(error.message).toContain('2 fields are invalid: ');
    expect(error.message).toContain('customer.phone: required');
    expect(error.message).toContain('items[0].quantity: must be a number greater than 0');
  });

  it('tell a missing field from one of the wrong type', async () => {
    const { error } = await post(JSON.stringify({ customer: 'Asha', items: [5], external_reference: 7, delivery_address: 'MG Road' }));
    const byPath = Object.fromEntries(error.details.map((d: { path: string; message: string }) => [d.path, d.message]));
    expect(byPath).toEqual({
      customer: 'must be an object { name, phone }',
      'items[0]': 'must be an object { product_id, quantity }',
      external_reference: 'must be a string',
      delivery_address: 'must be an object { line1, city, pincode }',
    });
    const missing = await post(JSON.stringify({}));
    expect(missing.error.details.map((d: { message: string }) => d.message)).toEqual(
      expect.arrayContaining(['required; send an object { name, phone }', 'required; send a list of { product_id, quantity }', 'required; send a string']),
    );
    expect(missing.error.message).toMatch(/; and \d+ more in details$|^3 fields/);
  });

  it('say how to fix malformed JSON, a wrong content type and an unknown route', async () => {
    expect((await post('{"items": [')).error.message).toBe('request body is not valid JSON; check quotes, commas and brackets');
    expect((await post('a=1', 'text/plain')).error.message).toContain('Content-Type: application/json');
    const res = await ctx.app.inject({ url: `${BASE}/order` });
    expect(res.json().error.message).toContain('check the method and the path');
  });

  it('point an unknown item at the catalogue', async () => {
    const { status, error } = await post(
      JSON.stringify({ customer: { name: 'A', phone: '9876543210' }, items: [{ product_id: 'NOPE', quantity: 1 }], external_reference: 'r' }),
    );
    expect(status).toBe(404);
    expect(error.message).toContain('NOPE');
    expect(error.message).toContain('GET /catalog/products');
  });
});
