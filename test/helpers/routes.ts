/** Every authenticated endpoint of the spec, as a request that is valid apart from authentication. */
export const SPEC_ROUTES: { name: string; method: 'GET' | 'POST'; url: string; body?: unknown }[] = [
  { name: 'browse', method: 'GET', url: '/catalog/products' },
  { name: 'product detail', method: 'GET', url: '/catalog/products/SKU-1' },
  { name: 'categories', method: 'GET', url: '/catalog/categories' },
  {
    name: 'create order',
    method: 'POST',
    url: '/orders',
    body: { customer: { name: 'A', phone: '9876543210' }, items: [{ product_id: 'SKU-1', quantity: 1 }], external_reference: 'r-1' },
  },
  { name: 'order lookup', method: 'GET', url: '/orders/ORD-1' },
  { name: 'customer lookup', method: 'GET', url: '/customers?phone=9876543210' },
  { name: 'mcp', method: 'POST', url: '/mcp', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
];
