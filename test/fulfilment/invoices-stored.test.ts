import { spawnSync } from 'node:child_process';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { matchesEtag } from '../../src/http/routes/invoices.js';
import { useTestApp } from '../helpers/app.js';
import { get, orderBody, post, shop } from '../helpers/orders.js';

/**
 * An invoice is a frozen document, so its PDF is drawn once and the stored bytes are served to
 * every later fetch of its signed link, with an ETag a browser revalidates (304 without the bytes). What the PDF shows
 * from live data (the payment state) draws it again when it changes, with a new ETag.
 */

const ctx = useTestApp();

function pdfText(pdf: Buffer): string {
  const out = spawnSync('pdftotext', ['-layout', '-enc', 'UTF-8', '-', '-'], { input: pdf });
  if (out.status !== 0) throw new Error(`pdftotext failed: ${out.stderr.toString()}`);
  return out.stdout.toString('utf8');
}

const local = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** A COD order of 1,200.00, invoiced: its number and signed invoice link. */
async function invoicedOrder() {
  const s = await shop(ctx, [{ sku: 'RUG', name: 'Jute Rug', variants: [{ sku: 'RUG-1', selling_price: '1200.00', stock: '20' }] }]);
  const ref = (await post(ctx, s.headers, orderBody({ payment: 'cod', items: [{ product_id: 'RUG-1', quantity: 1 }] }))).body.data.order_number;
  await ctx.services.fulfilment.issueInvoice(s.companyId, ref);
  const invoice = (await get(ctx, s.headers, `/orders/${ref}`)).body.data.invoice;
  return { s, ref, url: local(invoice.url) };
}

const fetchPdf = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => ctx.app.inject({ method, url, headers });
const drawn = () => ctx.services.fulfilment.documentStats().drawn;

describe('invoice PDFs are drawn once', () => {
  it('the second fetch serves the stored bytes: not drawn again, same bytes, same ETag, Cache-Control private', async () => {
    const { s, url } = await invoicedOrder();
    const before = drawn();
    const first = await fetchPdf(url);
    expect(first.statusCode).toBe(200);
    expect(drawn()).toBe(before + 1);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');

    const served = ctx.services.fulfilment.documentStats().fromStore;
    for (let i = 0; i < 3; i++) {
      const again = await fetchPdf(url);
      expect(again.statusCode).toBe(200);
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['content-type']).toBe('application/pdf');
      expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    }
    expect(drawn()).toBe(before + 1);
    expect(ctx.services.fulfilment.documentStats().fromStore).toBe(served + 3);
    const rows = await ctx.db.query<{ document_id: string; etag: string }>(sql`SELECT document_id, etag FROM document_files WHERE company_id = ${s.companyId}`);
    expect(rows).toEqual([{ document_id: url.split('/')[3].replace(/\.pdf\?.*/, ''), etag }]);
  });

  it('parallel first fetches of one link draw it once', async () => {
    const { url } = await invoicedOrder();
    const before = drawn();
    const answers = await Promise.all(Array.from({ length: 4 }, () => fetchPdf(url)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.headers.etag)).size).toBe(1);
    expect(drawn()).toBe(before + 1);
  });

  it('If-None-Match with the ETag is 304 without the bytes; another tag, or none, gets the PDF; a bad signature is still 403', async () => {
    const { url } = await invoicedOrder();
    const etag = (await fetchPdf(url)).headers.etag as string;
    for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const res = await fetchPdf(url, { 'if-none-match': header });
      expect(res.statusCode, header).toBe(304);
      expect(res.rawPayload.length).toBe(0);
      expect(res.headers.etag).toBe(etag);
      expect(res.headers['cache-control']).toBe('private, no-cache');
    }
    expect((await fetchPdf(url, { 'if-none-match': '"nope"' })).statusCode).toBe(200);
    expect((await fetchPdf(url, {}, 'HEAD')).headers.etag).toBe(etag);
    const forged = url.replace(/sig=./, (m) => (m.endsWith('A') ? 'sig=B' : 'sig=A'));
    expect((await fetchPdf(forged, { 'if-none-match': etag })).statusCode).toBe(403);
  });

  it('a payment recorded after issue draws it again: the new PDF shows it, with a new ETag; then stored again', async () => {
    const { s, ref, url } = await invoicedOrder();
    const first = await fetchPdf(url);
    expect(pdfText(first.rawPayload)).toContain('Cash on delivery: ₹1,200.00 due on delivery');
    const before = drawn();
    await ctx.services.fulfilment.recordPayment(s.companyId, ref, '200');
    const paid = await fetchPdf(url, { 'if-none-match': first.headers.etag as string });
    expect(paid.statusCode).toBe(200);
    expect(paid.headers.etag).not.toBe(first.headers.etag);
    expect(pdfText(paid.rawPayload)).toContain('Partly paid: ₹200.00 received, ₹1,000.00 due');
    expect(drawn()).toBe(before + 1);
    expect((await fetchPdf(url, { 'if-none-match': paid.headers.etag as string })).statusCode).toBe(304);
    expect(drawn()).toBe(before + 1);
    const [{ n }] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM document_files WHERE company_id = ${s.companyId}`);
    expect(n).toBe(1);
  });

  it('a credit note too: drawn once, then served from its stored bytes', async () => {
    const { s, ref } = await invoicedOrder();
    await ctx.services.fulfilment.move(s.companyId, ref, 'cancelled');
    const url = local((await get(ctx, s.headers, `/orders/${ref}`)).body.data.invoice.credit_note.url);
    const before = drawn();
    const first = await fetchPdf(url);
    expect(first.statusCode).toBe(200);
    expect(pdfText(first.rawPayload)).toContain('CREDIT NOTE');
    const again = await fetchPdf(url);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(drawn()).toBe(before + 1);
  });
});

describe('If-None-Match', () => {
  it('matches a listed tag, weak or strong, or *; nothing else', () => {
    expect(matchesEtag('"a"', '"a"')).toBe(true);
    expect(matchesEtag('W/"a"', '"a"')).toBe(true);
    expect(matchesEtag(' "b" ,  "a" ', '"a"')).toBe(true);
    expect(matchesEtag('*', '"a"')).toBe(true);
    expect(matchesEtag('"b"', '"a"')).toBe(false);
    expect(matchesEtag('a', '"a"')).toBe(false);
    expect(matchesEtag(undefined, '"a"')).toBe(false);
    expect(matchesEtag('', '"a"')).toBe(false);
  });
});
