/**
 * Every authenticated endpoint of the spec, as a request that is valid apart from authentication; `permission` names
 * the key permission it needs beyond the default `commerce`.
 */
export const SPEC_ROUTES: {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  body?: unknown;
  permission?: 'webhooks' | 'catalogue' | 'ucp' | 'cod' | 'privacy' | 'audit';
}[] = [
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
  { name: 'cod confirmation', method: 'POST', url: '/orders/ORD-1/cod-confirmation', body: { answer: 'confirm' } },
  { name: 'customer lookup', method: 'GET', url: '/customers?phone=9876543210' },
  { name: 'mcp', method: 'POST', url: '/mcp', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
  { name: 'messaging opt-out', method: 'PUT', url: '/customers/messaging-opt-out', body: { phone: '9876543210', messaging_opted_out: true } },
  { name: 'consent', method: 'POST', url: '/customers/consents', body: { phone: '9876543210', purpose: 'marketing', channel: 'email', state: 'given' } },
  { name: 'webhook add', method: 'POST', url: '/webhooks', body: { url: 'https://8.8.8.8/hook', events: ['order.created'] }, permission: 'webhooks' },
  { name: 'webhook list', method: 'GET', url: '/webhooks', permission: 'webhooks' },
  { name: 'webhook remove', method: 'DELETE', url: '/webhooks/whe_none', permission: 'webhooks' },
  { name: 'stock set', method: 'PUT', url: '/catalog/stock', body: { items: [{ sku: 'SKU-1', on_hand: '5' }] }, permission: 'catalogue' },
  { name: 'ucp settings', method: 'GET', url: '/ucp/settings', permission: 'ucp' },
  { name: 'ucp settings set', method: 'PUT', url: '/ucp/settings', body: { hold_minutes: 30 }, permission: 'ucp' },
  { name: 'ucp hosts', method: 'GET', url: '/ucp/hosts', permission: 'ucp' },
  { name: 'ucp host add', method: 'POST', url: '/ucp/hosts', body: { host: 'shop.example.in' }, permission: 'ucp' },
  { name: 'ucp host remove', method: 'DELETE', url: '/ucp/hosts/none.example.in', permission: 'ucp' },
  { name: 'cod settings', method: 'GET', url: '/cod/settings', permission: 'cod' },
  { name: 'cod settings set', method: 'PUT', url: '/cod/settings', body: { max_order_value: '4999' }, permission: 'cod' },
  { name: 'cod availability', method: 'GET', url: '/cod/availability?pincode=560038' },
  { name: 'customer data', method: 'GET', url: '/privacy/customer-data?phone=9876543210', permission: 'privacy' },
  { name: 'customer correction', method: 'POST', url: '/privacy/corrections', body: { phone: '9876543210', name: 'A' }, permission: 'privacy' },
  { name: 'customer erasure', method: 'POST', url: '/privacy/erasures', body: { phone: '9876543210' }, permission: 'privacy' },
  { name: 'audit trail', method: 'GET', url: '/audit', permission: 'audit' },
  { name: 'privacy settings', method: 'GET', url: '/privacy/settings', permission: 'privacy' },
  { name: 'privacy settings set', method: 'PUT', url: '/privacy/settings', body: { events_retention_days: 60 }, permission: 'privacy' },
];
