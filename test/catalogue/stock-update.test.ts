import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { MAX_STOCK_ROWS } from '../../src/contract/stock.js';
import { auditCompany } from '../helpers/audit.js';
import { useTestApp } from '../helpers/app.js';
import { BASE, listeningUrl, orderBody, shop, uid } from '../helpers/orders.js';

/**
 * Setting on-hand stock in bulk: over REST for keys with the `catalogue` permission and from a CSV with the
 * admin CLI; every row checked first with its place named, one transaction, reservations never touched, and an order
 * reserving the same row at the same moment loses nothing.
 */

const ctx = useTestApp();

const catalogue = () => [
  {
    sku: 'KURTA',
    name: 'Kurta',
    variants: [
      { sku: 'KURTA-M', barcode: '8901234500011', selling_price: '899.00', stock: { WH: '10', STORE: '3' } },
      { sku: 'KURTA-L', barcode: '8901234500028', selling_price: '899.00', stock: '4' },
    ],
  },
  // sold by the metre: its stock takes decimals, where the kurta's (pieces) takes whole numbers
  { sku: 'DUPATTA', name: 'Dupatta fabric', unit: 'M', variants: [{ sku: 'DUPATTA-1', selling_price: '299.00' }] },
];

async function stockShop() {
  const s = await shop(ctx, catalogue());
  const { key } = await ctx.services.keys.create(s.companyId, { kind: 'cli', name: 'test' }, 'inventory sync', ['catalogue']);
  return { ...s, stockKey: key };
}

const put = (key: string, items: unknown) => ctx.app.inject({ method: 'PUT', url: `${BASE}/catalog/stock`, headers: { 'x-api-key': key }, payload: { items } });

async function levels(companyId: string) {
  const rows = await ctx.db.query<{ sku: string; code: string; on_hand: string; reserved: string }>(sql`
    SELECT v.sku, l.code, s.on_hand::text, s.reserved::text FROM stock_levels s
    JOIN variants v ON v.company_id = ${companyId} AND v.id = s.variant_id
    JOIN stock_locations l ON l.company_id = ${companyId} AND l.id = s.location_id
    WHERE s.company_id = ${companyId} ORDER BY v.sku, l.code`);
  return Object.fromEntries(rows.map((r) => [`${r.sku}@${r.code}`, `${r.on_hand}/${r.reserved}`]));
}

describe('PUT /catalog/stock', () => {
  it('needs the catalogue permission: a commerce key gets 403 and nothing changes', async () => {
    const s = await stockShop();
    const before = await levels(s.companyId);
    const res = await put(s.key, [{ sku: 'KURTA-M', on_hand: '50' }]);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toContain('"catalogue" permission');
    expect(await levels(s.companyId)).toEqual(before);
  });

  it('sets on-hand by SKU or barcode, at the shipping location or a named one, creating a missing level; counts what changed', async () => {
    const s = await stockShop();
    const res = await put(s.stockKey, [
      { sku: 'KURTA-M', on_hand: '25' },
      { barcode: '8901234500028', on_hand: 4 }, // unchanged (a JSON number is taken by its text)
      { sku: 'KURTA-M', location: 'STORE', on_hand: '0' },
      { sku: 'DUPATTA-1', location: 'STORE', on_hand: '2.5' }, // no level there yet
    ]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ data: { rows: 4, updated: 3, unchanged: 1, short: [] } });
    expect(await levels(s.companyId)).toEqual({
      'DUPATTA-1@STORE': '2.500/0.000',
      'DUPATTA-1@WH': '0.000/0.000',
      'KURTA-L@WH': '4.000/0.000',
      'KURTA-M@STORE': '0.000/0.000',
      'KURTA-M@WH': '25.000/0.000',
    });
    // the catalogue shows it at once
    const detail = await ctx.app.inject({ method: 'GET', url: `${BASE}/catalog/products/KURTA-M`, headers: { 'x-api-key': s.key } });
    expect(detail.json().data.variants.find((v: { sku: string }) => v.sku === 'KURTA-M').available).toBe('25.000');
  });

  it('never touches reservations: on-hand below what open orders reserved is set and reported as short', async () => {
    const s = await stockShop();
    const placed = await ctx.app.inject({
      method: 'POST',
      url: `${BASE}/orders`,
      headers: { 'x-api-key': s.key },
      payload: orderBody({ items: [{ product_id: 'KURTA-M', quantity: 6 }] }),
    });
    expect(placed.statusCode, placed.body).toBe(201);
    const res = await put(s.stockKey, [{ sku: 'KURTA-M', on_hand: '4' }]);
    expect(res.json().data).toEqual({ rows: 1, updated: 1, unchanged: 0, short: [{ sku: 'KURTA-M', location: 'WH', on_hand: '4.000', reserved: '6.000' }] });
    expect((await levels(s.companyId))['KURTA-M@WH']).toBe('4.000/6.000');
    // nothing more can be sold there
    const more = await ctx.app.inject({
      method: 'POST',
      url: `${BASE}/orders`,
      headers: { 'x-api-key': s.key },
      payload: orderBody({ items: [{ product_id: 'KURTA-M', quantity: 1 }] }),
    });
    expect(more.statusCode).toBe(409);
  });

  it('checks every row first: each problem names its item and field, and nothing at all is written', async () => {
    const s = await stockShop();
    const before = await levels(s.companyId);
    const res = await put(s.stockKey, [
      { sku: 'KURTA-M', on_hand: '30' }, // fine, but the update is all or nothing
      { sku: 'NOPE', on_hand: '1' },
      { barcode: '0000000000000', on_hand: '1' },
      { sku: 'KURTA-L', location: 'MOON', on_hand: '1' },
      { sku: 'KURTA-M', on_hand: '31' }, // the same variant and location twice
    ]);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('validation_failed');
    expect(res.json().error.details).toEqual([
      { path: 'items[1].sku', message: 'no variant with this SKU' },
      { path: 'items[2].barcode', message: 'no variant with this barcode' },
      { path: 'items[3].location', message: 'no stock location with code "MOON"' },
      { path: 'items[4].sku', message: 'the same variant and location as items[0].sku; give each once' },
    ]);
    expect(await levels(s.companyId)).toEqual(before);
  });

  it('refuses bad shapes with the field named: missing or both identifiers, negative, more than 3 places, too large, empty', async () => {
    const s = await stockShop();
    const cases: [unknown, string, RegExp][] = [
      [[{ on_hand: '1' }], 'items[0].sku', /sku or barcode/],
      [[{ sku: 'KURTA-M', barcode: '8901234500011', on_hand: '1' }], 'items[0].barcode', /not both/],
      [[{ sku: 'KURTA-M', on_hand: '-1' }], 'items[0].on_hand', /non-negative/],
      [[{ sku: 'KURTA-M', on_hand: '1.2345' }], 'items[0].on_hand', /3 places/],
      [[{ sku: 'KURTA-M', on_hand: '100000000000' }], 'items[0].on_hand', /non-negative/],
      [[{ sku: 'KURTA-M', on_hand: '1000000000' }], 'items[0].on_hand', /at most 999999999\.999/],
      [[{ sku: 'KURTA-M', on_hand: 1e9 }], 'items[0].on_hand', /at most 999999999\.999/],
      [[{ sku: 'KURTA-M', on_hand: '2.5' }], 'items[0].on_hand', /whole number of PCS: KURTA-M/],
      [[{ sku: 'KURTA-M' }], 'items[0].on_hand', /./],
      [[], 'items', /at least one/],
      [[{ sku: '', on_hand: '1' }], 'items[0].sku', /empty/],
    ];
    for (const [items, path, message] of cases) {
      const res = await put(s.stockKey, items);
      expect(res.statusCode, JSON.stringify(items)).toBe(400);
      const detail = (res.json().error.details as { path: string; message: string }[]).find((d) => d.path === path);
      expect(detail, `${JSON.stringify(items)}: ${res.body}`).toBeDefined();
      expect(detail!.message).toMatch(message);
    }
    // the bound is taken (docs/decisions.md, numeric bounds)
    const atBound = await put(s.stockKey, [
      { sku: 'KURTA-M', on_hand: '999999999' },
      { sku: 'DUPATTA-1', on_hand: '999999999.999' },
    ]);
    expect(atBound.statusCode, atBound.body).toBe(200);
  });

  it(`takes ${MAX_STOCK_ROWS} rows in one request and refuses ${MAX_STOCK_ROWS + 1}`, async () => {
    const s = await stockShop();
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ sku: i % 2 ? 'KURTA-M' : 'KURTA-L', location: i % 4 < 2 ? 'WH' : 'STORE', on_hand: '1' }));
    const over = await put(s.stockKey, rows(MAX_STOCK_ROWS + 1));
    expect(over.statusCode).toBe(400);
    expect(over.json().error.details[0]).toMatchObject({ path: 'items', message: expect.stringContaining(`at most ${MAX_STOCK_ROWS}`) });
    // 5,000 rows of four distinct levels repeat: refused as duplicates, the list capped at 100 problems
    const dup = await put(s.stockKey, rows(MAX_STOCK_ROWS));
    expect(dup.statusCode).toBe(400);
    expect(dup.json().error.details).toHaveLength(100);
    expect(dup.json().error.message).toMatch(/^4996 problems \(the first 100 shown\), nothing was changed/);
  });

  it('an order reserving the same rows at the same moment loses nothing, and neither does the update (truly parallel)', async () => {
    const s = await stockShop();
    await put(s.stockKey, [
      { sku: 'KURTA-M', on_hand: '1000' },
      { sku: 'KURTA-L', on_hand: '500' },
    ]);
    const url = await listeningUrl(ctx);
    const orders = Array.from({ length: 30 }, () =>
      fetch(`${url}/orders`, {
        method: 'POST',
        headers: { 'x-api-key': s.key, 'content-type': 'application/json' },
        body: JSON.stringify(
          orderBody({
            external_reference: `p-${uid()}`,
            items: [
              { product_id: 'KURTA-M', quantity: 2 },
              { product_id: 'KURTA-L', quantity: 1 },
            ],
          }),
        ),
      }).then((r) => r.status),
    );
    const updates = Array.from({ length: 10 }, (_, i) =>
      fetch(`${url}/catalog/stock`, {
        method: 'PUT',
        headers: { 'x-api-key': s.stockKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          items: [
            { sku: 'KURTA-L', on_hand: '500' },
            { sku: 'KURTA-M', on_hand: String(900 + (i % 2)) },
          ],
        }),
      }).then((r) => r.status),
    );
    const [orderStatuses, updateStatuses] = await Promise.all([Promise.all(orders), Promise.all(updates)]);
    expect(orderStatuses).toEqual(Array(30).fill(201));
    expect(updateStatuses).toEqual(Array(10).fill(200));
    const after = await levels(s.companyId);
    expect(after['KURTA-M@WH']).toMatch(/^90[01]\.000\/60\.000$/);
    expect(after['KURTA-L@WH']).toBe('500.000/30.000');
    const audit = await auditCompany(ctx.db, s.companyId);
    expect(audit.stock).toEqual([]);
    expect(audit.partial).toEqual([]);
  });
});

describe('admin CLI: catalog stock <file.csv>', () => {
  const file = (text: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'stock-')), 'stock.csv');
    writeFileSync(path, text);
    return path;
  };
  async function admin(...argv: string[]) {
    const lines: string[] = [];
    const code = await runAdmin(argv, (t) => lines.push(t), { db: ctx.testDb.db });
    // with --json a refusal prints its problems, then the error line
    return { code, out: lines[0] ?? '' };
  }

  it('reads a spreadsheet export (byte-order mark, Windows line ends, quoted fields, blank lines, any column order)', async () => {
    const s = await stockShop();
    const path = file('\ufeffLocation,SKU,On_Hand\r\nWH,"KURTA-M",12\r\n\r\nSTORE,DUPATTA-1,"1.5"\r\n,DUPATTA-1,7\r\n');
    const res = await admin('catalog', 'stock', '--company', s.company.slug, path, '--json');
    expect(res.code, res.out).toBe(0);
    expect(JSON.parse(res.out)).toEqual({ rows: 3, updated: 3, unchanged: 0, short: [] });
    const after = await levels(s.companyId);
    expect(after).toMatchObject({ 'KURTA-M@WH': '12.000/0.000', 'DUPATTA-1@STORE': '1.500/0.000', 'DUPATTA-1@WH': '7.000/0.000' });
    // again: nothing changes
    expect(JSON.parse((await admin('catalog', 'stock', '--company', s.company.slug, path, '--json')).out)).toMatchObject({ updated: 0, unchanged: 3 });
  });

  it('names the line and column of every problem, and changes nothing', async () => {
    const s = await stockShop();
    const before = await levels(s.companyId);
    const bad = await admin('catalog', 'stock', '--company', s.company.slug, file('sku,on_hand\nKURTA-M,abc\nKURTA-L,-2\nKURTA-M,5\n'), '--json');
    expect(bad.code).not.toBe(0);
    expect(JSON.parse(bad.out).problems).toEqual([
      { path: 'line 2, column on_hand', message: 'must be a non-negative decimal with up to 3 places, at most 999999999.999' },
      { path: 'line 3, column on_hand', message: 'must be a non-negative decimal with up to 3 places, at most 999999999.999' },
    ]);
    const unknown = await admin('catalog', 'stock', '--company', s.company.slug, file('sku,on_hand\nKURTA-M,5\nNOPE,1\n'), '--json');
    expect(JSON.parse(unknown.out).problems).toEqual([{ path: 'line 3, column sku', message: 'no variant with this SKU' }]);
    const header = await admin('catalog', 'stock', '--company', s.company.slug, file('sku,qty\nKURTA-M,5\n'), '--json');
    expect(JSON.parse(header.out).problems[0]).toMatchObject({ path: 'line 1', message: expect.stringContaining('unknown: qty') });
    expect(await levels(s.companyId)).toEqual(before);
  });
});
