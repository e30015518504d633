import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { Decimal, money, qty } from '../../src/lib/money.js';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { BASE, listeningUrl, orderBody, uid } from '../helpers/orders.js';

/**
 * Numeric bounds: every number a writer accepts (REST PUT /catalog/stock, POST /orders, MCP place_order, the
 * catalogue import file, the CLI's stock file and draft orders) keeps every figure derived from it inside its type, and
 * the rest is refused with 400 validation_failed naming the field. Property-based: fast-check drives values at and
 * around the bounds through each writer, then every reader (browse, search, in_stock=true, detail, MCP browse_catalog,
 * order lookup, invoice) must answer without a 500, with figures that add up. The oracle below restates the bounds of
 * docs/decisions.md; it does not call the code under test.
 */

const ctx = useTestApp({ RATE_LIMIT_MAX: '1000000' });
const RUNS = Number(process.env.BOUNDS_RUNS ?? 25);
/** Each run makes a shop, writes and reads everything back: about a second at most on this machine. */
const TIMEOUT = { timeout: 30_000 + RUNS * 2_000 };
let url: string;

beforeAll(async () => {
  url = await listeningUrl(ctx);
});

// ---- the oracle: the bounds as documented ----

const MAX_ON_HAND = '999999999.999';
const MAX_PRICE = '9999999999.99';
const MAX_QUANTITY = 1_000_000;
const MAX_STOCK_LOCATIONS = 1000;
const STOCK_TEXT = /^\d{1,9}(\.\d{1,3})?$/;
const PRICE_TEXT = /^\d{1,10}(\.\d{1,2})?$/;
const TAX_TEXT = /^\d{1,3}(\.\d{1,2})?$/;
const QUANTITY_TEXT = /^\d{1,12}(\.\d{1,3})?$/;
const MAX_AMOUNT = new Decimal('999999999999.99');

const text = (v: string | number) => String(v).trim();
const stockShapeOk = (v: string | number) => (typeof v === 'number' && v < 0 ? false : STOCK_TEXT.test(text(v)));
const wholeOk = (v: string | number, whole: boolean) => !whole || new Decimal(text(v)).isInteger();
const priceOk = (v: string | number) => (typeof v === 'number' && v < 0 ? false : PRICE_TEXT.test(text(v)));
const taxOk = (v: string | number) => TAX_TEXT.test(text(v)) && new Decimal(text(v)).lte(100);
function quantityShapeOk(v: string | number): boolean {
  if (typeof v === 'string' && !QUANTITY_TEXT.test(v.trim())) return false;
  if (typeof v === 'number' && !Number.isFinite(v)) return false;
  const d = new Decimal(v);
  return d.gt(0) && d.decimalPlaces() <= 3 && d.lte(MAX_QUANTITY);
}

// ---- values at and around the bounds ----

/** Decimal text from an integer of minor units (fast-check's bigInt favours the smallest and largest). */
const decimalText = (digits: number, places: number) =>
  fc.tuple(fc.bigInt({ min: 0n, max: 10n ** BigInt(digits) - 1n }), fc.integer({ min: 0, max: places })).map(([n, p]) => {
    const s = n.toString().padStart(p + 1, '0');
    return p ? `${s.slice(0, -p)}.${s.slice(-p)}` : s;
  });

/** Mostly within the bounds, sometimes past them: every run has both sides of each bound. */
const mostly = <T>(within: fc.Arbitrary<T>, past: fc.Arbitrary<T>) => fc.oneof({ arbitrary: within, weight: 4 }, { arbitrary: past, weight: 1 });

/** An on-hand figure for a product sold in counted units (whole) or by measure (3 places), within the bounds or past them. */
const stockWithin = (whole: boolean) =>
  whole
    ? fc.oneof(fc.constantFrom<string | number>('0', '1', '999999999', 999999999, 7), fc.bigInt({ min: 0n, max: 999_999_999n }).map(String))
    : fc.oneof(fc.constantFrom<string | number>('0.001', MAX_ON_HAND, '999999998.5', 2.5), decimalText(9, 3));
const stockPast = (whole: boolean) =>
  fc.oneof(
    fc.constantFrom<string | number>(
      '1000000000',
      '1000000000.001',
      '99999999999.999',
      '100000000000',
      '-1',
      '1e3',
      '1.2345',
      '',
      1e9,
      -3,
      ...(whole ? ['2.5', '0.001', 0.5] : []),
    ),
    decimalText(12, 4),
  );
const onHand = (whole: boolean) => mostly(stockWithin(whole), stockPast(whole));
const priceWithin = fc.oneof(
  { arbitrary: decimalText(6, 2), weight: 3 },
  { arbitrary: fc.oneof(decimalText(10, 2), fc.constantFrom('0', '0.01', MAX_PRICE, '9999999999')), weight: 1 },
);
const price = mostly(priceWithin, fc.constantFrom('10000000000', '12.345', '-1', '1e3', '99999999999.99'));
const taxWithin = fc.constantFrom('0', '5', '12', '18', '28', '100', '100.00', '0.25', '99.99');
const taxRate = mostly(taxWithin, fc.constantFrom('100.01', '101', '-5', '1000', '5.555', 'five'));
const wholeQuantity = mostly<string | number>(
  fc.oneof(fc.constantFrom(1, MAX_QUANTITY, '1000000', '999999', '2.000'), fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: MAX_QUANTITY })),
  fc.constantFrom(0, MAX_QUANTITY + 1, '1.5', 0.001, -1, '1e3', '2.0001'),
);
const measuredQuantity = mostly<string | number>(
  fc.oneof(
    fc.constantFrom('0.001', '1000000.000', '999999.999', 0.5),
    decimalText(6, 3).filter((t) => new Decimal(t).gt(0)),
  ),
  fc.constantFrom('0', '1000000.001', '12.3456', -1, '1e3'),
);
const orderPrice = fc.oneof(
  { arbitrary: decimalText(6, 2), weight: 3 },
  { arbitrary: decimalText(10, 2), weight: 1 },
  { arbitrary: fc.constant(MAX_PRICE), weight: 1 },
);

// ---- doors ----

async function mcp(headers: Record<string, string>) {
  const client = new Client({ name: 'bounds', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client;
}

async function tool(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError === true, body: JSON.parse((result.content as { text: string }[])[0].text) };
}

/** The admin CLI in-process (stderr's progress lines kept out of the test output); the first thing it printed. */
async function admin(...argv: string[]) {
  const out: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const code = await runAdmin([...argv, '--json'], (t) => out.push(t), { db: ctx.testDb.db });
    return { code, json: out[0] ? JSON.parse(out[0]) : undefined };
  } finally {
    spy.mockRestore();
  }
}

const tempFile = (name: string, content: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'bounds-')), name);
  writeFileSync(path, content);
  return path;
};

async function get(headers: Record<string, string>, path: string) {
  const res = await ctx.app.inject({ method: 'GET', url: `${BASE}${path}`, headers });
  expect(res.statusCode, `GET ${path}: ${res.body.slice(0, 300)}`).toBe(200);
  return res.json();
}

// ---- a shop and what its figures must be ----

interface Shop {
  companyId: string;
  slug: string;
  headers: Record<string, string>;
  client: Client;
}
const shops: Shop[] = [];
afterAll(async () => {
  for (const s of shops) await s.client.close();
});

const LOCATIONS = [
  { code: 'WH', name: 'Warehouse', ships_orders: true },
  { code: 'STORE', name: 'Store' },
];

/** A company made by the catalogue import (the CLI's door), with an MCP client on its key. */
async function importedShop(products: unknown[]): Promise<Shop> {
  const co = await createCompanyWithKey(ctx.services);
  const res = await admin('catalog', 'import', '--company', co.company.slug, tempFile('catalogue.json', JSON.stringify({ locations: LOCATIONS, products })));
  expect(res.code, JSON.stringify(res.json)).toBe(0);
  const s = { companyId: co.company.id, slug: co.company.slug, headers: co.headers, client: await mcp(co.headers) };
  shops.push(s);
  return s;
}

/** Each variant's stock rows at active locations, as the database holds them. */
async function stockRows(companyId: string) {
  return ctx.db.query<{ sku: string; code: string; on_hand: string; reserved: string; ships_orders: boolean }>(sql`
    SELECT v.sku, l.code, s.on_hand::text, s.reserved::text, l.ships_orders FROM stock_levels s
    JOIN variants v ON v.company_id = ${companyId} AND v.id = s.variant_id
    JOIN stock_locations l ON l.company_id = ${companyId} AND l.id = s.location_id AND l.active
    WHERE s.company_id = ${companyId} ORDER BY v.sku, l.code`);
}

const floor0 = (d: Decimal) => qty(Decimal.max(d, 0));

/**
 * Every reader of the catalogue answers 200, and its figures add up: each variant's available (ship-from) and
 * available_total (every active location) from the stock rows, each product's as the sum of its variants', browse,
 * search, in_stock=true and MCP browse_catalog alike.
 */
async function readsAddUp(s: Shop, skus: string[]) {
  const rows = await stockRows(s.companyId);
  const expected = (sku: string) => {
    const mine = rows.filter((r) => r.sku === sku);
    const sum = (k: 'on_hand' | 'reserved', only = false) => mine.filter((r) => !only || r.ships_orders).reduce((a, r) => a.plus(r[k]), new Decimal(0));
    return { available: floor0(sum('on_hand', true).minus(sum('reserved', true))), available_total: floor0(sum('on_hand').minus(sum('reserved'))) };
  };
  const browse = (await get(s.headers, '/catalog/products?limit=50')).data as ProductOut[];
  const inStock = (await get(s.headers, '/catalog/products?in_stock=true&limit=50')).data as ProductOut[];
  for (const product of browse) {
    const detail = (await get(s.headers, `/catalog/products/${product.sku}`)).data as ProductOut;
    const { data: matches } = await get(s.headers, `/catalog/products?search=${encodeURIComponent(product.sku)}`);
    expect(matches.map((p: ProductOut) => p.sku)).toContain(product.sku);
    let available = new Decimal(0);
    let total = new Decimal(0);
    for (const v of detail.variants) {
      expect({ available: v.available, available_total: v.available_total }, v.sku).toEqual(expected(v.sku));
      available = available.plus(v.available);
      total = total.plus(v.available_total);
    }
    expect({ available: detail.available, available_total: detail.available_total }).toEqual({ available: qty(available), available_total: qty(total) });
    const { images: _images, matched_variant_id: _matched, ...shown } = detail as ProductOut & { images: unknown; matched_variant_id: unknown };
    expect(product).toEqual(shown);
    expect(inStock.some((p) => p.sku === product.sku)).toBe(available.gt(0));
  }
  expect(browse.flatMap((p) => p.variants.map((v) => v.sku)).sort()).toEqual([...skus].sort());
  const viaMcp = await tool(s.client, 'browse_catalog', { limit: 50 });
  expect(viaMcp.isError, JSON.stringify(viaMcp.body).slice(0, 300)).toBe(false);
  expect(viaMcp.body.data).toEqual(browse);
}

interface ProductOut {
  sku: string;
  available: string;
  available_total: string;
  variants: { sku: string; available: string; available_total: string; selling_price: string; mrp: string }[];
  [k: string]: unknown;
}

const problemPaths = (body: { error?: { code: string; details?: { path: string }[] } }) => (body.error?.details ?? []).map((d) => d.path).sort();

// ---- the properties ----

describe('stock figures: PUT /catalog/stock and the CLI stock file', () => {
  let s: Shop;
  let stockKey: Record<string, string>;
  const VARIANTS = [
    { sku: 'SHIRT-M', whole: true },
    { sku: 'RICE-1', whole: false },
  ];
  beforeAll(async () => {
    s = await importedShop([
      { sku: 'SHIRT', name: 'Shirt', tax_rate: '12', variants: [{ sku: 'SHIRT-M', selling_price: '899.00', stock: { WH: '5' } }] },
      { sku: 'RICE', name: 'Rice', unit: 'KG', tax_rate: '5', variants: [{ sku: 'RICE-1', selling_price: '120.50', stock: { WH: '5.5' } }] },
    ]);
    stockKey = { 'x-api-key': (await ctx.services.keys.create(s.companyId, { kind: 'cli', name: 'test' }, 'inventory', ['catalogue'])).key };
  });

  it('takes every figure within the bounds, refuses the others naming each, and every reader still adds up', TIMEOUT, async () => {
    const cell = fc
      .record({ variant: fc.constantFrom(...VARIANTS), location: fc.constantFrom('WH', 'STORE') })
      .chain((c) => onHand(c.variant.whole).map((on_hand) => ({ ...c, on_hand })));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('rest', 'cli'),
        fc.uniqueArray(cell, { minLength: 1, maxLength: 4, selector: (c) => `${c.variant.sku}@${c.location}` }),
        async (door, cells) => {
          const before = await stockRows(s.companyId);
          const shapeBad = cells.flatMap((c, i) => (stockShapeOk(c.on_hand) ? [] : [i]));
          const wholeBad = cells.flatMap((c, i) => (stockShapeOk(c.on_hand) && !wholeOk(c.on_hand, c.variant.whole) ? [i] : []));
          let accepted: boolean;
          let named: string[];
          if (door === 'rest') {
            const items = cells.map((c) => ({ sku: c.variant.sku, location: c.location, on_hand: c.on_hand }));
            const res = await ctx.app.inject({ method: 'PUT', url: `${BASE}/catalog/stock`, headers: stockKey, payload: { items } });
            expect([200, 400], res.body).toContain(res.statusCode);
            accepted = res.statusCode === 200;
            named = problemPaths(res.json());
            // the contract's problems come first, then the catalogue's (the unit is known once the SKU is looked up)
            if (!accepted) expect(named).toEqual((shapeBad.length ? shapeBad : wholeBad).map((i) => `items[${i}].on_hand`).sort());
          } else {
            const csv = ['SKU,Location,On Hand', ...cells.map((c) => `${c.variant.sku},${c.location},${String(c.on_hand)}`)].join('\n');
            const res = await admin('catalog', 'stock', '--company', s.slug, tempFile('stock.csv', csv));
            accepted = res.code === 0;
            named = accepted ? [] : (res.json.problems as { path: string }[]).map((p) => p.path).sort();
            // the file is reported whole, in one answer
            if (!accepted) expect(named).toEqual([...shapeBad, ...wholeBad].map((i) => `line ${i + 2}, column on_hand`).sort());
          }
          await readsAddUp(s, ['SHIRT-M', 'RICE-1']);
          expect(accepted).toBe(shapeBad.length === 0 && wholeBad.length === 0);
          const after = await stockRows(s.companyId);
          if (!accepted) expect(after).toEqual(before);
          else
            for (const c of cells) {
              const row = after.find((r) => r.sku === c.variant.sku && r.code === c.location);
              expect(row?.on_hand).toBe(qty(text(c.on_hand)));
            }
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('orders: POST /orders and MCP place_order, looked up and invoiced', () => {
  it('prices and quantities at their bounds make orders whose totals fit, or a 400 naming the quantity; never a 500', TIMEOUT, async () => {
    const line = fc.record({ price: orderPrice, tax: fc.constantFrom('0', '5', '12', '18', '28', '0.10', '99.99', '100') });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          door: fc.constantFrom('rest', 'mcp'),
          shirt: line,
          rice: line,
          shirtQty: wholeQuantity,
          riceQty: measuredQuantity,
          order: fc.constantFrom('shirt-first', 'rice-first', 'shirt-only'),
          payment: fc.constantFrom('cod', 'prepaid'),
        }),
        async ({ door, shirt, rice, shirtQty, riceQty, order, payment }) => {
          const s = await importedShop([
            { sku: 'SHIRT', name: 'Shirt', tax_rate: shirt.tax, variants: [{ sku: 'SHIRT-M', selling_price: shirt.price, stock: { WH: '999999999' } }] },
            { sku: 'RICE', name: 'Rice', unit: 'KG', tax_rate: rice.tax, variants: [{ sku: 'RICE-1', selling_price: rice.price, stock: { WH: MAX_ON_HAND } }] },
          ]);
          await ctx.services.taxProfiles.set(
            s.companyId,
            { kind: 'cli', name: 'test' },
            {
              legal_name: 'Bounds Traders',
              gstin: '29AAGCB7383J1Z4',
              address_line1: '1 MG Road',
              city: 'Bengaluru',
              state: 'Karnataka',
              pincode: '560001',
            },
          );
          const lines = [
            { product_id: 'SHIRT-M', quantity: shirtQty, price: shirt.price, whole: true },
            { product_id: 'RICE-1', quantity: riceQty, price: rice.price, whole: false },
          ];
          const items = order === 'shirt-first' ? lines : order === 'rice-first' ? [...lines].reverse() : [lines[0]];
          const body = orderBody({ items: items.map(({ product_id, quantity }) => ({ product_id, quantity })), payment });

          // what the bounds say should happen
          const shapeBad = items.flatMap((l, i) => (quantityShapeOk(l.quantity) ? [] : [`items[${i}].quantity`]));
          const wholeBad = items.flatMap((l, i) => (quantityShapeOk(l.quantity) && !wholeOk(l.quantity, l.whole) ? [`items[${i}].quantity`] : []));
          let amount = new Decimal(0);
          let over: string | undefined;
          for (const [i, l] of items.entries()) {
            if (!quantityShapeOk(l.quantity)) break;
            amount = amount.plus(new Decimal(l.price).times(l.quantity).toDecimalPlaces(2, Decimal.ROUND_HALF_UP));
            if (amount.gt(MAX_AMOUNT) && !over) over = `items[${i}].quantity`;
          }
          const expectedPaths = shapeBad.length ? shapeBad : wholeBad.length ? wholeBad : over ? [over] : [];

          let status: number;
          let answer: {
            data?: { order_number: string; amount: string; items: { line_total: string }[] };
            error?: { code: string; details?: { path: string }[] };
          };
          if (door === 'rest') {
            const res = await ctx.app.inject({ method: 'POST', url: `${BASE}/orders`, headers: s.headers, payload: body });
            status = res.statusCode;
            answer = res.json();
          } else {
            const res = await tool(s.client, 'place_order', body);
            answer = res.body;
            status = res.isError ? (answer.error?.code === 'validation_failed' ? 400 : 0) : 201;
          }
          await readsAddUp(s, ['SHIRT-M', 'RICE-1']);
          if (expectedPaths.length) {
            expect(status, JSON.stringify(answer)).toBe(400);
            expect(answer.error?.code).toBe('validation_failed');
            expect(problemPaths(answer)).toEqual([...expectedPaths].sort());
            const [{ n }] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM orders WHERE company_id = ${s.companyId}`);
            expect(n).toBe(0);
            return;
          }
          expect(status, JSON.stringify(answer)).toBe(201);
          const placed = answer.data!;
          expect(placed.amount).toBe(money(amount));
          expect(placed.items.reduce((a, l) => a.plus(l.line_total), new Decimal(0)).toFixed(2)).toBe(placed.amount);

          // looked up, invoiced (the CLI), looked up again: the invoice is the order's amount, its taxes add up, its PDF is drawn
          const issued = await admin('invoice', 'issue', placed.order_number, '--company', s.slug);
          expect(issued.code, JSON.stringify(issued.json)).toBe(0);
          const looked = (await get(s.headers, `/orders/${placed.order_number}`)).data;
          expect(looked).toMatchObject({ amount: placed.amount, items: placed.items });
          expect(looked.invoice).toMatchObject({ total: placed.amount, amount_due: payment === 'cod' ? placed.amount : '0.00' });
          const viaMcp = await tool(s.client, 'get_order', { reference: placed.order_number });
          expect(viaMcp.isError).toBe(false);
          expect(viaMcp.body.data.invoice.total).toBe(placed.amount);
          const [{ document }] = await ctx.db.query<{ document: { totals: Record<string, string>; lines: { gross: string }[] } }>(
            sql`SELECT document FROM invoices WHERE company_id = ${s.companyId}`,
          );
          const t = document.totals;
          expect(new Decimal(t.taxable).plus(t.cgst).plus(t.sgst).plus(t.igst).toFixed(2)).toBe(placed.amount);
          expect(t.total).toBe(placed.amount);
          const pdfUrl = new URL(looked.invoice.url);
          const pdf = await ctx.app.inject({ url: `${pdfUrl.pathname}${pdfUrl.search}` });
          expect(pdf.statusCode).toBe(200);
          expect(pdf.headers['content-type']).toBe('application/pdf');
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('the catalogue import file: prices, mrp, stock and tax rates', () => {
  it('imports every figure within the bounds, refuses the file naming each other one, and the catalogue reads back', TIMEOUT, async () => {
    // mrp: none (the price), the price itself, or a price of its own (sometimes below the selling price); half the files
    // hold only figures within the bounds, so both answers are tried
    const variant = (whole: boolean, within: boolean) =>
      fc
        .record({
          price: within ? priceWithin : price,
          mrp: within ? fc.constantFrom(undefined, 'same') : fc.oneof(fc.constant(undefined), fc.constant('same'), price),
          wh: within ? stockWithin(whole) : onHand(whole),
          store: fc.option(within ? stockWithin(whole) : onHand(whole), { nil: undefined }),
        })
        .map((v) => ({ ...v, mrp: v.mrp === 'same' ? v.price : v.mrp }));
    const file = (within: boolean) =>
      fc.record({ shirt: variant(true, within), rice: variant(false, within), shirtTax: within ? taxWithin : taxRate, riceTax: within ? taxWithin : taxRate });
    await fc.assert(
      fc.asyncProperty(fc.oneof(file(true), file(false)), async ({ shirt, rice, shirtTax, riceTax }) => {
        const co = await createCompanyWithKey(ctx.services);
        const entry = (sku: string, unit: string, tax: string, v: typeof shirt) => ({
          sku,
          name: sku,
          unit,
          tax_rate: tax,
          variants: [{ sku: `${sku}-1`, selling_price: v.price, mrp: v.mrp, stock: { WH: v.wh, ...(v.store === undefined ? {} : { STORE: v.store }) } }],
        });
        const products = [entry('SHIRT', 'PCS', shirtTax, shirt), entry('RICE', 'KG', riceTax, rice)];
        // each product's problems: its own fields first (the file's shape), then what needs the whole file (mrp, units)
        const expected = products.flatMap((p, i) => {
          const v = p.variants[0];
          const at = `products[${i}]`;
          const whole = p.unit === 'PCS';
          const shape = [
            ...(taxOk(p.tax_rate) ? [] : [`${at}.tax_rate`]),
            ...(priceOk(v.selling_price) ? [] : [`${at}.variants[0].selling_price`]),
            ...(v.mrp === undefined || priceOk(v.mrp) ? [] : [`${at}.variants[0].mrp`]),
            ...Object.entries(v.stock).flatMap(([code, q]) => (stockShapeOk(q) ? [] : [`${at}.variants[0].stock.${code}`])),
          ];
          if (shape.length) return shape;
          return [
            ...(v.mrp !== undefined && new Decimal(v.mrp).lt(v.selling_price) ? [`${at}.variants[0].mrp`] : []),
            ...Object.entries(v.stock).flatMap(([code, q]) => (wholeOk(q, whole) ? [] : [`${at}.variants[0].stock.${code}`])),
          ];
        });
        const res = await admin(
          'catalog',
          'import',
          '--company',
          co.company.slug,
          tempFile('catalogue.json', JSON.stringify({ locations: LOCATIONS, products })),
        );
        if (expected.length) {
          expect(res.code, JSON.stringify(res.json)).not.toBe(0);
          expect((res.json.problems as { path: string }[]).map((p) => p.path).sort()).toEqual([...expected].sort());
          const [{ n }] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM products WHERE company_id = ${co.company.id}`);
          expect(n).toBe(0);
          return;
        }
        expect(res.code, JSON.stringify(res.json)).toBe(0);
        const s = { companyId: co.company.id, slug: co.company.slug, headers: co.headers, client: await mcp(co.headers) };
        shops.push(s);
        await readsAddUp(s, ['SHIRT-1', 'RICE-1']);
        for (const p of products) {
          const detail = (await get(s.headers, `/catalog/products/${p.sku}`)).data as ProductOut;
          const v = p.variants[0];
          expect(detail.tax_rate).toBe(money(text(p.tax_rate)));
          expect(detail.variants[0]).toMatchObject({ selling_price: money(text(v.selling_price)), mrp: money(text(v.mrp ?? v.selling_price)) });
        }
      }),
      { numRuns: RUNS },
    );
  });

  it(`holds the sum of ${MAX_STOCK_LOCATIONS} locations at the largest figure, and refuses location ${MAX_STOCK_LOCATIONS + 1}`, async () => {
    const co = await createCompanyWithKey(ctx.services);
    const codes = Array.from({ length: MAX_STOCK_LOCATIONS }, (_, i) => `LOC-${i}`);
    const file = (locations: string[]) => ({
      locations: locations.map((code, i) => ({ code, name: code, ships_orders: i === 0 })),
      products: [
        {
          sku: 'OIL',
          name: 'Oil',
          unit: 'L',
          tax_rate: '5',
          variants: [{ sku: 'OIL-1', selling_price: '180.00', stock: Object.fromEntries(locations.map((c) => [c, MAX_ON_HAND])) }],
        },
      ],
    });
    const res = await admin('catalog', 'import', '--company', co.company.slug, tempFile('catalogue.json', JSON.stringify(file(codes))));
    expect(res.code, JSON.stringify(res.json)).toBe(0);
    const s = { companyId: co.company.id, slug: co.company.slug, headers: co.headers, client: await mcp(co.headers) };
    shops.push(s);
    await readsAddUp(s, ['OIL-1']);
    const detail = (await get(s.headers, '/catalog/products/OIL-1')).data as ProductOut;
    expect(detail).toMatchObject({ available: MAX_ON_HAND, available_total: qty(new Decimal(MAX_ON_HAND).times(MAX_STOCK_LOCATIONS)) });

    const more = await admin(
      'catalog',
      'import',
      '--company',
      co.company.slug,
      tempFile('catalogue.json', JSON.stringify({ locations: [{ code: `LOC-${uid()}`, name: 'one more' }] })),
    );
    expect(more.code).not.toBe(0);
    expect(more.json.problems).toEqual([
      { path: 'locations', message: `a company has at most ${MAX_STOCK_LOCATIONS} stock locations; with this file it would have ${MAX_STOCK_LOCATIONS + 1}` },
    ]);
  });
});
