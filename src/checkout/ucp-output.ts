import type { UcpMessage, UcpTotal } from '../contract/ucp-checkout.js';
import { UCP_VERSION } from '../contract/ucp-wire.js';
import type { CheckoutView } from './checkout.service.js';
import type { ProfileHandler } from './ucp-profile.js';
import { amountOf } from './totals.js';
import type { UcpBusiness } from './ucp-settings.service.js';

/**
 * A checkout as UCP 2026-01-11 writes it, member by member (nothing of ours leaks by accident). Amounts are the paise
 * checkout/totals.ts turned them into; a discount is a positive amount of type `discount`; no `tax` total is added to
 * the sum, since prices include GST (the GST the total contains is shown as a `tax` line's display, not added).
 */

const CAPABILITIES = ['dev.ucp.shopping.checkout', 'dev.ucp.shopping.fulfillment', 'dev.ucp.shopping.discount', 'dev.ucp.shopping.buyer_consent'];

export function checkoutOut(view: CheckoutView, business: UcpBusiness, handlers: ProfileHandler[]): Record<string, unknown> {
  const { record, totals } = view;
  const totalsOut: UcpTotal[] = [{ type: 'subtotal', display_text: 'Subtotal', amount: totals.subtotal.paise }];
  if (totals.fulfillment) totalsOut.push({ type: 'fulfillment', display_text: 'Shipping', amount: totals.fulfillment.paise });
  for (const d of totals.discounts) totalsOut.push({ type: 'discount', display_text: d.title, amount: d.amount.paise });
  totalsOut.push({ type: 'total', display_text: 'Total', amount: totals.total.paise });

  const links = [
    ...(business.privacyUrl ? [{ type: 'privacy_policy', url: business.privacyUrl }] : []),
    ...(business.termsUrl ? [{ type: 'terms_of_service', url: business.termsUrl }] : []),
  ];
  const out: Record<string, unknown> = {
    ucp: { version: UCP_VERSION, capabilities: CAPABILITIES.map((name) => ({ name, version: UCP_VERSION })) },
    id: record.id,
    status: view.status,
    currency: record.currency,
    line_items: record.line_items.map((l, i) => ({
      id: l.id,
      item: { id: l.item_id, title: l.title, price: amountOf(l.unit_price).paise },
      quantity: l.quantity,
      totals: [
        { type: 'subtotal', amount: totals.lines[i].subtotal.paise },
        { type: 'total', amount: totals.lines[i].subtotal.paise },
      ],
    })),
    totals: totalsOut,
    links,
    expires_at: record.expires_at.toISOString(),
    payment: {
      handlers,
      ...((record.payment as { selected_instrument_id?: string } | null)?.selected_instrument_id
        ? { selected_instrument_id: (record.payment as { selected_instrument_id: string }).selected_instrument_id }
        : {}),
      instruments: [],
    },
    fulfillment: {
      methods: view.methods.map((m) => ({
        id: m.id,
        type: m.type,
        line_item_ids: m.line_item_ids,
        ...(m.destinations ? { destinations: m.destinations } : {}),
        ...(m.selected_destination_id ? { selected_destination_id: m.selected_destination_id } : {}),
        groups: m.groups.map((g) => ({
          id: g.id,
          line_item_ids: g.line_item_ids,
          ...(m.options.length
            ? {
                options: m.options.map((o) => ({
                  id: o.id,
                  title: o.title,
                  ...(o.description ? { description: o.description } : {}),
                  totals: [
                    { type: 'subtotal', amount: o.price.paise },
                    { type: 'total', amount: o.price.paise },
                  ],
                })),
              }
            : {}),
          ...(g.selected_option_id ? { selected_option_id: g.selected_option_id } : {}),
        })),
      })),
    },
    discounts: {
      codes: view.discounts.codes,
      applied: totals.discounts.map((d) => ({
        code: d.code,
        title: d.title,
        amount: d.amount.paise,
        allocations: [{ path: "$.totals[?(@.type=='subtotal')]", amount: d.amount.paise }],
      })),
    },
  };
  if (record.buyer) out.buyer = record.buyer;
  if (view.messages.length) out.messages = view.messages satisfies UcpMessage[];
  if (record.order_id) out.order = { id: record.order_id };
  return out;
}
