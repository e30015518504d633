import PDFDocument from 'pdfkit';
import { Decimal, money } from '../lib/money.js';
import type { InvoiceDocument } from './invoice-document.js';
import { BASE, fontFor, fontName, scriptRuns, type Weight } from './invoice-fonts.js';

/**
 * Draws an invoice or a credit note as an A4 PDF with pdfkit. Text the seller or the customer wrote (names,
 * addresses, product names) may be in any Indian script: it is drawn run by run, each in its script's Noto font
 * (invoice-fonts.ts).
 */

export interface PdfPayment {
  method: 'cod' | 'prepaid';
  total: string;
  paid: string;
}

export interface PdfView {
  kind: 'invoice' | 'credit_note';
  number: string;
  date: Date;
  document: InvoiceDocument;
  payment: PdfPayment;
  /** credit note only: the invoice it reverses, and why */
  against?: { number: string; date: Date; reason: 'cancelled' | 'returned' };
}

const IST_MS = 330 * 60 * 1000;
/** 23-11-2026, India's date. */
export const indiaDate = (d: Date) => {
  const ist = new Date(d.getTime() + IST_MS);
  return `${String(ist.getUTCDate()).padStart(2, '0')}-${String(ist.getUTCMonth() + 1).padStart(2, '0')}-${ist.getUTCFullYear()}`;
};

/** ₹1,23,456.78: Indian digit grouping. */
export function rupees(amount: string): string {
  const [whole, paise] = money(amount).split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = whole.replace('-', '');
  const last3 = digits.slice(-3);
  const rest = digits.slice(0, -3).replace(/\B(?=(\d{2})+(?!\d))/g, ',');
  return `${sign}₹${rest ? `${rest},${last3}` : last3}.${paise}`;
}

/** The payment line: COD with what is due, paid, or partly paid. */
export function paymentText(p: PdfPayment): string {
  const due = Decimal.max(new Decimal(p.total).minus(p.paid), 0);
  if (due.isZero()) return p.method === 'prepaid' ? 'Paid (prepaid)' : 'Paid (cash on delivery collected)';
  if (new Decimal(p.paid).gt(0)) return `Partly paid: ${rupees(p.paid)} received, ${rupees(money(due))} due`;
  return p.method === 'cod' ? `Cash on delivery: ${rupees(money(due))} due on delivery` : `Unpaid: ${rupees(money(due))} due`;
}

interface Column {
  title: string;
  width: number;
  align?: 'left' | 'right';
  value: (l: InvoiceDocument['lines'][number], i: number) => string;
}

const MARGIN = 36;
const A4_WIDTH = 595.28;
const CONTENT = A4_WIDTH - 2 * MARGIN;

/** A line's share of the order's discount and shipping, under its description (only when it has one). */
function chargesNote(l: InvoiceDocument['lines'][number]): string {
  const parts = [
    ...(l.discount && new Decimal(l.discount).gt(0) ? [`less discount ${money(l.discount)}`] : []),
    ...(l.shipping && new Decimal(l.shipping).gt(0) ? [`shipping ${money(l.shipping)}`] : []),
  ];
  return parts.length ? `\nValue ${money(l.value ?? l.gross)}, ${parts.join(', ')}` : '';
}

function lineColumns(d: InvoiceDocument): Column[] {
  const num = (title: string, width: number, value: Column['value']): Column => ({ title, width, align: 'right', value });
  const head: Column[] = [
    { title: '#', width: 16, value: (_l, i) => String(i + 1) },
    { title: 'Description', width: 0, value: (l) => `${l.description}\nSKU ${l.sku}${chargesNote(l)}` },
    { title: 'HSN', width: 46, value: (l) => l.hsn_code ?? '-' },
    num('Qty', 50, (l) => `${new Decimal(l.quantity).toString()} ${l.unit}`),
    num('Rate', 54, (l) => money(l.unit_price)),
  ];
  const tail = [num('Amount', 60, (l) => money(l.gross))];
  let middle: Column[] = [];
  if (d.tax_kind === 'intra')
    middle = [
      num('Taxable', 58, (l) => l.taxable),
      num('GST %', 32, (l) => new Decimal(l.rate).toString()),
      num('CGST', 46, (l) => l.cgst),
      num('SGST', 46, (l) => l.sgst),
    ];
  else if (d.tax_kind === 'inter')
    middle = [num('Taxable', 58, (l) => l.taxable), num('GST %', 32, (l) => new Decimal(l.rate).toString()), num('IGST', 56, (l) => l.igst)];
  const columns = [...head, ...middle, ...tail];
  columns[1].width = CONTENT - columns.reduce((a, c) => a + c.width, 0);
  return columns;
}

/**
 * Text written run by run in the fonts its scripts need, registered in the document the first time they are used.
 * One run of base text is drawn exactly as a plain `doc.text` would draw it.
 */
function scriptWriter(doc: PDFKit.PDFDocument) {
  const registered = new Set<string>();
  const font = (script: Parameters<typeof fontName>[0], weight: Weight) => {
    const name = fontName(script, weight);
    if (!registered.has(name)) {
      // pdfkit takes a fontkit font as a source (its types name only files and bytes)
      doc.registerFont(name, fontFor(script, weight) as unknown as PDFKit.Mixins.PDFFontSource);
      registered.add(name);
    }
    return doc.font(name);
  };
  return {
    font,
    text(str: string, weight: Weight, x?: number, y?: number, options?: PDFKit.Mixins.TextOptions) {
      const runs = scriptRuns(str);
      if (runs.length <= 1) return font(runs[0]?.script ?? BASE, weight).text(str, x, y, options);
      runs.forEach((r, i) =>
        font(r.script, weight).text(r.text, i === 0 ? x : undefined, i === 0 ? y : undefined, { ...options, continued: i < runs.length - 1 }),
      );
      return doc;
    },
    /** The height of the text in the tallest of the fonts it uses (each font measures every character). */
    height(str: string, weight: Weight, options?: PDFKit.Mixins.TextOptions) {
      const scripts = new Set(scriptRuns(str).map((r) => r.script));
      let h = 0;
      for (const script of scripts.size ? scripts : ([BASE] as const)) h = Math.max(h, font(script, weight).heightOfString(str, options));
      return h;
    },
  };
}

/** Renders the PDF; resolves with its bytes. */
export function renderInvoicePdf(view: PdfView): Promise<Buffer> {
  const d = view.document;
  const registered = !!d.seller.gstin;
  const title = view.kind === 'credit_note' ? 'CREDIT NOTE' : registered ? 'TAX INVOICE' : 'INVOICE';
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: { Title: `${title} ${view.number}`, Author: d.seller.legal_name, Creator: 'Catalogue, Orders and Customers API' },
  });
  const w = scriptWriter(doc);
  // the base font's two weights are used by name ('regular', 'bold') throughout
  w.font(BASE, 'bold');
  w.font(BASE, 'regular');
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const bottom = doc.page.height - MARGIN - 24;

  // Heading
  doc.font('bold').fontSize(16).text(title, MARGIN, MARGIN, { width: CONTENT, align: 'center' });
  if (!registered && view.kind === 'invoice')
    doc.font('regular').fontSize(9).text('Issued by a supplier not registered under GST: no GST is charged', { width: CONTENT, align: 'center' });
  doc.moveDown(0.8);

  // Seller (left) and document facts (right)
  const top = doc.y;
  const half = CONTENT / 2 - 8;
  doc.fontSize(11);
  w.text(d.seller.legal_name, 'bold', MARGIN, top, { width: half });
  doc.fontSize(9);
  if (d.seller.trade_name) w.text(`Trade name: ${d.seller.trade_name}`, 'regular', undefined, undefined, { width: half });
  for (const l of d.seller.address) w.text(l, 'regular', undefined, undefined, { width: half });
  doc.font('regular');
  if (d.seller.state) doc.text(`State: ${d.seller.state} (code ${d.seller.state_code})`, { width: half });
  doc.font('bold').text(registered ? `GSTIN: ${d.seller.gstin}` : 'GSTIN: unregistered supplier', { width: half });
  const leftEnd = doc.y;

  const facts: [string, string][] = [
    [view.kind === 'credit_note' ? 'Credit note no.' : 'Invoice no.', view.number],
    [view.kind === 'credit_note' ? 'Credit note date' : 'Invoice date', indiaDate(view.date)],
  ];
  if (view.against) facts.push(['Against invoice', `${view.against.number} of ${indiaDate(view.against.date)}`], ['Reason', `order ${view.against.reason}`]);
  facts.push(['Order no.', d.order_number], ['Order date', indiaDate(new Date(d.order_date))]);
  if (d.place_of_supply) facts.push(['Place of supply', `${d.place_of_supply.state} (${d.place_of_supply.state_code})`]);
  // Rule 46(p) of the CGST Rules: whether tax is payable on reverse charge (never, for these sales)
  facts.push(['Reverse charge', 'No']);
  let y = top;
  for (const [k, v] of facts) {
    doc
      .font('regular')
      .fontSize(9)
      .text(k, MARGIN + half + 16, y, { width: 90 });
    doc.font('bold').text(v, MARGIN + half + 106, y, { width: half - 90 });
    y = doc.y + 1;
  }
  doc.y = Math.max(leftEnd, y) + 10;

  // Customer
  doc
    .moveTo(MARGIN, doc.y)
    .lineTo(MARGIN + CONTENT, doc.y)
    .strokeColor('#999999')
    .stroke();
  doc.moveDown(0.4);
  doc.font('bold').fontSize(9).text('Bill to / Ship to', MARGIN, doc.y);
  w.text(d.buyer.name, 'regular', undefined, undefined, { width: CONTENT });
  if (d.buyer.phone) doc.font('regular').text(`Phone: ${d.buyer.phone}`);
  for (const l of d.buyer.address) w.text(l, 'regular', undefined, undefined, { width: CONTENT });
  doc.moveDown(0.6);

  // Lines
  const columns = lineColumns(d);
  const titles = columns.map((c) => c.title);
  const drawRow = (cells: string[], bold: boolean, shade: boolean) => {
    const weight = bold ? 'bold' : 'regular';
    doc.font(weight).fontSize(8);
    const heights = cells.map((c, i) => w.height(c, weight, { width: columns[i].width - 4 }));
    const h = Math.max(...heights) + 4;
    if (doc.y + h > bottom) {
      doc.addPage();
      doc.y = MARGIN;
      // the column titles again on every page the lines run onto
      if (!bold) drawRow(titles, true, true);
      doc.font(weight).fontSize(8);
    }
    const rowTop = doc.y;
    if (shade) doc.rect(MARGIN, rowTop, CONTENT, h).fill('#eeeeee').fillColor('black');
    let x = MARGIN;
    cells.forEach((c, i) => {
      w.text(c, weight, x + 2, rowTop + 2, { width: columns[i].width - 4, align: columns[i].align ?? 'left' });
      x += columns[i].width;
    });
    doc.y = rowTop + h;
    doc
      .moveTo(MARGIN, doc.y)
      .lineTo(MARGIN + CONTENT, doc.y)
      .strokeColor('#cccccc')
      .stroke();
  };
  drawRow(titles, true, true);
  d.lines.forEach((l, i) =>
    drawRow(
      columns.map((c) => c.value(l, i)),
      false,
      false,
    ),
  );

  // Tax table by rate (registered suppliers)
  const keep = (h: number) => {
    if (doc.y + h > bottom) {
      doc.addPage();
      doc.y = MARGIN;
    }
  };
  doc.moveDown(0.8);
  if (registered) {
    keep(60);
    doc.font('bold').fontSize(9).text('Tax summary', MARGIN, doc.y);
    const split = d.tax_kind === 'intra' ? ['CGST', 'SGST'] : ['IGST'];
    const head = ['GST rate', 'Taxable value', ...split, 'Total tax'];
    const w = CONTENT / head.length;
    const row = (cells: string[], bold = false) => {
      doc.font(bold ? 'bold' : 'regular').fontSize(8);
      const rowTop = doc.y;
      cells.forEach((c, i) => doc.text(c, MARGIN + i * w, rowTop, { width: w - 4, align: i === 0 ? 'left' : 'right' }));
      doc.y = rowTop + 12;
    };
    row(head, true);
    for (const r of d.tax_table) {
      const taxes = d.tax_kind === 'intra' ? [r.cgst, r.sgst] : [r.igst];
      row([`${new Decimal(r.rate).toString()}%`, r.taxable, ...taxes, money(new Decimal(r.cgst).plus(r.sgst).plus(r.igst))]);
    }
    doc.moveDown(0.6);
  }

  // Totals
  keep(90);
  const charged = (v: string | undefined) => v !== undefined && new Decimal(v).gt(0);
  const totals: [string, string][] = [];
  if (charged(d.totals.discount) || charged(d.totals.shipping)) {
    totals.push(['Value of goods', rupees(d.totals.value ?? d.totals.total)]);
    if (charged(d.totals.discount)) totals.push(['Less discount', `-${rupees(d.totals.discount!)}`]);
    if (charged(d.totals.shipping)) totals.push(['Shipping', rupees(d.totals.shipping!)]);
  }
  if (registered) {
    totals.push(['Taxable value', rupees(d.totals.taxable)]);
    if (d.tax_kind === 'intra') totals.push(['CGST', rupees(d.totals.cgst)], ['SGST', rupees(d.totals.sgst)]);
    else totals.push(['IGST', rupees(d.totals.igst)]);
  }
  totals.push([view.kind === 'credit_note' ? 'Total credited' : 'Total (GST included)', rupees(d.totals.total)]);
  for (const [k, v] of totals) {
    const bold = k.startsWith('Total');
    const rowTop = doc.y;
    doc.font(bold ? 'bold' : 'regular').fontSize(bold ? 11 : 9);
    doc.text(k, MARGIN + CONTENT - 260, rowTop, { width: 150, align: 'right' });
    doc.text(v, MARGIN + CONTENT - 110, rowTop, { width: 110, align: 'right' });
    doc.y = rowTop + (bold ? 16 : 13);
  }
  doc.moveDown(0.4);
  doc.font('regular').fontSize(9).text(`Amount in words: ${d.amount_in_words}`, MARGIN, doc.y, { width: CONTENT });
  doc.moveDown(0.6);
  if (view.kind === 'invoice') doc.font('bold').text(`Payment status: ${paymentText(view.payment)}`, { width: CONTENT });
  else doc.font('bold').text(`This credit note reverses invoice ${view.against?.number ?? ''} in full.`, { width: CONTENT });
  // Rule 46(q): signed by the supplier or an authorised representative
  doc.moveDown(1);
  keep(60);
  doc
    .font('bold')
    .fontSize(9)
    .text(`For ${d.seller.legal_name}`, MARGIN + CONTENT - 220, doc.y, { width: 220, align: 'right' });
  doc.moveDown(2.2);
  doc
    .font('regular')
    .fontSize(9)
    .text('Authorised Signatory', MARGIN + CONTENT - 220, doc.y, { width: 220, align: 'right' });
  doc.moveDown(1);
  doc
    .font('regular')
    .fontSize(7.5)
    .fillColor('#555555')
    .text(
      (registered
        ? 'Prices include GST. Per line, taxable value = amount × 100 / (100 + GST rate), rounded half up to the paisa; the tax is the rest of the amount' +
          (d.tax_kind === 'intra' ? ', split into central tax (half, rounded half up) and state tax (the remainder). ' : '. ')
        : '') +
        (charged(d.totals.discount) || charged(d.totals.shipping)
          ? 'A discount given on the invoice lowers the taxable value of the lines it is shared over; shipping charged with the goods is taxed at their rate, shared over the lines by value. '
          : '') +
        'Computer-generated document.',
      MARGIN,
      doc.y,
      { width: CONTENT },
    );
  doc.end();
  return done;
}
