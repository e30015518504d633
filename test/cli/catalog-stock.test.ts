import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { useTestApp } from '../helpers/app.js';
import { shop } from '../helpers/orders.js';

/**
 * `catalog stock <file.csv>` as a seller meets it: a header written the way spreadsheets write it, every
 * problem of the file in one report, and "applying" said only once the whole file has been checked.
 */

const ctx = useTestApp();

const stockShop = () =>
  shop(ctx, [
    {
      sku: 'KURTA',
      name: 'Kurta',
      variants: [
        { sku: 'KURTA-M', selling_price: '899.00', stock: '10' },
        { sku: 'KURTA-L', selling_price: '899.00' },
      ],
    },
    { sku: 'SILK', name: 'Silk by the metre', unit: 'M', variants: [{ sku: 'SILK-RED', selling_price: '1200.00', stock: '30.5' }] },
  ]);

const file = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'stock-')), 'stock.csv');
  writeFileSync(path, text);
  return path;
};

/** Runs the command: its first output (with --json a refusal prints its problems, then the error), and everything on stderr. */
async function admin(...argv: string[]) {
  const out: string[] = [];
  const stderr: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr.push(String(chunk));
    return true;
  });
  try {
    const code = await runAdmin(argv, (t) => out.push(t), { db: ctx.testDb.db });
    return { code, out: out[0] ?? '', stderr: stderr.join('') };
  } finally {
    spy.mockRestore();
  }
}

async function levels(companyId: string) {
  const rows = await ctx.db.query<{ sku: string; code: string; on_hand: string }>(sql`
    SELECT v.sku, l.code, s.on_hand::text FROM stock_levels s
    JOIN variants v ON v.company_id = ${companyId} AND v.id = s.variant_id
    JOIN stock_locations l ON l.company_id = ${companyId} AND l.id = s.location_id
    WHERE s.company_id = ${companyId} ORDER BY v.sku, l.code`);
  return Object.fromEntries(rows.map((r) => [`${r.sku}@${r.code}`, r.on_hand]));
}

afterEach(() => vi.restoreAllMocks());

describe('admin CLI: catalog stock', () => {
  it('takes the on_hand column however a spreadsheet heads it: any case, spaces or underscores', async () => {
    const s = await stockShop();
    const headers = ['on_hand', 'On Hand', 'on hand', 'ON_HAND', ' On  Hand '];
    for (const [i, header] of headers.entries()) {
      const res = await admin('catalog', 'stock', '--company', s.company.slug, file(`SKU,${header},Location\nKURTA-M,${i + 1},WH\n`), '--json');
      expect(res.code, `${header}: ${res.out}${res.stderr}`).toBe(0);
      expect((await levels(s.companyId))['KURTA-M@WH']).toBe(`${i + 1}.000`);
    }
  });

  it('reports every problem of the file in one answer, each at its line and column, says nothing of applying, and changes nothing', async () => {
    const s = await stockShop();
    const before = await levels(s.companyId);
    const csv = [
      'sku,location,on_hand',
      'KURTA-M,WH,abc', // 2: not a number
      'NOPE,WH,1', // 3: unknown SKU
      'KURTA-L,WH,2.5', // 4: half a kurta
      'SILK-RED,MARS,1', // 5: unknown location
      'SILK-RED,WH,1000000000', // 6: past the bound
      'SILK-RED,STORE,12.25', // 7: fine (sold by the metre)
      'KURTA-L,STORE,3', // 8: fine
      'KURTA-L,STORE,4', // 9: the same level as line 8
      ',WH,1', // 10: no identifier
    ].join('\n');
    const res = await admin('catalog', 'stock', '--company', s.company.slug, file(csv), '--json');
    expect(res.code).not.toBe(0);
    expect(JSON.parse(res.out).problems).toEqual([
      { path: 'line 2, column on_hand', message: 'must be a non-negative decimal with up to 3 places, at most 999999999.999' },
      { path: 'line 3, column sku', message: 'no variant with this SKU' },
      { path: 'line 4, column on_hand', message: 'must be a whole number of PCS: KURTA-L is sold in whole units' },
      { path: 'line 5, column location', message: 'no stock location with code "MARS"' },
      { path: 'line 6, column on_hand', message: 'must be a non-negative decimal with up to 3 places, at most 999999999.999' },
      { path: 'line 9, column sku', message: 'the same variant and location as line 8, column sku; give each once' },
      { path: 'line 10, column sku', message: 'give sku or barcode' },
    ]);
    expect(JSON.parse(res.out).error).toMatch(/^7 problems, nothing was changed; first: line 2, column on_hand/);
    expect(res.stderr).not.toMatch(/applying/);
    expect(await levels(s.companyId)).toEqual(before);

    // without --json: the same list, one problem a line, and no word of applying either
    const plain = await admin('catalog', 'stock', '--company', s.company.slug, file(csv));
    expect(plain.code).not.toBe(0);
    expect(plain.stderr.match(/^ {2}line \d+, column \w+: /gm)).toHaveLength(7);
    expect(plain.stderr).not.toMatch(/applying/);
  });

  it('says it is applying once every row has passed, then applies', async () => {
    const s = await stockShop();
    const res = await admin('catalog', 'stock', '--company', s.company.slug, file('sku,on_hand\nKURTA-M,12\nSILK-RED,7.25\n'));
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr.match(/checked 2 rows of .*stock\.csv; applying in one transaction/g)).toHaveLength(1);
    expect(res.out).toMatch(/2 rows, 2 stock levels changed/);
    expect(await levels(s.companyId)).toMatchObject({ 'KURTA-M@WH': '12.000', 'SILK-RED@WH': '7.250' });
  });
});
