import { describe, expect, it } from 'vitest';
import { signCallback } from '../../src/couriers/callback-signature.js';
import { useTestApp } from '../helpers/app.js';
import { orderBody, post, teeShop, uid } from '../helpers/fulfilment.js';

// Low limits so the throttles show: 3 failed signatures per address and company, 5 valid callbacks per company.
const ctx = useTestApp({ AUTH_FAILURE_LIMIT: '3', COURIER_CALLBACK_RATE_LIMIT: '5' });

async function withShipment() {
  const s = await teeShop(ctx, '10');
  const cfg = await ctx.services.fulfilment.configureCourier(s.companyId, { kind: 'cli', name: 'test' }, { adapter: 'manual' });
  const ref = (await post(ctx, s.headers, orderBody())).body.data.order_number;
  const awb = `AWB-${uid()}`;
  await ctx.services.fulfilment.ship(s.companyId, ref, { awb, courier: 'X' });
  return { slug: s.company.slug, secret: cfg.callback_secret!, awb };
}

function send(slug: string, payload: string, header: string, remoteAddress = '203.0.113.7') {
  return ctx.app.inject({
    method: 'POST',
    url: `/couriers/${slug}/callback`,
    remoteAddress,
    headers: { 'content-type': 'application/json', 'x-courier-signature': header },
    payload,
  });
}

describe('courier callbacks are throttled', () => {
  it('failed signatures past the limit answer 429 with Retry-After per address and company; valid ones are still served', async () => {
    const a = await withShipment();
    const b = await withShipment();
    const payload = JSON.stringify({ awb: a.awb, status: 'in_transit' });
    const bad = signCallback('not-the-secret', payload);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await send(a.slug, payload, bad)).statusCode);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    const limited = await send(a.slug, payload, 'garbage');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(/failed courier signatures/) } });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);

    // the courier's genuine update from the same address is served
    expect((await send(a.slug, payload, signCallback(a.secret, payload))).statusCode).toBe(200);
    // another company behind the same address, and the same company from another address, have their own counts
    const pb = JSON.stringify({ awb: b.awb, status: 'in_transit' });
    expect((await send(b.slug, pb, signCallback('nope', pb))).statusCode).toBe(401);
    expect((await send(a.slug, payload, bad, '198.51.100.9')).statusCode).toBe(401);
  });

  it('validly signed callbacks have a budget per company (COURIER_CALLBACK_RATE_LIMIT per window): 429 with Retry-After past it', async () => {
    const a = await withShipment();
    const b = await withShipment();
    const payload = JSON.stringify({ awb: a.awb, status: 'in_transit' });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await send(a.slug, payload, signCallback(a.secret, payload), `192.0.2.${i + 1}`)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const over = await send(a.slug, payload, signCallback(a.secret, payload));
    expect(over.statusCode).toBe(429);
    expect(over.json().error).toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/courier updates .* for this company/) });
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    // another company is not affected
    const pb = JSON.stringify({ awb: b.awb, status: 'in_transit' });
    expect((await send(b.slug, pb, signCallback(b.secret, pb))).statusCode).toBe(200);
  });
});
