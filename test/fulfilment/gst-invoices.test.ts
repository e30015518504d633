import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { Decimal } from '../../src/lib/money.js';
import { useTestApp } from '../helpers/app.js';
import { addProduct } from '../helpers/catalogue-fixtures.js';
import { get, listeningUrl, orderBody, post, shop, uid } from '../helpers/orders.js';

const ctx = useTestApp();
beforeAll(() => {
  if (ctx.testDb.url) process.env.DATABASE_URL = ctx.testDb.url;
});

/** Karnataka seller (a published GSTIN with a valid check character). */
const KARNATAKA = { legal_name: 'Sharma Handlooms Private Limited', trade_name: 'Sharma Handlooms', gstin: '29AAGCB7383J1Z4' };
const SELLER_ADDRESS = { address_line1: '12, 4th Cross, Indiranagar', address_line2: null, city: 'Bengaluru', state: 'Karnataka', pincode: '560038' };
const CHENNAI = { line1: 'Flat 3B, Lotus Apartments', city: 'Chennai', pincode: '600001' };

/** A shop selling a kurta (HSN 6205, 12%) and tea by the kilo (HSN 0902, 5%), with a tax profile unless told. */
async function gstShop(profile: Record<string, unknown> | null = { ...KARNATAKA, ...SELLER_ADDRESS }) {
  const s = await shop(ctx, [
    {
      sku: 'KURTA',
      name: 'Cotton Kurta',
      hsn_code: '6205',
      tax_rate: '12',
      variants: [{ sku: 'KURTA-M', name: 'Indigo / M', selling_price: '1299.00', stock: '500' }],
    },
    { sku: 'CHAI', name: 'Masala Chai', unit: 'KG', hsn_code: '0902', tax_rate: '5', variants: [{ sku: 'CHAI-LOOSE', selling_price: '499.99', stock: '500' }] },
  ]);
  if (profile) await ctx.services.taxProfiles.set(s.companyId, { kind: 'cli', name: 'test' }, profile);
  return s;
}

function pdfText(pdf: Buffer): string {
  const out = spawnSync('pdftotext', ['-layout', '-enc', 'UTF-8', '-', '-'], { input: pdf });
  if (out.status !== 0) throw new Error(`pdftotext failed: ${out.stderr.toString()}`);
  return out.stdout.toString('utf8');
}

const local = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

async function fetchPdf(url: string) {
  const res = await ctx.app.inject({ url: local(url) });
  return { status: res.statusCode, type: res.headers['content-type'], pdf: res.rawPayload, json: () => res.json() };
}

/** Places an order, ships it (which issues the invoice) and returns the lookup. */
async function shippedOrder(s: Awaited<ReturnType<typeof gstShop>>, body: Record<string, unknown>) {
  const placed = await post(ctx, s.headers, orderBody(body));
  expect(placed.status).toBe(201);
  await ctx.services.fulfilment.move(s.companyId, placed.body.data.order_number, 'shipped');
  const looked = await get(ctx, s.headers, `/orders/${placed.body.data.order_number}`);
  expect(looked.status).toBe(200);
  return looked.body.data;
}

const ITEMS = [
  { product_id: 'KURTA-M', quantity: 2 },
  { product_id: 'CHAI-LOOSE', quantity: '1.5' },
];

describe('tax profile', () => {
  it('refuses a GSTIN with a wrong check character, another state or a bad shape, naming the field; nothing is written', async () => {
    const s = await gstShop(null);
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ gstin: '29AAGCB7383J1Z5' }, 'gstin', /check character/],
      [{ gstin: '27AAPFU0939F1ZV' }, 'gstin', /state code 27.*Karnataka \(29\)/],
      [{ gstin: '29AAGC7383J1Z4' }, 'gstin', /15 characters/],
      [{ invoice_prefix: 'INVC' }, 'invoice_prefix', /1-3 letters/],
      [{ state: 'Gondwana' }, 'state', /Indian state/],
      [{ pincode: '600001' }, 'pincode', /Tamil Nadu, not Karnataka/],
    ];
    for (const [patch, path, message] of cases) {
      const err = await ctx.services.taxProfiles
        .set(s.companyId, { kind: 'cli', name: 'test' }, { ...KARNATAKA, ...SELLER_ADDRESS, ...patch })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ kind: 'validation_failed', details: [{ path, message: expect.stringMatching(message) }] });
    }
    expect(await ctx.services.taxProfiles.get(s.companyId)).toBeUndefined();
    const missing = await ctx.services.taxProfiles.set(s.companyId, { kind: 'cli', name: 'test' }, { gstin: KARNATAKA.gstin }).catch((e: unknown) => e);
    expect((missing as { details: { path: string }[] }).details.map((d) => d.path)).toEqual(['legal_name', 'address_line1', 'city', 'state', 'pincode']);
  });

  it('is set and shown by the admin CLI; --gstin none makes an unregistered supplier', async () => {
    const s = await gstShop(null);
    const lines: string[] = [];
    const run = async (...argv: string[]) => {
      lines.length = 0;
      const code = await runAdmin([...argv, '--json'], (t) => lines.push(t), { db: ctx.testDb.db });
      return { code, json: JSON.parse(lines.join('\n')) as Record<string, unknown> | null };
    };
    const args = ['--legal-name', 'Chai Point LLP', '--address1', '1 Anna Salai', '--city', 'Chennai', '--state', 'tamilnadu', '--pincode', '600002'];
    const set = await run('company', 'tax-profile', s.company.slug, ...args, '--gstin', '33aapfu0939f1z5', '--prefix', 'cp');
    expect(set.code).toBe(1);
    expect(lines.join('\n')).toMatch(/check character/);
    const ok = await run('company', 'tax-profile', s.company.slug, ...args, '--gstin', '27AAPFU0939F1ZV'.replace('27', '33').slice(0, 14) + 'X');
    expect(ok.code).toBe(1);
    const good = await run('company', 'tax-profile', s.company.slug, ...args, '--prefix', 'cp');
    expect(good).toMatchObject({ code: 0, json: { legal_name: 'Chai Point LLP', state: 'Tamil Nadu', gstin: null, invoice_prefix: 'CP' } });
    expect((await run('company', 'tax-profile', s.company.slug, '--gstin', 'none')).json).toMatchObject({ gstin: null, city: 'Chennai' });
  });
});

describe('tax profile in the catalogue import file', () => {
  const file = (seller: Record<string, unknown>) => ({
    seller,
    products: [{ sku: 'TEA', name: 'Tea', tax_rate: '5', hsn_code: '0902', variants: [{ sku: 'TEA-1', selling_price: '100' }] }],
  });

  it('a `seller` section sets the profile with the catalogue, and export gives it back', async () => {
    const s = await shop(ctx, []);
    await ctx.services.catalogueImport.importCatalogue(
      s.companyId,
      { kind: 'cli', name: 'test' },
      file({ ...KARNATAKA, ...SELLER_ADDRESS, invoice_prefix: 'sh' }),
      { baseDir: tmpdir() },
    );
    expect(await ctx.services.taxProfiles.get(s.companyId)).toMatchObject({ gstin: KARNATAKA.gstin, invoice_prefix: 'SH', state: 'Karnataka' });
    const exported = await ctx.services.catalogueImport.exportCatalogue(s.companyId);
    expect(exported.file.seller).toMatchObject({ legal_name: KARNATAKA.legal_name, gstin: KARNATAKA.gstin, pincode: '560038' });
  });

  it('a bad seller section is reported with its place and nothing is written', async () => {
    const s = await shop(ctx, []);
    const err = await ctx.services.catalogueImport
      .importCatalogue(s.companyId, { kind: 'cli', name: 'test' }, file({ ...KARNATAKA, ...SELLER_ADDRESS, gstin: '29AAGCB7383J1Z5', city: 7 }), {
        baseDir: tmpdir(),
      })
      .catch((e: unknown) => e);
    expect((err as { details: { path: string }[] }).details.map((d) => d.path)).toEqual(expect.arrayContaining(['seller.city']));
    const err2 = await ctx.services.catalogueImport
      .importCatalogue(s.companyId, { kind: 'cli', name: 'test' }, file({ ...KARNATAKA, ...SELLER_ADDRESS, gstin: '29AAGCB7383J1Z5' }), { baseDir: tmpdir() })
      .catch((e: unknown) => e);
    expect(err2).toMatchObject({ kind: 'validation_failed', details: [{ path: 'seller.gstin', message: expect.stringMatching(/check character/) }] });
    expect(await ctx.services.taxProfiles.get(s.companyId)).toBeUndefined();
    const [{ n }] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM products WHERE company_id = ${s.companyId}`);
    expect(n).toBe(0);
  });
});

describe('GST invoice PDF', () => {
  it('intra-state (Karnataka to Karnataka): number, GSTIN, HSN, CGST + SGST, place of supply, words, payment due on delivery', async () => {
    const s = await gstShop();
    const o = await shippedOrder(s, { items: ITEMS, payment: 'cod', customer: { name: 'Aishwarya Rāghavan', phone: '+91 98450 12345' } });
    expect(o.amount).toBe('3347.99'); // 2 × 1299.00 + 1.5 × 499.99 (749.985 -> 749.99 half up)
    expect(o.invoice).toMatchObject({ invoice_number: 'INV/26-27/000001', total: o.amount, credit_note: null });
    const file = await fetchPdf(o.invoice.url);
    expect(file.status).toBe(200);
    expect(file.type).toBe('application/pdf');
    expect(file.pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfText(file.pdf);
    for (const needle of [
      'TAX INVOICE',
      'INV/26-27/000001',
      'GSTIN: 29AAGCB7383J1Z4',
      'Sharma Handlooms Private Limited',
      'Aishwarya Rāghavan',
      '+919845012345',
      'Place of supply',
      'Karnataka (29)',
      '6205',
      '0902',
      '2 PCS',
      '1.5 KG',
      'CGST',
      'SGST',
      '₹3,347.99',
      'Rupees Three Thousand Three Hundred Forty-Seven and Ninety-Nine Paise Only',
      'Cash on delivery: ₹3,347.99 due on delivery',
    ])
      expect(text).toContain(needle);
    expect(text).not.toContain('IGST');
    // kurta 2598.00 at 12%: taxable 2319.64, CGST 139.18, SGST 139.18; chai 749.99 at 5%: 714.28, 17.86, 17.85
    expect(text).toMatch(/Cotton Kurta \(Indigo \/ M\)\s+6205\s+2 PCS\s+1299\.00\s+2319\.64\s+12\s+139\.18\s+139\.18\s+2598\.00/);
    expect(text).toMatch(/Taxable value\s+₹3,033\.92/);
  });

  it("a UCP checkout's order: the discount and shipping on each line and in the totals, reverse charge and signatory (Rule 46)", async () => {
    const s = await gstShop();
    await ctx.services.ucpSettings.set(s.companyId, { kind: 'cli', name: 'test' }, { enabled: true });
    await ctx.services.shippingRates.create(
      s.companyId,
      { kind: 'cli', name: 'test' },
      { id: 'std', title: 'Standard', level: 'standard', zone_kind: 'everywhere', price: '50.00' },
    );
    await ctx.services.discountCodes.create(s.companyId, { kind: 'cli', name: 'test' }, { code: '10OFF', title: '10% Off', kind: 'percentage', value: '10' });
    const ucp = async (path: string, payload: unknown) => {
      const res = await ctx.app.inject({
        method: path.endsWith('sessions') ? 'POST' : path.endsWith('complete') ? 'POST' : 'PUT',
        url: `/ucp/${s.company.slug}/2026-01-11${path}`,
        headers: { 'ucp-agent': 'profile="https://agent.example/p.json"', 'idempotency-key': uid(), 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      });
      return res.json();
    };
    const lines = [
      { item: { id: 'KURTA-M' }, quantity: 2 },
      { item: { id: 'CHAI-LOOSE' }, quantity: 1 },
    ];
    const home = {
      id: 'home',
      street_address: '12 MG Road',
      address_locality: 'Bengaluru',
      postal_code: '560038',
      address_region: 'Karnataka',
      address_country: 'IN',
    };
    const chk = await ucp('/checkout-sessions', {
      line_items: lines,
      buyer: { first_name: 'Asha', last_name: 'Rao', phone_number: '+91 98450 12345' },
      discounts: { codes: ['10OFF'] },
      fulfillment: { methods: [{ type: 'shipping', destinations: [home], selected_destination_id: 'home' }] },
    });
    await ucp(`/checkout-sessions/${chk.id}`, { line_items: lines, fulfillment: { methods: [{ groups: [{ selected_option_id: 'std' }] }] } });
    const done = await ucp(`/checkout-sessions/${chk.id}/complete`, { payment_data: { handler_id: 'cod' } });
    expect(done.status).toBe('completed');
    // goods 2598.00 + 499.99 = 3097.99; 10% off 309.79 (floor to the paisa); shipping 50.00: 2838.20
    expect(done.totals.find((t: { type: string }) => t.type === 'total').amount).toBe(283820);

    await ctx.services.fulfilment.issueInvoice(s.companyId, chk.id);
    const o = (await get(ctx, s.headers, `/orders/${chk.id}`)).body.data;
    expect(o.amount).toBe('2838.20');
    expect(o.invoice).toMatchObject({ total: '2838.20', amount_due: '2838.20' });
    const text = pdfText((await fetchPdf(o.invoice.url)).pdf);
    expect(text).toMatch(/Value of goods\s+₹3,097\.99/);
    expect(text).toMatch(/Less discount\s+-₹309\.79/);
    expect(text).toMatch(/Shipping\s+₹50\.00/);
    expect(text).toMatch(/Total \(GST included\)\s+₹2,838\.20/);
    expect(text).toMatch(/Reverse charge\s+No/);
    expect(text).toContain('For Sharma Handlooms Private Limited');
    expect(text).toContain('Authorised Signatory');
    // each line says its value and its shares; its amount is what the buyer pays for it, and the columns add up
    // kurta: 2598.00 − 259.79 (its share of 309.79 by value) + 41.93 (its share of 50.00 by value after discount) = 2380.14
    expect(text).toMatch(/Value 2598\.00, less discount\s+259\.79, shipping 41\.93/);
    expect(text).toMatch(/Cotton Kurta - Indigo \/ M\s+6205\s+2 PCS\s+1299\.00\s+2125\.12\s+12\s+127\.51\s+127\.51\s+2380\.14/);
    const [taxable, cgst, sgst] = ['Taxable value', 'CGST', 'SGST'].map(
      (k) => new Decimal(text.match(new RegExp(`^\\s*${k}\\s+₹([\\d,]+\\.\\d{2})\\s*$`, 'm'))![1].replace(/,/g, '')),
    );
    expect(taxable.plus(cgst).plus(sgst).toFixed(2)).toBe('2838.20');
  });

  it('inter-state (Karnataka to Tamil Nadu): IGST only, place of supply Tamil Nadu (33); prepaid shows paid', async () => {
    const s = await gstShop();
    const o = await shippedOrder(s, { items: ITEMS, payment: 'prepaid', delivery_address: CHENNAI });
    const text = pdfText((await fetchPdf(o.invoice.url)).pdf);
    expect(text).toContain('Tamil Nadu (33)');
    expect(text).toMatch(/IGST\s+₹314\.07/);
    expect(text).not.toMatch(/CGST|SGST/);
    expect(text).toContain('Payment status: Paid (prepaid)');
  });

  it('a customer writing in Tamil gets their name and address printed in Tamil through the invoice link', async () => {
    const s = await gstShop();
    const name = 'கார்த்திகேயன் சுப்பிரமணியம்';
    const o = await shippedOrder(s, {
      items: ITEMS,
      customer: { name, phone: '+91 98450 54321' },
      delivery_address: { ...CHENNAI, line1: '12 காந்தி தெரு' },
    });
    const text = pdfText((await fetchPdf(o.invoice.url)).pdf).normalize('NFD');
    // letters, not the string: pdftotext gives shaped Tamil back in visual order (the vowel sign before its consonant)
    for (const ch of `${name}காந்திதெரு`.normalize('NFD').replace(/\s/g, '')) expect(text).toContain(ch);
    expect(text).toContain('Tamil Nadu (33)');
  });

  it('a company without a GSTIN: a plain invoice from an unregistered supplier, no tax split; a partial payment shows', async () => {
    const s = await gstShop({ legal_name: 'Meera Home Foods', gstin: null, ...SELLER_ADDRESS });
    const o = await shippedOrder(s, { items: ITEMS, payment: 'cod' });
    await ctx.services.fulfilment.recordPayment(s.companyId, o.order_number, '1000');
    const text = pdfText((await fetchPdf(o.invoice.url)).pdf);
    expect(text).toMatch(/^\s*INVOICE$/m);
    expect(text).toContain('not registered under GST');
    expect(text).toContain('GSTIN: unregistered supplier');
    expect(text).not.toMatch(/TAX INVOICE|CGST|SGST|IGST|Taxable/);
    expect(text).toContain('Partly paid: ₹1,000.00 received, ₹2,347.99 due');
  });

  it('totals equal the order amount over many randomised orders (any prices, rates, quantities, states)', async () => {
    const s = await shop(ctx, []);
    await ctx.services.taxProfiles.set(s.companyId, { kind: 'cli', name: 'test' }, { ...KARNATAKA, ...SELLER_ADDRESS });
    const RATES = ['0', '3', '5', '12', '18', '28'];
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            price: fc.integer({ min: 1, max: 2_000_000_00 }).map((p) => new Decimal(p).dividedBy(100).toFixed(2)),
            rate: fc.constantFrom(...RATES),
            quantity: fc.integer({ min: 1, max: 99_999 }).map((q) => new Decimal(q).dividedBy(1000).toFixed(3)),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.constantFrom(null, CHENNAI),
        async (lines, address) => {
          const items = [];
          for (const l of lines) {
            const sku = `P${++n}-${uid()}`;
            await addProduct(ctx.db, s.companyId, {
              sku,
              name: `Product ${n}`,
              tax_rate: l.rate,
              hsn_code: '9999',
              unit: 'KG', // sold by weight: the random quantities have decimals
              variants: [{ sku: `${sku}-V`, selling_price: l.price, stock: '1000' }],
            });
            items.push({ product_id: `${sku}-V`, quantity: l.quantity });
          }
          const o = await shippedOrder(s, { items, payment: 'cod', ...(address ? { delivery_address: address } : {}) });
          const text = pdfText((await fetchPdf(o.invoice.url)).pdf);
          const grand = /Total \(GST included\)\s+₹([\d,]+\.\d{2})/.exec(text)![1].replace(/,/g, '');
          expect(grand).toBe(o.amount);
          const split = [...text.matchAll(/^\s*(Taxable value|CGST|SGST|IGST)\s+₹([\d,]+\.\d{2})\s*$/gm)].map((m) => m[2].replace(/,/g, ''));
          expect(split.reduce((a, v) => a.plus(v), new Decimal(0)).toFixed(2)).toBe(o.amount);
          expect(text).toContain(address ? 'IGST' : 'CGST');
          const [row] = await ctx.db.query<{ document: { lines: { gross: string }[]; totals: { total: string } } }>(
            sql`SELECT document FROM invoices WHERE company_id = ${s.companyId} AND invoice_number = ${o.invoice.invoice_number}`,
          );
          expect(row.document.lines.reduce((a, l) => a.plus(l.gross), new Decimal(0)).toFixed(2)).toBe(o.amount);
          expect(row.document.totals.total).toBe(o.amount);
        },
      ),
      { numRuns: 25 },
    );
    // consecutive, never skipped: 25 invoices numbered 1..25
    const numbers = await ctx.db.query<{ invoice_number: string }>(
      sql`SELECT invoice_number FROM invoices WHERE company_id = ${s.companyId} ORDER BY invoice_number`,
    );
    expect(numbers.map((r) => Number(r.invoice_number.split('/')[2]))).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
  }, 120_000);

  it('50 lines run over pages with the column titles repeated; the total still equals the order amount', async () => {
    const s = await shop(ctx, []);
    await ctx.services.taxProfiles.set(s.companyId, { kind: 'cli', name: 'test' }, { ...KARNATAKA, ...SELLER_ADDRESS });
    const items = [];
    for (let i = 1; i <= 50; i++) {
      await addProduct(ctx.db, s.companyId, {
        sku: `L${i}`,
        name: `Line ${i}`,
        hsn_code: '6109',
        tax_rate: i % 2 ? '5' : '12',
        variants: [{ sku: `L${i}-V`, selling_price: `${100 + i}.33`, stock: '10' }],
      });
      items.push({ product_id: `L${i}-V`, quantity: 1 });
    }
    const o = await shippedOrder(s, { items });
    const text = pdfText((await fetchPdf(o.invoice.url)).pdf);
    const pages = text.split('\f').filter((p) => p.trim());
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages.slice(0, -1)) expect(page).toMatch(/#\s+Description\s+HSN\s+Qty/);
    for (let i = 1; i <= 50; i++) expect(text).toMatch(new RegExp(`\\bLine ${i}\\b`));
    expect(/Total \(GST included\)\s+₹([\d,]+\.\d{2})/.exec(text)![1].replace(/,/g, '')).toBe(o.amount);
  });

  it('an issued invoice is frozen: a later profile or price change shows only on later invoices', async () => {
    const s = await gstShop();
    const first = await shippedOrder(s, { items: ITEMS });
    await ctx.services.taxProfiles.set(s.companyId, { kind: 'cli', name: 'test' }, { legal_name: 'Sharma Weaves LLP', invoice_prefix: 'SW' });
    await ctx.db.query(sql`UPDATE products SET hsn_code = '6206' WHERE company_id = ${s.companyId} AND sku = 'KURTA'`);
    const again = pdfText((await fetchPdf(first.invoice.url)).pdf);
    expect(again).toContain('Sharma Handlooms Private Limited');
    expect(again).toMatch(/Cotton Kurta \(Indigo \/ M\)\s+6205/);
    const second = await shippedOrder(s, { items: ITEMS });
    expect(second.invoice.invoice_number).toBe('SW/26-27/000002'); // a new prefix shares the counter: no number reused or skipped
    const text = pdfText((await fetchPdf(second.invoice.url)).pdf);
    expect(text).toContain('Sharma Weaves LLP');
    expect(text).toMatch(/Cotton Kurta \(Indigo \/ M\)\s+6206/);
  });

  it('an invoice issued before this release keeps its number and is drawn from today’s data', async () => {
    const s = await gstShop();
    const o = await shippedOrder(s, { items: ITEMS });
    await ctx.db.query(
      sql`UPDATE invoices SET invoice_number = 'INV/2026-27/000001', document = NULL WHERE company_id = ${s.companyId} AND invoice_number = ${o.invoice.invoice_number}`,
    );
    const again = (await get(ctx, s.headers, `/orders/${o.order_number}`)).body.data;
    expect(again.invoice.invoice_number).toBe('INV/2026-27/000001');
    const text = pdfText((await fetchPdf(again.invoice.url)).pdf);
    expect(text).toContain('INV/2026-27/000001');
    expect(text).toContain('GSTIN: 29AAGCB7383J1Z4');
  });
});

describe('signed invoice links', () => {
  it('refuse tampering, another document, another company, a photo signature and expiry; 404 for a document that is not there', async () => {
    const a = await gstShop();
    const b = await gstShop();
    const oa = await shippedOrder(a, { items: ITEMS });
    const ob = await shippedOrder(b, { items: ITEMS });
    const url = new URL(oa.invoice.url);
    const sig = url.searchParams.get('sig')!;
    const expires = url.searchParams.get('expires')!;
    const refusals = [
      `${url.pathname}?expires=${expires}&sig=${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`, // (the last character carries padding bits: change the first)
      `${url.pathname}?expires=${Number(expires) + 1}&sig=${sig}`,
      `${new URL(ob.invoice.url).pathname}?expires=${expires}&sig=${sig}`,
      `${url.pathname.replace(a.companyId, b.companyId)}?expires=${expires}&sig=${sig}`,
      `${url.pathname}?expires=${expires}`,
      `${url.pathname.replace('.pdf', '.png')}?expires=${expires}&sig=${sig}`,
      `/invoices/${a.companyId}/../${b.companyId}/x.pdf?expires=${expires}&sig=${sig}`,
    ];
    for (const path of refusals) {
      const res = await ctx.app.inject({ url: path });
      expect(res.statusCode, path).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
    }
    // a photo link for the same path is signed with another key
    const photo = new URL((await ctx.services.media.linker('http://x'))(url.pathname.replace('/invoices/', '')));
    const res = await ctx.app.inject({ url: `${url.pathname}?${photo.searchParams.toString()}` });
    expect(res.statusCode).toBe(403);

    const expired = (await ctx.services.media.documentLinker('http://x', Date.now() - 86_401_000))(a.companyId, url.pathname.split('/')[3].replace('.pdf', ''));
    const old = await fetchPdf(expired);
    expect(old.status).toBe(403);
    expect(old.json().error.message).toMatch(/expired/);

    const ghost = (await ctx.services.media.documentLinker('http://x'))(a.companyId, 'inv_doesnotexist');
    expect((await fetchPdf(ghost)).status).toBe(404);
    expect((await fetchPdf(oa.invoice.url)).status).toBe(200);
  });
});

describe('credit notes', () => {
  it('a cancelled invoiced order and a returned one get credit notes in their own series; the lookup shows them; nothing is owed', async () => {
    const s = await gstShop();
    const placed = await post(ctx, s.headers, orderBody({ items: ITEMS, payment: 'cod' }));
    const ref = placed.body.data.order_number;
    await ctx.services.fulfilment.issueInvoice(s.companyId, ref);
    await ctx.services.fulfilment.move(s.companyId, ref, 'cancelled');
    const cancelled = (await get(ctx, s.headers, `/orders/${ref}`)).body.data;
    expect(cancelled.invoice).toMatchObject({
      invoice_number: 'INV/26-27/000001',
      payment_status: 'unpaid',
      amount_due: '0.00',
      credit_note: {
        credit_note_number: 'CN/26-27/000001',
        reason: 'cancelled',
        total: '3347.99',
        url: expect.stringMatching(/\/invoices\/co_\w+\/cn_\w+\.pdf\?/),
      },
    });
    const text = pdfText((await fetchPdf(cancelled.invoice.credit_note.url)).pdf);
    for (const needle of ['CREDIT NOTE', 'CN/26-27/000001', 'INV/26-27/000001', 'order cancelled', 'Total credited', '₹3,347.99', 'GSTIN: 29AAGCB7383J1Z4'])
      expect(text).toContain(needle);
    await expect(ctx.services.fulfilment.recordPayment(s.companyId, ref, '10')).rejects.toThrow(/reversed by credit note CN\/26-27\/000001/);

    const returned = await shippedOrder(s, { items: ITEMS, payment: 'prepaid' });
    await ctx.services.fulfilment.move(s.companyId, returned.order_number, 'delivered');
    await ctx.services.fulfilment.move(s.companyId, returned.order_number, 'returned');
    const after = (await get(ctx, s.headers, `/orders/${returned.order_number}`)).body.data;
    expect(after.invoice).toMatchObject({ invoice_number: 'INV/26-27/000002', credit_note: { credit_note_number: 'CN/26-27/000002', reason: 'returned' } });
    const counts = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM credit_notes WHERE company_id = ${s.companyId}`);
    expect(counts[0].n).toBe(2);
  });

  it('an order cancelled before it was invoiced gets none', async () => {
    const s = await gstShop();
    const ref = (await post(ctx, s.headers, orderBody({ items: ITEMS }))).body.data.order_number;
    await ctx.services.fulfilment.move(s.companyId, ref, 'cancelled');
    expect((await get(ctx, s.headers, `/orders/${ref}`)).body.data.invoice).toBeNull();
  });
});

describe('other doors', () => {
  it('MCP get_order gives the same invoice url (official SDK client), and it opens over real HTTP', async () => {
    const s = await gstShop();
    const o = await shippedOrder(s, { items: ITEMS });
    const base = await listeningUrl(ctx);
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': s.key } } });
    const client = new Client({ name: 'vitest', version: '1.0.0' });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'get_order', arguments: { reference: o.order_number, phone: '+91 98765 43210' } });
      const invoice = (result.structuredContent as { data: { invoice: { url: string; invoice_number: string } } }).data.invoice;
      expect(invoice.invoice_number).toBe(o.invoice.invoice_number);
      expect(invoice.url).toMatch(new RegExp(`^${new URL(base).origin}/invoices/${s.companyId}/inv_\\w+\\.pdf\\?expires=\\d+&sig=`));
      const res = await fetch(invoice.url);
      expect(res.status).toBe(200);
      expect(pdfText(Buffer.from(await res.arrayBuffer()))).toContain(o.invoice.invoice_number);
    } finally {
      await client.close();
    }
  });

  it('the admin CLI writes the invoice and the credit note to files', async () => {
    const s = await gstShop();
    const o = await shippedOrder(s, { items: ITEMS });
    const dir = mkdtempSync(join(tmpdir(), 'inv-'));
    const out: string[] = [];
    const code = await runAdmin(['invoice', 'pdf', o.order_number, '--company', s.company.slug, '--out', join(dir, 'i.pdf')], (t) => out.push(t), {
      db: ctx.testDb.db,
    });
    expect(code).toBe(0);
    expect(out.join('')).toMatch(/wrote INV-26-27-000001\.pdf/);
    expect(pdfText(readFileSync(join(dir, 'i.pdf')))).toContain('INV/26-27/000001');
    expect(
      await runAdmin(['invoice', 'pdf', o.order_number, '--company', s.company.slug, '--out', join(dir, 'c.pdf'), '--credit-note'], () => {}, {
        db: ctx.testDb.db,
      }),
    ).not.toBe(0);
    await ctx.services.fulfilment.move(s.companyId, o.order_number, 'returned');
    expect(
      await runAdmin(['invoice', 'pdf', o.order_number, '--company', s.company.slug, '--out', join(dir, 'c.pdf'), '--credit-note'], () => {}, {
        db: ctx.testDb.db,
      }),
    ).toBe(0);
    expect(pdfText(readFileSync(join(dir, 'c.pdf')))).toContain('CN/26-27/000001');
  });
});
