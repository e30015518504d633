import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InvoiceDocument } from '../../src/fulfilment/invoice-document.js';
import { fontFor, scriptRuns } from '../../src/fulfilment/invoice-fonts.js';
import { renderInvoicePdf } from '../../src/fulfilment/invoice-pdf.js';

/**
 * Names, addresses and product names in every major Indian script print in a font that has them. pdftotext gives
 * shaped Indic text back in visual order (a pre-base vowel sign before its consonant), so a string is checked as
 * its letters: every character of it (canonically decomposed) comes back as often as it was written. With one font
 * for everything the letters the font lacks come back as one repeated character, and the check fails.
 */

const NAMES = {
  devanagari: { name: 'अनीता शर्मा', font: 'NotoSansDevanagari' },
  bengali: { name: 'সুমিত্রা বন্দ্যোপাধ্যায়', font: 'NotoSansBengali' },
  gurmukhi: { name: 'ਗੁਰਪ੍ਰੀਤ ਸਿੰਘ ਅੰਮ੍ਰਿਤਸਰ', font: 'BalooPaaji2' },
  gujarati: { name: 'હેતલ પટેલ', font: 'NotoSansGujarati' },
  odia: { name: 'ସୁଭଦ୍ରା ମହାପାତ୍ର', font: 'NotoSansOriya' },
  tamil: { name: 'கார்த்திகேயன் சுப்பிரமணியம் கொ', font: 'NotoSansTamil' },
  telugu: { name: 'వెంకటేశ్వర రావు', font: 'NotoSansTelugu' },
  kannada: { name: 'ಶಿವಕುಮಾರ್ ಗೌಡ', font: 'NotoSansKannada' },
  malayalam: { name: 'അനിൽ കുമാർ', font: 'NotoSansMalayalam' },
} as const;

function invoiceFor(text: string): InvoiceDocument {
  return {
    v: 1,
    seller: { legal_name: 'Meena Stores', trade_name: text, gstin: null, address: ['1 Anna Salai'], state: 'Tamil Nadu', state_code: '33' },
    buyer: { name: text, phone: '+919845012345', address: [`${text}, 4th Cross`, 'Chennai, Tamil Nadu - 600002'] },
    place_of_supply: null,
    tax_kind: 'none',
    order_number: 'ORD-1',
    order_date: '2026-11-24T10:00:00.000Z',
    lines: [
      {
        description: `${text} (handloom)`,
        sku: 'S1',
        hsn_code: '5208',
        quantity: '1.000',
        unit: 'PCS',
        unit_price: '100.00',
        gross: '100.00',
        taxable: '100.00',
        rate: '0',
        cgst: '0.00',
        sgst: '0.00',
        igst: '0.00',
      },
    ],
    tax_table: [],
    totals: { taxable: '100.00', cgst: '0.00', sgst: '0.00', igst: '0.00', total: '100.00' },
    amount_in_words: 'Rupees One Hundred Only',
  };
}

const render = (text: string) =>
  renderInvoicePdf({
    kind: 'invoice',
    number: 'INV/26-27/000001',
    date: new Date('2026-11-24T10:00:00.000Z'),
    document: invoiceFor(text),
    payment: { method: 'cod', total: '100.00', paid: '0' },
  });

function pdfText(pdf: Buffer): string {
  const out = spawnSync('pdftotext', ['-enc', 'UTF-8', '-', '-'], { input: pdf });
  if (out.status !== 0) throw new Error(`pdftotext failed: ${out.stderr.toString()}`);
  return out.stdout.toString('utf8');
}

/** The fonts embedded in the PDF (pdffonts seeks in a file: the PDF is written to one first). */
function pdfFonts(pdf: Buffer): string {
  const file = join(mkdtempSync(join(tmpdir(), 'invoice-')), 'invoice.pdf');
  writeFileSync(file, pdf);
  const out = spawnSync('pdffonts', [file]);
  rmSync(dirname(file), { recursive: true });
  if (out.status !== 0) throw new Error(`pdffonts failed: ${out.stderr.toString()}`);
  return out.stdout.toString('utf8');
}

/** How often each non-space character occurs, canonically decomposed. */
function letters(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const ch of text.normalize('NFD')) if (!/\s/.test(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  return counts;
}

describe('invoice PDFs print every major Indian script', () => {
  for (const [script, { name, font }] of Object.entries(NAMES))
    it(`${script}: the customer's name, address, the trade name and the product name come back whole, in ${font}`, async () => {
      const pdf = await render(name);
      expect(pdfFonts(pdf)).toContain(font);
      const text = letters(pdfText(pdf));
      // written 4 times: trade name, buyer name, address line, line description
      for (const [ch, n] of letters(name)) expect({ ch, n: text.get(ch) ?? 0 }).toEqual({ ch, n: 4 * n });
    });

  it('a name mixing scripts keeps each part in its own font, and Latin in the base font', async () => {
    const mixed = 'Karthik கார்த்திக் / ಕಾರ್ತಿಕ್ (कार्तिक)';
    expect(scriptRuns(mixed).map((r) => r.script)).toEqual(['base', 'tamil', 'base', 'kannada', 'base']);
    const pdf = await render(mixed);
    const fonts = pdfFonts(pdf);
    for (const f of ['NotoSansTamil', 'NotoSansKannada', 'NotoSansDevanagari']) expect(fonts).toContain(f);
    expect(fonts).not.toContain('NotoSansBengali');
    const text = letters(pdfText(pdf));
    for (const [ch, n] of letters(mixed)) expect({ ch, atLeast: (text.get(ch) ?? 0) >= 4 * n }).toEqual({ ch, atLeast: true });
  });

  it('a sequence fontkit cannot shape (Gujarati candra E with a candra E sign) is drawn unshaped in its own font, every letter kept', async () => {
    const odd = 'ઍૅ';
    // fontkit 2.0.4 itself throws on it (a null anchor in Noto Sans Gujarati's mark positioning) ...
    expect(() => fontFor('gujarati', 'regular').layout(`${odd} `)).not.toThrow();
    const run = fontFor('gujarati', 'regular').layout(odd);
    expect(run.glyphs.map((g) => g.codePoints)).toEqual([[0x0a8d], [0x0ac5]]);
    expect(run.glyphs.every((g) => g.id !== 0)).toBe(true); // real glyphs, not the missing-glyph box
    expect(run.advanceWidth).toBeGreaterThan(0);
    // ... and the invoice still renders, in the Gujarati font, with both letters in all four places
    const pdf = await render(`હેતલ ${odd}`);
    expect(pdfFonts(pdf)).toContain('NotoSansGujarati');
    const text = letters(pdfText(pdf));
    for (const [ch, n] of letters(`હેતલ ${odd}`)) expect({ ch, n: text.get(ch) ?? 0 }).toEqual({ ch, n: 4 * n });
  });

  it('any text in any of these scripts renders without an error (the invoice link never fails on a name)', async () => {
    const blocks = [0x0900, 0x0980, 0x0a00, 0x0a80, 0x0b00, 0x0b80, 0x0c00, 0x0c80, 0x0d00];
    const indic = fc.oneof(
      ...blocks.map((b) => fc.integer({ min: b, max: b + 0x7f }).map((cp) => String.fromCodePoint(cp))),
      fc.constantFrom(' ', '\u200c', '\u200d', '-', '.'),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(indic, { minLength: 1, maxLength: 40 }), async (chars) => {
        const pdf = await render(chars.join(''));
        expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      }),
      { numRuns: 150 },
    );
  });
});
