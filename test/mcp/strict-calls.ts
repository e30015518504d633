/**
 * One call per tool the way a strict-mode model sends it (issue 18): every property present, `null` where the
 * model has nothing to say, numbers and booleans as JSON. Shared by the framework-conversion tests; each
 * object is checked against the published input schema before it is sent (every property is required there).
 */
export const STRICT_CALLS: [tool: string, args: Record<string, unknown>][] = [
  ['list_categories', {}],
  ['browse_catalog', { search: 'shirt', category: null, brand: null, in_stock: true, limit: 10, offset: null }],
  ['get_product_details', { id: 'SHIRT-RED-XL' }],
  ['search_products', { search: null, limit: 5, offset: 0 }],
  ['get_product', { id: 'SHIRT-RED-XL' }],
  [
    'place_order',
    {
      customer: { name: 'Asha Rao', phone: '+91 98765 43210', email: null },
      items: [{ product_id: 'SHIRT-RED-XL', quantity: 1 }],
      external_reference: 'strict-1',
      notes: null,
      delivery_address: { name: null, line1: '12 MG Road', line2: null, city: 'Bengaluru', pincode: '560001', state: null, phone: null },
      payment: null,
      payment_reference: null,
    },
  ],
  [
    'place_order',
    {
      customer: { name: 'Asha Rao', phone: '+91 98765 43210', email: 'asha@example.in' },
      items: [{ product_id: 'SHIRT-RED-XL', quantity: 1 }],
      external_reference: 'strict-2',
      notes: 'second order, to the address given with the first',
      delivery_address: null,
      payment: 'cod',
      payment_reference: null,
    },
  ],
  ['get_order', { reference: 'strict-1', phone: null }],
  ['find_customer', { phone: '9876543210', recent_orders: null }],
];

/** Every constraint keyword a converter must not drop. */
export const CONSTRAINTS = [
  'type',
  'enum',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'required',
  'additionalProperties',
];

/** Constraint keywords of a JSON Schema, by path (`place_order.items[].quantity.type`). */
export function constraintsOf(schema: unknown, at = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof schema !== 'object' || schema === null) return out;
  const s = schema as Record<string, unknown>;
  for (const k of CONSTRAINTS) if (k in s) out[`${at}.${k}`] = s[k];
  for (const [key, value] of Object.entries((s.properties as Record<string, unknown> | undefined) ?? {}))
    Object.assign(out, constraintsOf(value, `${at}.${key}`));
  if (s.items) Object.assign(out, constraintsOf(s.items, `${at}[]`));
  return out;
}
