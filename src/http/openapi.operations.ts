import { z } from 'zod';
import { errorResponses } from '../contract/error-responses.js';
import { MAX_BATCH_MESSAGES, MCP_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION } from '../contract/mcp.js';

/** What the OpenAPI document says about one operation beyond its schemas. Keyed `METHOD /route-url`. */
export interface OperationDoc {
  tag: 'Catalogue' | 'Orders' | 'Customers' | 'Webhooks' | 'UCP business' | 'Cash on delivery' | 'Audit trail' | 'Privacy' | 'Agent tools (MCP)';
  operationId?: string;
  summary: string;
  description: string;
  /** Descriptions of responses by status. */
  responses?: Record<string, string>;
  requestExample?: unknown;
  responseExamples?: Record<string, unknown>;
}

const orderExample = {
  order_id: 'ord_06F3K2M9QXJ4T8VB2C5D7E9GHA',
  order_number: 'ORD-1001',
  order_status: 'confirmed',
  amount: '1997.00',
  currency: 'INR',
  created_at: '2026-10-14T09:30:12.345Z',
  external_reference: 'chat-7f3a9c21',
  items: [
    { sku: 'DT-OXF-SHIRT-WHI-M', name: 'Oxford Cotton Shirt - White / M', quantity: '2.000', unit_price: '899.00', line_total: '1798.00' },
    { sku: 'VG-KUMKUMADI-30', name: 'Kumkumadi Face Oil - 30 ml', quantity: '1.000', unit_price: '199.00', line_total: '199.00' },
  ],
  payment: 'cod',
  delivery_address: {
    name: null,
    line1: '12, 4th Cross, Indiranagar',
    line2: null,
    city: 'Bengaluru',
    state: 'Karnataka',
    pincode: '560038',
    phone: null,
  },
  cod_confirmation: null,
};

export const OPERATIONS: Record<string, OperationDoc> = {
  'GET /catalog/products': {
    tag: 'Catalogue',
    operationId: 'browseProducts',
    summary: 'Browse and search products',
    description:
      'Active products in alphabetical order, each with all its variants, prices (INR, GST included) and live stock. ' +
      "Page with `limit`/`offset` while `has_more` is true. To order, send a variant's `sku` as `items[].product_id`.",
    responses: { 200: 'A page of products' },
  },
  'GET /catalog/products/:id': {
    tag: 'Catalogue',
    operationId: 'getProduct',
    summary: 'Get one product in full',
    description:
      'One product with all its variants, stock and every photo (signed links valid 10 minutes). The id may be a product id or SKU, ' +
      "or a variant's SKU, id or barcode; `matched_variant_id` says which variant it named.",
    responses: { 200: 'The product' },
  },
  'GET /catalog/categories': {
    tag: 'Catalogue',
    operationId: 'listCategories',
    summary: 'List categories and brands',
    description:
      'Every category (with its parent) and brand, with the number of active products filed under each. Pass a `slug` to the `category` or `brand` filter of browse.',
    responses: { 200: 'Categories and brands' },
  },
  'POST /orders': {
    tag: 'Orders',
    operationId: 'placeOrder',
    summary: 'Create and confirm an order',
    description:
      'Creates a confirmed order and reserves stock. Prices come from the catalogue; never send one. The customer with `customer.phone` ' +
      'is used or created. `external_reference` is your unique id for the order: repeating it (after a timeout or a 500) returns the ' +
      'original order with `duplicate: true` and never creates a second one. A new order needs a new `external_reference`. ' +
      'A COD order (`payment: "cod"`) that breaks one of the company\'s COD rules (its delivery PIN code blocked, its amount above the ' +
      "maximum COD order value, the customer's returns to origin above the threshold) is refused with 422 `unprocessable`, `details` " +
      'naming each rule; nothing is created (ask GET /cod/availability before offering COD). ' +
      'Body up to 32 KB, `Content-Type: application/json`.',
    responses: {
      201: 'Created and confirmed; stock reserved',
      200: 'The external_reference was used before: the original order, nothing new created',
    },
    requestExample: {
      customer: { name: 'Asha Rao', phone: '+91 98765 43210', email: 'asha@example.com' },
      items: [
        { product_id: 'DT-OXF-SHIRT-WHI-M', quantity: 2 },
        { product_id: 'VG-KUMKUMADI-30', quantity: '1' },
      ],
      external_reference: 'chat-7f3a9c21',
      delivery_address: { line1: '12, 4th Cross, Indiranagar', city: 'Bengaluru', pincode: '560038' },
      payment: 'cod',
      notes: 'Call before delivery',
    },
    responseExamples: {
      201: { data: orderExample },
      200: { data: orderExample, duplicate: true },
      400: {
        error: {
          code: 'validation_failed',
          message:
            '2 fields are invalid: customer.phone: must be at least 7 characters; items[0].quantity: must be a number greater than 0 with at most 3 decimals, e.g. 2 or "2.5"',
          details: [
            { path: 'customer.phone', message: 'must be at least 7 characters' },
            { path: 'items[0].quantity', message: 'must be a number greater than 0 with at most 3 decimals, e.g. 2 or "2.5"' },
          ],
        },
      },
      404: {
        error: {
          code: 'not_found',
          message: "item not found or not for sale: NO-SUCH-SKU; send a variant's sku (or variant_id or barcode) from GET /catalog/products",
          details: ['NO-SUCH-SKU'],
        },
      },
      409: {
        error: {
          code: 'insufficient_stock',
          message: 'not enough stock: DT-OXF-SHIRT-WHI-M (requested 50.000, available 12.000)',
          details: [{ product_id: 'DT-OXF-SHIRT-WHI-M', requested: '50.000', available: '12.000' }],
        },
      },
      422: {
        error: {
          code: 'unprocessable',
          message: "cash on delivery is refused by the company's COD rules (max_order_value); nothing was created; place the order as prepaid",
          details: [
            {
              rule: 'max_order_value',
              path: 'items',
              message: 'cash on delivery is offered for orders up to 1500.00 INR; this one comes to 1997.00 INR; offer prepaid payment',
            },
          ],
        },
      },
    },
  },
  'GET /orders/:reference': {
    tag: 'Orders',
    operationId: 'getOrder',
    summary: 'Look up an order',
    description:
      'An order with its lines, shipment (null until a parcel is booked) and invoice. Draft orders are never returned. ' +
      'Pass `phone` whenever answering a customer: the order is returned only if it belongs to that number.',
    responses: { 200: 'The order' },
  },
  'POST /orders/:reference/cod-confirmation': {
    tag: 'Orders',
    operationId: 'answerCodConfirmation',
    summary: "Record the buyer's answer to a COD confirmation",
    description:
      'For a company that confirms cash-on-delivery orders before booking, a new COD order carries `cod_confirmation.status: pending` ' +
      'and no courier is booked until the buyer answers. `confirm`: the confirmation is settled and the courier booking queued ' +
      '(when the company books automatically and the order has an address). `decline`: the order is cancelled and its stock released. ' +
      'Either sends `order.cod_confirmation_settled` (and `order.status_changed` on a decline). Idempotent: the same answer again ' +
      'answers the order as it is and sends nothing; the other answer once settled is 409 `conflict`; an order asked nothing is 422. ' +
      'Pass `phone` whenever answering for a buyer: the order is found only if it belongs to that number (otherwise 404).',
    responses: { 200: 'The order as GET /orders/{reference} shows it, its confirmation settled' },
    requestExample: { answer: 'confirm', phone: '+91 98765 43210' },
  },
  'POST /orders/:reference/payment-link': {
    tag: 'Orders',
    operationId: 'createPaymentLink',
    summary: 'Payment link for a COD order (COD to prepaid)',
    description:
      "A Razorpay payment link for what a cash-on-delivery order still owes (the invoice's amount due once issued, else the order amount), " +
      'for an order not yet shipped. The service does not send it: send `short_url` to the buyer yourself. While the order has a live link ' +
      'for that amount it is answered again (200, `existing: true`) instead of a second one. When the link is paid the same order becomes ' +
      'prepaid (its number and reserved stock unchanged; `payment_reference` is the payment id) and the `order.payment_link_paid` event is sent. ' +
      'Pass `phone` when acting for a customer: only their order is found. 422 `unprocessable`: the order is prepaid, shipped, delivered, ' +
      'cancelled or returned, nothing is due, or the company has no payment provider (or its provider refused); 503: the provider did not answer, nothing was made.',
    responses: { 201: 'A new payment link', 200: 'The live link the order already had (`existing: true`)' },
    requestExample: { phone: '+91 98765 43210', expire_in_minutes: 1440 },
    responseExamples: {
      201: {
        data: {
          link_id: 'plink_Nq3Vx8sJmYb2Lk',
          order_id: orderExample.order_id,
          order_number: orderExample.order_number,
          short_url: 'https://rzp.io/i/AbC123xyZ',
          amount: orderExample.amount,
          currency: 'INR',
          status: 'created',
          expires_at: '2026-10-15T09:31:02.000Z',
          created_at: '2026-10-14T09:31:02.118Z',
        },
      },
    },
  },
  'GET /orders/:reference/whatsapp-messages': {
    tag: 'Orders',
    operationId: 'getOrderWhatsappMessage',
    summary: "An order's WhatsApp message, ready to send",
    description:
      'The WhatsApp Cloud API message body for the order, to POST as it is to `/{phone-number-id}/messages`: `type=order_details` is the bill ' +
      "(items by the retailer_id the Meta catalogue feed publishes, amounts as `{value, offset: 100}` adding up by Meta's rule, and the order's live payment " +
      "link, else the payment gateway configuration, else UPI intent); `type=order_status` is the order's current status. `template=true` gives the " +
      "company's approved template variant, for a customer outside the 24-hour window. Found as `GET /orders/{reference}` finds the order, `phone` included. " +
      '422 `unprocessable` when it cannot be built (nothing owed, no catalogue id, no way to pay, no template set), `details` naming what is missing.',
    responses: { 200: 'The message body', 422: 'The message cannot be built for this order; details name what is missing' },
  },
  'GET /customers': {
    tag: 'Customers',
    operationId: 'findCustomer',
    summary: 'Find a customer by phone',
    description:
      'The customer with this phone number, with their latest orders (newest first, without lines), their consent per purpose and channel ' +
      "(`consents`), what may be sent to them now (`may_send`: order updates unless withdrawn, marketing only with consent) and the company's " +
      'privacy notice (`privacy_notice_url`). Check `may_send` before sending anything.',
    responses: { 200: 'The customer' },
  },
  'PUT /customers/messaging-opt-out': {
    tag: 'Customers',
    operationId: 'setMessagingOptOut',
    summary: "Record a customer's messaging opt-out",
    description:
      'The customer with this phone asked to stop (`messaging_opted_out: true`) or to resume (`false`) messages from the company. ' +
      'Idempotent: sending the current value changes nothing (`changed: false`). A change is shown by GET /customers, order lookups and ' +
      'every later event, and sends the `customer.messaging_opt_out_changed` event. No customer with this phone: 404. Recorded as consent: ' +
      '`true` withdraws order updates and marketing on the messaging channel, `false` gives order updates back (marketing needs its own consent, ' +
      'POST /customers/consents).',
    responses: { 200: 'The customer as GET /customers shows it, and whether anything changed' },
    requestExample: { phone: '+91 98765 43210', messaging_opted_out: true },
  },
  'POST /customers/consents': {
    tag: 'Customers',
    operationId: 'setCustomerConsent',
    summary: "Record a customer's consent given or withdrawn",
    description:
      "The customer's own answer, relayed as they gave it: `purpose` `order_updates` or `marketing`, `channel` `messaging` or `email`, " +
      '`state` `given` or `withdrawn` (withdrawing is the same call as giving). Idempotent: the current state again changes nothing ' +
      '(`changed: false`, no event); a change is recorded with the time and the key and sends `customer.consent_changed`. ' +
      'Order updates need no consent (they are sent unless withdrawn); marketing is sent only with consent. No customer with this phone: 404.',
    responses: { 200: 'The customer as GET /customers shows it, and whether anything changed' },
    requestExample: { phone: '+91 98765 43210', purpose: 'marketing', channel: 'messaging', state: 'given' },
  },
  'POST /webhooks': {
    tag: 'Webhooks',
    operationId: 'createWebhook',
    summary: 'Add a webhook endpoint',
    description:
      'Needs a key with the `webhooks` permission (others get 403). Events of the listed types are POSTed to `url`, signed with ' +
      '`X-Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; the signing `secret` is in this answer only. ' +
      'The URL must be https and must not point at a loopback, private, link-local or metadata address (400 on `url`); redirects are ' +
      'not followed. At most 10 endpoints per company (422). Event types: order.created, order.status_changed, shipment.updated, ' +
      'invoice.issued, payment.recorded, customer.messaging_opt_out_changed, customer.consent_changed, order.cod_confirmation_requested, ' +
      'order.cod_confirmation_settled, order.payment_link_paid, customer.erasure_scheduled; see the webhooks guide for bodies and retries.',
    responses: { 201: 'Added; the secret is shown this once' },
    requestExample: { url: 'https://hooks.example.com/commerce', events: ['order.created', 'shipment.updated'], description: 'chat flow' },
  },
  'GET /webhooks': {
    tag: 'Webhooks',
    operationId: 'listWebhooks',
    summary: 'List webhook endpoints',
    description: "The company's endpoints (never their secrets); `disabled` ones failed for days and receive nothing. Needs the `webhooks` permission.",
    responses: { 200: 'The endpoints' },
  },
  'DELETE /webhooks/:id': {
    tag: 'Webhooks',
    operationId: 'deleteWebhook',
    summary: 'Remove a webhook endpoint',
    description: 'Nothing more is sent to it; deliveries still pending for it are given up. Needs the `webhooks` permission.',
    responses: { 200: 'Removed' },
  },
  'GET /ucp/settings': {
    tag: 'UCP business',
    operationId: 'getUcpSettings',
    summary: "The company's UCP business settings",
    description:
      'Whether AI agents can discover the company and check out over the Universal Commerce Protocol (UCP), how long a checkout ' +
      'holds its stock, the policy links checkouts show, and the address of the company’s UCP profile (404 while `enabled` is false). ' +
      'Defaults until first set: off, 30 minutes, no links. Needs a key with the `ucp` permission (others get 403).',
    responses: { 200: 'The settings' },
  },
  'PUT /ucp/settings': {
    tag: 'UCP business',
    operationId: 'setUcpSettings',
    summary: "Change the company's UCP business settings",
    description:
      'Changes the fields sent; a field left out keeps its value, `null` removes a link. `hold_minutes` is 1 to 1440; links are ' +
      'https URLs. Turning the business off makes its profile and endpoints answer 404 from the next request. Needs the `ucp` permission.',
    responses: { 200: 'The settings as they are now' },
    requestExample: { enabled: true, hold_minutes: 30, privacy_url: 'https://shop.example.in/privacy', terms_url: 'https://shop.example.in/terms' },
  },
  'GET /ucp/hosts': {
    tag: 'UCP business',
    operationId: 'listUcpHosts',
    summary: "The company's UCP hosts",
    description: "Host names of the company's own whose `/.well-known/ucp` answers with its UCP profile. Needs the `ucp` permission.",
    responses: { 200: 'The hosts, by name' },
  },
  'POST /ucp/hosts': {
    tag: 'UCP business',
    operationId: 'addUcpHost',
    summary: 'Register a UCP host',
    description:
      'Requests to `https://<host>/.well-known/ucp` reaching this service (the domain pointed at it, or proxied) get the company’s ' +
      'profile while its UCP business is on; any other host gets 404. The host is lower-cased; a port, when given, is part of it. ' +
      'Registering a host the company already has answers it unchanged; a host another company registered is 409 `conflict`. ' +
      'Needs the `ucp` permission.',
    responses: { 201: 'The host, registered for the company' },
    requestExample: { host: 'shop.example.in' },
  },
  'DELETE /ucp/hosts/:host': {
    tag: 'UCP business',
    operationId: 'removeUcpHost',
    summary: 'Remove a UCP host',
    description: 'Its `/.well-known/ucp` answers 404 from the next request. A host the company has not registered: 404. Needs the `ucp` permission.',
    responses: { 200: 'Removed' },
  },
  'GET /cod/availability': {
    tag: 'Cash on delivery',
    operationId: 'checkCodAvailability',
    summary: 'Is cash on delivery available?',
    description:
      "Read-only: whether a COD order with this delivery PIN code, customer phone and amount would be accepted now under the company's COD " +
      'rules (blocked PIN codes, maximum COD order value, returns to origin above a threshold), and if not, which rules refuse it. ' +
      'Placing the order (POST /orders with `payment: "cod"`) applies the same evaluation and answers 422 `unprocessable` naming the same rules. ' +
      'Each parameter is optional: a rule the company has set whose parameter is left out is listed in `not_checked`. Any key.',
    responses: { 200: 'Whether COD is available, and the rules that refuse it' },
    responseExamples: {
      200: {
        data: {
          available: false,
          refusals: [{ rule: 'blocked_pincode', message: 'cash on delivery is not offered for PIN code 560038; offer prepaid payment' }],
          not_checked: [],
        },
      },
    },
  },
  'GET /cod/settings': {
    tag: 'Cash on delivery',
    operationId: 'getCodSettings',
    summary: "The company's cash-on-delivery settings",
    description:
      'Whether a COD order is confirmed with the buyer before a courier is booked (and within how many minutes, and what happens when the time is ' +
      'up), and the COD rules: blocked PIN codes and ranges, the maximum COD order value, the returns-to-origin threshold. Defaults until first ' +
      'set: no confirmation, 1440 minutes, cancel, no rule. Needs a key with the `cod` permission (others get 403).',
    responses: { 200: 'The settings' },
  },
  'PUT /cod/settings': {
    tag: 'Cash on delivery',
    operationId: 'setCodSettings',
    summary: "Change the company's cash-on-delivery settings",
    description:
      'Changes the fields sent; a field left out keeps its value, `null` removes a limit. `confirm_within_minutes` is 5 to 10080; ' +
      '`blocked_pincodes` (at most 500) replaces the list, each a 6-digit PIN or an inclusive range low to high, stored once each and sorted; ' +
      '`max_order_value` is rupees as a string above 0 with at most 2 decimals; `rto_threshold` 0 to 1000. The rules apply to COD orders ' +
      'placed from the next request. Needs the `cod` permission.',
    responses: { 200: 'The settings as they are now' },
    requestExample: { confirm_before_booking: true, blocked_pincodes: ['110001-110099', '560038'], max_order_value: '4999', rto_threshold: 2 },
  },
  'GET /privacy/customer-data': {
    tag: 'Customers',
    operationId: 'getCustomerData',
    summary: "Everything held about a customer (the DPDP Act's right of access)",
    description:
      'One JSON document of everything the company holds about the customer found by `phone` or `customer_id` (exactly one): the record, the ' +
      'consent history, every order with its lines, delivery address, shipment and its events, invoice and credit note (numbers, amounts), ' +
      'payments, payment links and COD confirmation, the checkout sessions of its orders and its open ones, and the events about the customer ' +
      'and its orders. Recorded in the audit trail (`customer.accessed`). Needs a key with the `privacy` permission (others get 403).',
    responses: { 200: 'The document', 404: 'No customer with this phone or id in this company' },
  },
  'POST /privacy/corrections': {
    tag: 'Customers',
    operationId: 'correctCustomerData',
    summary: "Correct a customer's name, e-mail or address",
    description:
      'Corrects the fields sent (at least one of `name`, `email`, `address`, validated as POST /orders validates them) on the customer found by ' +
      "`phone` or `customer_id`. A corrected address also replaces the delivery address of the customer's orders not yet shipped (draft, " +
      'confirmed, packed); shipped and finished orders keep theirs. Recorded in the audit trail (`customer.corrected`, field names only). ' +
      'An erased customer: 409. Needs the `privacy` permission.',
    responses: { 200: 'What was corrected', 404: 'No customer with this phone or id in this company', 409: 'The customer was erased' },
    requestExample: { phone: '+91 98765 43210', name: 'Asha R. Rao', address: { line1: '14 MG Road', city: 'Bengaluru', pincode: '560001' } },
  },
  'POST /privacy/erasures': {
    tag: 'Customers',
    operationId: 'eraseCustomerData',
    summary: "Erase a customer's personal data",
    description:
      "Removes or irreversibly anonymises the customer's personal data everywhere it is held (record, orders' delivery addresses, events, " +
      'checkout sessions, saved addresses, payment payloads, idempotent answers, drawn invoice PDFs, free-text notes), in one transaction, and ' +
      'answers what was erased per table and what is retained and why (invoices and books of account under the CGST Act; an invoice of ' +
      "₹50,000 or more keeps the recipient's name and address, CGST Rule 46(f)). A customer with an order not yet delivered is refused (409, " +
      'details list the orders) unless `cancel_open_orders` is true: drafts, confirmed and packed orders are then cancelled, shipped ones go on. ' +
      'Again for the same customer: 200 with `already_erased: true`, nothing changed. The erased customer is no longer found by phone; a new ' +
      'order with that phone creates a new customer. Recorded in the audit trail (`customer.erased`). Needs the `privacy` permission.',
    responses: {
      200: 'The erasure report',
      404: 'No customer with this phone or id in this company',
      409: 'The customer has orders not yet delivered (send cancel_open_orders: true)',
    },
    requestExample: { phone: '+91 98765 43210', cancel_open_orders: true },
  },
  'GET /audit': {
    tag: 'Audit trail',
    operationId: 'listAuditEntries',
    summary: "The company's audit trail, newest first",
    description:
      'Who did what and when: keys created and revoked, webhook endpoints, settings (COD, UCP, payments, courier…), catalogue imports and ' +
      "customers' data-rights actions, each with its actor (`cli` and the admin user, `key` and the key prefix, or `service` and the rule). " +
      'An entry never holds personal data nor a secret: its subject is an id and `detail` names the fields changed. Entries are never ' +
      "changed; they are deleted only after the company's audit retention period. Paged newest first by a cursor: pass `next_before` as " +
      '`before` while `has_more` is true. `limit` is 1 to 50 (default 20); `action` keeps one action. Needs a key with the `audit` permission (others get 403).',
    responses: { 200: 'A page of entries' },
    responseExamples: {
      200: {
        data: [
          {
            id: 'aud_06F3K2M9QXJ4T8VB2C5D7E9GHA',
            at: '2026-10-14T09:30:12.345Z',
            actor: { kind: 'cli', name: 'asha' },
            action: 'key.created',
            subject: { kind: 'key', id: 'key_06F3K2M9QXJ4T8VB2C5D7E9GHB' },
            detail: { prefix: 'cok_AbCdEfGh1234', name: 'inventory sync', permissions: ['commerce', 'catalogue'] },
          },
        ],
        count: 1,
        limit: 20,
        has_more: true,
        next_before: '41',
      },
    },
  },
  'GET /privacy/settings': {
    tag: 'Privacy',
    operationId: 'getPrivacySettings',
    summary: "The company's privacy settings: notice link and retention",
    description:
      "The company's privacy notice link and how long the retention worker keeps each kind of row: delivered events and their webhook " +
      'deliveries, finished jobs and UCP order events, ended checkouts, audit entries; and whether customers inactive for some years are ' +
      'anonymised. Defaults until first set: no link, 30 days, 30 days, 30 days, never, 1095 days. Needs a key with the `privacy` permission (others get 403).',
    responses: { 200: 'The settings' },
  },
  'PUT /privacy/settings': {
    tag: 'Privacy',
    operationId: 'setPrivacySettings',
    summary: "Change the company's privacy settings",
    description:
      'Changes the fields sent; a field left out keeps its value. `notice_url` is an https link of at most 2000 characters (`null` removes it); ' +
      'the three retention periods in days are 1 to 3650; `inactive_customer_years` 1 to 20 (`null`: never); `audit_retention_days` 365 to 3650. ' +
      'The retention worker applies them at its next pass. Each change is recorded in the audit trail. Needs the `privacy` permission.',
    responses: { 200: 'The settings as they are now' },
    requestExample: { notice_url: 'https://shop.example.in/privacy', events_retention_days: 90, inactive_customer_years: 3 },
  },
  'PUT /catalog/stock': {
    tag: 'Catalogue',
    operationId: 'setStock',
    summary: 'Set on-hand stock for many variants at once',
    description:
      'Needs a key with the `catalogue` permission (others get 403). Each row names a variant by `sku` or `barcode`, optionally a ' +
      'location `code` (default: the location that ships orders), and the units physically `on_hand`. Up to 5,000 rows, applied ' +
      'together in one transaction: every row is checked first and any problem (unknown SKU, barcode or location, a variant and location ' +
      'given twice) is a 400 naming the row, with nothing changed. Reservations of open orders are never touched: available stock is ' +
      'on_hand minus reserved, and levels left below what open orders reserved are listed in `short`.',
    responses: { 200: 'Applied: how many levels changed and which are short of open orders' },
    requestExample: {
      items: [
        { sku: 'DT-OXF-SHIRT-WHI-M', on_hand: '42' },
        { barcode: '8901234567890', location: 'STORE-BLR', on_hand: '3' },
      ],
    },
    responseExamples: { 200: { data: { rows: 2, updated: 2, unchanged: 0, short: [] } } },
  },
  'GET /mcp': {
    tag: 'Agent tools (MCP)',
    summary: 'Not supported (no SSE stream)',
    description: 'The MCP endpoint takes POST only; GET answers 405 with code `validation_failed`.',
  },
  'DELETE /mcp': {
    tag: 'Agent tools (MCP)',
    summary: 'Not supported (no sessions)',
    description: 'The MCP endpoint takes POST only; DELETE answers 405 with code `validation_failed`.',
  },
};

/** What an MCP tool shows the documentation: its name, and whether it is an older one kept for v1.0 agents. */
export interface ToolDoc {
  name: string;
  older?: boolean;
}

/** "Tools: a, b (and the older c, d). ", from the tool definitions (src/mcp/tools.ts) in their tools/list order. */
function toolsSentence(tools: readonly ToolDoc[]): string {
  const names = (older: boolean) => tools.filter((t) => (t.older ?? false) === older).map((t) => t.name);
  const kept = names(true);
  return `Tools: ${names(false).join(', ')}${kept.length > 0 ? ` (and the older ${kept.join(', ')})` : ''}. `;
}

/** POST /mcp, whose description lists the tools. */
export function mcpPostDoc(tools: readonly ToolDoc[]): OperationDoc {
  return {
    tag: 'Agent tools (MCP)',
    operationId: 'mcp',
    summary: 'Model Context Protocol endpoint (JSON-RPC 2.0)',
    description:
      `Streamable HTTP, stateless (no sessions), JSON responses; protocol revisions ${MODERN_PROTOCOL_VERSION} (no handshake: ` +
      '`server/discover`, a `_meta` envelope on every request, `Mcp-Method`/`Mcp-Name` headers that must match the body) ' +
      `and ${MCP_PROTOCOL_VERSIONS.join(', ')} (with \`initialize\`), on this one URL. ` +
      `JSON-RPC batches only under 2025-03-26 and 2024-11-05 (at most ${MAX_BATCH_MESSAGES} messages, each spending one request); otherwise 400. ` +
      toolsSentence(tools) +
      'Tool results are the REST response bodies as JSON text; a tool that cannot answer returns `isError: true` with the REST error object. ' +
      'Same API key and rate limit as REST: each `tools/call` counts as one request, whatever the revision; `server/discover`, `initialize`, `tools/list` and notifications do not. ' +
      `Under ${MODERN_PROTOCOL_VERSION} the tool list may be cached for an hour (\`ttlMs\`, \`cacheScope: public\`: it holds no company data); tool results carry no cache hint. ` +
      'Point an MCP client at this URL rather than calling it by hand.',
    responses: {
      200: 'JSON-RPC response (or an array of them for a batch)',
      400:
        'Body is not valid JSON (error shape); not a JSON-RPC message, or a batch refused (JSON-RPC error, id null); ' +
        `under ${MODERN_PROTOCOL_VERSION}: no \`_meta\` envelope, a revision not served, or \`Mcp-Method\`/\`Mcp-Name\` headers that differ from the body (JSON-RPC error -32020). ` +
        `A method ${MODERN_PROTOCOL_VERSION} does not have (such as \`initialize\` sent with its envelope) is 404 with JSON-RPC error -32601.`,
      202: 'Accepted: the request held only notifications or responses; no body',
    },
    requestExample: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'browse_catalog', arguments: { search: 'shirt', limit: 5 } } },
  };
}

const jsonRpcMessage = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    result: z.unknown().optional(),
    error: z.unknown().optional(),
  })
  .loose();

/**
 * Documentation-only schemas for the MCP routes: the body is JSON-RPC, checked by the MCP SDK itself
 * (which answers protocol errors in JSON-RPC), so the route declares no schema and this never validates.
 */
export function mcpOperationSchema(method: string): Record<string, unknown> {
  if (method !== 'POST') return { response: errorResponses([401, 403, 405, 429]) };
  return {
    body: z.union([jsonRpcMessage, z.array(jsonRpcMessage)]),
    response: {
      200: z.union([jsonRpcMessage, z.array(jsonRpcMessage)]),
      202: z.null(),
      ...errorResponses([401, 403, 413, 415, 429, 500]),
      // Malformed JSON is ours; a message that is not JSON-RPC is answered by the SDK in JSON-RPC.
      400: z
        .union([errorResponses([400])[400], jsonRpcMessage])
        .meta({ description: 'Body is not valid JSON (error shape); not a JSON-RPC message, or a batch refused (JSON-RPC error, id null)' }),
    },
  };
}
