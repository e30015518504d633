import type { Db } from '../db/index.js';
import type { TaxProfile } from '../companies/companies.queries.js';
import { rupeesInWords } from '../lib/amount-words.js';
import { gstState } from '../lib/gstin.js';
import { taxByRate, taxLine, taxTotals, type TaxedLine, type TaxKind, type TaxTotals } from '../lib/gst-tax.js';
import { Decimal, money, qty } from '../lib/money.js';
import { findInvoiceLines, findInvoiceParty } from './billing.queries.js';

/**
 * What an invoice says, computed once when it is issued and kept on the invoice row (`invoices.document`), so a
 * later change to the tax profile, the customer or the catalogue never changes an invoice already issued.
 * Its number, date and payment status are read from the invoice row when it is drawn.
 */
export interface InvoiceDocument {
  v: 1;
  seller: {
    legal_name: string;
    trade_name: string | null;
    /** null: an unregistered supplier; the invoice charges no GST and shows no tax split */
    gstin: string | null;
    address: string[];
    state: string | null;
    state_code: string | null;
  };
  buyer: { name: string; phone: string | null; address: string[] };
  place_of_supply: { state: string; state_code: string } | null;
  tax_kind: TaxKind;
  order_number: string;
  order_date: string;
  lines: (TaxedLine & {
    description: string;
    sku: string;
    hsn_code: string | null;
    quantity: string;
    unit: string;
    unit_price: string;
    /** quantity × rate; the line's share of the order's discount and of its shipping (absent on invoices issued before them) */
    value?: string;
    discount?: string;
    shipping?: string;
  })[];
  tax_table: ReturnType<typeof taxByRate>;
  /** `value`, `discount`, `shipping`: the goods before discount, the discount, the shipping charged with them */
  totals: TaxTotals & { value?: string; discount?: string; shipping?: string };
  /** Rule 46(p) CGST Rules: whether tax is payable on reverse charge (never, for a sale to a consumer or a business here) */
  reverse_charge?: false;
  amount_in_words: string;
}

const addressLines = (a: { line1: string | null; line2: string | null; city: string | null; state: string | null; pincode: string | null }) =>
  [a.line1, a.line2, [a.city, a.state].filter(Boolean).join(', ') + (a.pincode ? ` - ${a.pincode}` : '')].filter((l): l is string => !!l && l.trim() !== '');

/**
 * Builds the invoice of an order from today's data: the seller's tax profile, the order's customer and delivery
 * address, and its lines with the products' HSN codes and units. Every statement names the company on every table
 * it reads (Citus routes each to the company's shard). Place of supply is the delivery state, else the state on the
 * customer's record, else the seller's own state (goods handed over there).
 */
export async function buildInvoiceDocument(db: Db, companyId: string, orderId: string, profile: TaxProfile | undefined): Promise<InvoiceDocument> {
  const order = await findInvoiceParty(db, companyId, orderId);
  if (!order) throw new Error(`order ${orderId} vanished`);
  const lines = await findInvoiceLines(db, companyId, orderId);

  const sellerState = profile ? gstState(profile.state) : null;
  const delivery = order.delivery_address;
  const buyerState = gstState(delivery?.state ?? order.state) ?? sellerState;
  const registered = !!profile?.gstin;
  const taxKind: TaxKind = !registered ? 'none' : buyerState?.code === sellerState?.code ? 'intra' : 'inter';
  // A line's amount is what the buyer pays for it: its value less its share of the discount plus its share of the
  // shipping (a composite supply with the goods, taxed at their rate: checkout/totals.ts); the GST is taken out of that.
  const taxed = lines.map((l) => ({
    description: l.name,
    sku: l.sku,
    hsn_code: l.hsn_code,
    quantity: qty(l.quantity),
    unit: l.unit,
    unit_price: l.unit_price,
    value: money(l.line_total),
    discount: money(l.discount),
    shipping: money(l.shipping),
    ...taxLine(new Decimal(l.line_total).minus(l.discount).plus(l.shipping), l.tax_rate, taxKind),
  }));
  const sum = (key: 'value' | 'discount' | 'shipping') => money(taxed.reduce((acc, l) => acc.plus(l[key]), new Decimal(0)));
  const totals = { ...taxTotals(taxed), value: sum('value'), discount: sum('discount'), shipping: sum('shipping') };
  return {
    v: 1,
    seller: {
      legal_name: profile?.legal_name ?? order.company_name,
      trade_name: profile?.trade_name ?? null,
      gstin: profile?.gstin ?? null,
      address: profile ? addressLines({ line1: profile.address_line1, line2: profile.address_line2, ...profile }) : [],
      state: sellerState?.name ?? null,
      state_code: sellerState?.code ?? null,
    },
    buyer: {
      name: delivery?.name ?? order.name,
      phone: delivery?.phone ?? order.phone_e164,
      address: delivery ? addressLines(delivery) : addressLines({ ...order, line1: order.address_line1, line2: order.address_line2 }),
    },
    place_of_supply: buyerState ? { state: buyerState.name, state_code: buyerState.code } : null,
    tax_kind: taxKind,
    order_number: order.order_number,
    order_date: new Date(order.created_at).toISOString(),
    lines: taxed,
    tax_table: registered ? taxByRate(taxed) : [],
    totals,
    reverse_charge: false,
    amount_in_words: rupeesInWords(totals.total),
  };
}
