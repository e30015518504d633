import type { TestApp } from './app.js';
import { BASE, orderBody, post, uid } from './orders.js';

/** A key with the `cod` permission for the company, as headers. */
export async function codAdminHeaders(ctx: TestApp, companyId: string): Promise<Record<string, string>> {
  const { key } = await ctx.services.keys.create(companyId, { kind: 'cli', name: 'test' }, 'cod admin', ['cod']);
  return { 'x-api-key': key };
}

/** PUT /cod/settings with a `cod` key. */
export async function putCodSettings(ctx: TestApp, headers: Record<string, string>, body: unknown) {
  const res = await ctx.app.inject({
    method: 'PUT',
    url: `${BASE}/cod/settings`,
    headers: { ...headers, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.json() };
}

/** GET /cod/availability with these parameters. */
export async function codAvailability(ctx: TestApp, headers: Record<string, string>, params: Record<string, string>) {
  const res = await ctx.app.inject({ method: 'GET', url: `${BASE}/cod/availability?${new URLSearchParams(params).toString()}`, headers });
  return { status: res.statusCode, body: res.json() };
}

/**
 * How the company's orders for `phone` end, through the real flows: placed over POST /orders (prepaid, so the COD
 * rules never stand in the way), then shipped by staff with an AWB and moved by the courier's word or staff's.
 */
export async function orderThatEnds(
  ctx: TestApp,
  s: { companyId: string; headers: Record<string, string> },
  phone: string,
  end: 'delivered' | 'rto' | 'cancelled' | 'returned after delivery' | 'returned undelivered' | 'open',
): Promise<string> {
  const placed = await post(ctx, s.headers, orderBody({ customer: { name: 'Asha Rao', phone } }));
  if (placed.status !== 201) throw new Error(`order not placed: ${JSON.stringify(placed.body)}`);
  const ref: string = placed.body.data.order_number;
  const { fulfilment } = ctx.services;
  if (end === 'open') return ref;
  if (end === 'cancelled') {
    await fulfilment.move(s.companyId, ref, 'cancelled');
    return ref;
  }
  const awb = `AWB${uid()}`;
  await fulfilment.ship(s.companyId, ref, { awb });
  if (end === 'rto') await fulfilment.track(s.companyId, { awb }, 'rto', { source: 'callback' });
  else if (end === 'returned undelivered') await fulfilment.move(s.companyId, ref, 'returned');
  else {
    await fulfilment.track(s.companyId, { awb }, 'delivered', { source: 'callback' });
    if (end === 'returned after delivery') await fulfilment.move(s.companyId, ref, 'returned');
  }
  return ref;
}
