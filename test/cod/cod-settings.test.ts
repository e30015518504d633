import { describe, expect, it } from 'vitest';
import { MAX_BLOCKED_PINCODES } from '../../src/contract/cod.js';
import { useTestApp } from '../helpers/app.js';
import { codAdminHeaders, putCodSettings } from '../helpers/cod.js';
import { BASE, fetchJson, listeningUrl, shop } from '../helpers/orders.js';

/** GET and PUT /cod/settings: the `cod` permission, every field's rules at its edges, and one company's settings only. */
const ctx = useTestApp();

const DEFAULTS = {
  confirm_before_booking: false,
  confirm_within_minutes: 1440,
  on_timeout: 'cancel',
  blocked_pincodes: [],
  max_order_value: null,
  rto_threshold: null,
  updated_at: null,
};

async function codCompany() {
  const s = await shop(ctx);
  return { ...s, cod: await codAdminHeaders(ctx, s.companyId) };
}

const getSettings = async (headers: Record<string, string>) => {
  const res = await ctx.app.inject({ method: 'GET', url: `${BASE}/cod/settings`, headers });
  return { status: res.statusCode, body: res.json() };
};

/** The field's 400: exactly one detail, on `path`; the settings unchanged. */
async function refused(co: Awaited<ReturnType<typeof codCompany>>, body: Record<string, unknown>, path: string) {
  const before = (await getSettings(co.cod)).body.data;
  const res = await putCodSettings(ctx, co.cod, body);
  expect(res.status, JSON.stringify(body)).toBe(400);
  expect(res.body.error.code).toBe('validation_failed');
  expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
  expect((await getSettings(co.cod)).body.data).toEqual(before);
}

describe('COD settings over REST', () => {
  it('shows the defaults, then every field set in one PUT, and keeps what a later PUT leaves out', async () => {
    const co = await codCompany();
    expect(await getSettings(co.cod)).toEqual({ status: 200, body: { data: DEFAULTS } });
    const set = await putCodSettings(ctx, co.cod, {
      confirm_before_booking: true,
      confirm_within_minutes: 30,
      on_timeout: 'staff',
      blocked_pincodes: ['560038'],
      max_order_value: '4999',
      rto_threshold: 2,
    });
    expect(set.status).toBe(200);
    const expected = {
      confirm_before_booking: true,
      confirm_within_minutes: 30,
      on_timeout: 'staff',
      blocked_pincodes: ['560038'],
      max_order_value: '4999.00',
      rto_threshold: 2,
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    };
    expect(set.body.data).toEqual(expected);
    const later = await putCodSettings(ctx, co.cod, { rto_threshold: null, max_order_value: null });
    expect(later.body.data).toEqual({ ...expected, max_order_value: null, rto_threshold: null });
    expect((await getSettings(co.cod)).body.data).toEqual(later.body.data);
  });

  it('needs the cod permission: a commerce key gets 403 and changes nothing', async () => {
    const co = await codCompany();
    expect((await getSettings(co.headers)).status).toBe(403);
    const res = await putCodSettings(ctx, co.headers, { max_order_value: '1' });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('"cod" permission');
    expect((await getSettings(co.cod)).body.data).toEqual(DEFAULTS);
  });

  it("is one company's: another company's cod key neither sees nor changes it", async () => {
    const a = await codCompany();
    const b = await codCompany();
    await putCodSettings(ctx, a.cod, { blocked_pincodes: ['560038'], rto_threshold: 0 });
    expect((await getSettings(b.cod)).body.data).toEqual(DEFAULTS);
    await putCodSettings(ctx, b.cod, { max_order_value: '10' });
    expect((await getSettings(a.cod)).body.data).toMatchObject({ blocked_pincodes: ['560038'], rto_threshold: 0, max_order_value: null });
  });

  it('keeps both of two admins changing different fields at the same moment (truly parallel requests)', async () => {
    const co = await codCompany();
    const url = `${await listeningUrl(ctx)}/cod/settings`;
    const changes = [
      { confirm_before_booking: true },
      { confirm_within_minutes: 45 },
      { on_timeout: 'staff' },
      { blocked_pincodes: ['560038'] },
      { max_order_value: '2500' },
      { rto_threshold: 3 },
    ];
    const answers = await Promise.all(changes.map((body) => fetchJson(url, { method: 'PUT', headers: co.cod, body })));
    expect(answers.map((a) => a.status)).toEqual(changes.map(() => 200));
    expect((await getSettings(co.cod)).body.data).toEqual({
      confirm_before_booking: true,
      confirm_within_minutes: 45,
      on_timeout: 'staff',
      blocked_pincodes: ['560038'],
      max_order_value: '2500.00',
      rto_threshold: 3,
      updated_at: expect.any(String),
    });
  });

  it('takes confirm_within_minutes 5 and 10080, refuses 4, 10081, 30.5 and "30"', async () => {
    const co = await codCompany();
    for (const minutes of [5, 10080])
      expect((await putCodSettings(ctx, co.cod, { confirm_within_minutes: minutes })).body.data.confirm_within_minutes).toBe(minutes);
    for (const minutes of [4, 10081, 30.5, '30']) await refused(co, { confirm_within_minutes: minutes }, 'confirm_within_minutes');
  });

  it('takes on_timeout cancel or staff and confirm_before_booking true or false, nothing else', async () => {
    const co = await codCompany();
    for (const v of ['staff', 'cancel']) expect((await putCodSettings(ctx, co.cod, { on_timeout: v })).body.data.on_timeout).toBe(v);
    for (const v of [true, false]) expect((await putCodSettings(ctx, co.cod, { confirm_before_booking: v })).body.data.confirm_before_booking).toBe(v);
    await refused(co, { on_timeout: 'wait' }, 'on_timeout');
    await refused(co, { confirm_before_booking: 'on' }, 'confirm_before_booking');
    await refused(co, { confirm_before_booking: null }, 'confirm_before_booking');
  });

  it('stores blocked PIN codes normalised: trimmed, a one-PIN range as the PIN, each once, sorted', async () => {
    const co = await codCompany();
    const res = await putCodSettings(ctx, co.cod, { blocked_pincodes: [' 560038 ', '110001 - 110099', '560038', '400001-400001', '110001-110099'] });
    expect(res.body.data.blocked_pincodes).toEqual(['110001-110099', '400001', '560038']);
    expect((await putCodSettings(ctx, co.cod, { blocked_pincodes: [] })).body.data.blocked_pincodes).toEqual([]);
  });

  it(`takes ${MAX_BLOCKED_PINCODES} blocked PIN codes and refuses ${MAX_BLOCKED_PINCODES + 1}; refuses a bad entry by its index`, async () => {
    const co = await codCompany();
    const pins = (n: number) => Array.from({ length: n }, (_, i) => String(110001 + i));
    expect((await putCodSettings(ctx, co.cod, { blocked_pincodes: pins(MAX_BLOCKED_PINCODES) })).body.data.blocked_pincodes).toHaveLength(MAX_BLOCKED_PINCODES);
    await refused(co, { blocked_pincodes: pins(MAX_BLOCKED_PINCODES + 1) }, 'blocked_pincodes');
    for (const bad of ['56003', '5600381', '060038', 'abcdef', '110099-110001', '110001-', '110001-11009'])
      await refused(co, { blocked_pincodes: ['560038', bad] }, 'blocked_pincodes[1]');
    await refused(co, { blocked_pincodes: '560038' }, 'blocked_pincodes');
    await refused(co, { blocked_pincodes: [560038] }, 'blocked_pincodes[0]');
  });

  it('takes max_order_value from 0.01 to 999999999999.99 as a string with at most 2 decimals, written with two', async () => {
    const co = await codCompany();
    for (const [given, stored] of [
      ['0.01', '0.01'],
      ['4999', '4999.00'],
      ['4999.5', '4999.50'],
      ['999999999999.99', '999999999999.99'],
    ])
      expect((await putCodSettings(ctx, co.cod, { max_order_value: given })).body.data.max_order_value).toBe(stored);
    for (const bad of ['0', '0.00', '-1', '4999.999', '1000000000000', '1e3', 'abc', 4999, '']) await refused(co, { max_order_value: bad }, 'max_order_value');
  });

  it('takes rto_threshold 0 to 1000 or null, refuses -1, 1001 and 1.5', async () => {
    const co = await codCompany();
    for (const v of [0, 1000, null]) expect((await putCodSettings(ctx, co.cod, { rto_threshold: v })).body.data.rto_threshold).toBe(v);
    for (const bad of [-1, 1001, 1.5, '2']) await refused(co, { rto_threshold: bad }, 'rto_threshold');
  });

  it('refuses a body over 16 KB (413) and one that is not JSON (415)', async () => {
    const co = await codCompany();
    const big = await putCodSettings(ctx, co.cod, { blocked_pincodes: Array.from({ length: 3000 }, () => '110001-110099') });
    expect(big.status).toBe(413);
    const text = await ctx.app.inject({ method: 'PUT', url: `${BASE}/cod/settings`, headers: { ...co.cod, 'content-type': 'text/plain' }, payload: 'x' });
    expect(text.statusCode).toBe(415);
  });
});
