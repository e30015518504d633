import { randomBytes } from 'node:crypto';
import type { CheckoutStatus } from '../db/schema/index.js';

/**
 * The page a checkout's `continue_url` opens while its buyer must pay on Razorpay: it loads Razorpay's checkout.js
 * and opens Razorpay Checkout for the checkout's Razorpay order. The page carries only what Razorpay Checkout is opened
 * with (the public key id, the order, its amount, the seller's name): nothing of the buyer, since anyone holding the
 * link can open it, and never a secret. Its CSP admits scripts from checkout.razorpay.com and our one inline script
 * (by nonce), Razorpay's frames and calls, and nothing else; it may not be framed.
 */

export const RAZORPAY_CHECKOUT_JS = 'https://checkout.razorpay.com/v1/checkout.js';

export interface PayPageFacts {
  status: CheckoutStatus;
  pay?: { keyId: string; providerOrderId: string; amountPaise: number; merchantName: string };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON safe inside a <script> element: no `<` can close it. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

const csp = (nonce: string) =>
  [
    "default-src 'none'",
    `script-src 'nonce-${nonce}' https://checkout.razorpay.com`,
    // checkout.js styles the frame it adds to the page
    "style-src 'unsafe-inline'",
    'img-src https://*.razorpay.com data:',
    'frame-src https://api.razorpay.com https://checkout.razorpay.com',
    'connect-src https://api.razorpay.com https://lumberjack.razorpay.com',
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;

const MESSAGES: Partial<Record<CheckoutStatus, string>> = {
  completed: 'This order is paid and confirmed. You can close this page.',
  canceled: 'This checkout was canceled or expired. Nothing more can be paid here.',
};

/** The page for a checkout (its facts from CheckoutService.payPage), with its CSP and a fresh nonce. */
export function payPage(facts: PayPageFacts): { html: string; csp: string } {
  const nonce = randomBytes(16).toString('base64');
  if (!facts.pay) {
    const text = MESSAGES[facts.status] ?? 'This checkout is not waiting for a payment.';
    return { csp: csp(nonce), html: page('Payment', `<p>${escapeHtml(text)}</p>`) };
  }
  const { keyId, providerOrderId, amountPaise, merchantName } = facts.pay;
  const options = { key: keyId, order_id: providerOrderId, amount: amountPaise, currency: 'INR', name: merchantName };
  const rupees = `₹${Math.floor(amountPaise / 100)}.${String(amountPaise % 100).padStart(2, '0')}`;
  const body =
    `<p id="state">Opening Razorpay Checkout for ${escapeHtml(rupees)}…</p>` +
    `<button id="pay" type="button">Pay ${escapeHtml(rupees)}</button>` +
    `<script type="application/json" id="options">${scriptJson(options)}</script>` +
    `<script nonce="${nonce}" src="${RAZORPAY_CHECKOUT_JS}"></script>` +
    `<script nonce="${nonce}">(function () {` +
    `var options = JSON.parse(document.getElementById('options').textContent);` +
    `var state = document.getElementById('state');` +
    `options.handler = function () { state.textContent = 'Payment received. The order is confirmed once Razorpay tells us; you can close this page.'; };` +
    `options.modal = { ondismiss: function () { state.textContent = 'The payment was not completed. Press Pay to try again.'; } };` +
    `function open() { new Razorpay(options).open(); }` +
    `document.getElementById('pay').addEventListener('click', open);` +
    `open();` +
    `})();</script>`;
  return { csp: csp(nonce), html: page(`Pay ${merchantName}`, body) };
}
