import { UcpError } from '../contract/ucp-wire.js';
import type { PaymentInstrument } from '../contract/ucp-checkout.js';
import { RAZORPAY_HANDLER_ID, type HandlerDef } from './ucp-profile.js';

/**
 * What a completed checkout's order is paid with, decided from the instrument the platform handed over on complete
 * (UCP 2026-01-11 `payment_data`) and the handlers the business advertises:
 * - `cod`: cash on delivery, collected by the courier in India; nothing is taken now.
 * - `razorpay` (advertised when the company has a Razorpay account): paid later, on Razorpay's hosted checkout; the
 *   checkout waits for the payment (`hosted`).
 * - `mock_payment_handler` (advertised only with UCP_TEST_HANDLERS, for the conformance suite): a raw card or the
 *   token `success_token` is approved, any other token declined (402). It takes no money.
 * - a handler we advertise but do not process (the conformance suite's Google Pay and Shop Pay), or one we do not
 *   advertise: 400, naming `$.payment_data.handler_id`.
 * A binding that names another checkout is refused (a credential minted for one checkout is not spent on another).
 * Nothing here keeps or logs a credential: only the instrument's display fields are returned.
 */

/** The instrument as the checkout shows it once completed (no credential). */
export interface ShownInstrument {
  id: string;
  handler_id: string;
  type: string;
  brand?: string;
  last_digits?: string;
}

/** Paid now (or on delivery): the order is placed at once. */
export interface Settlement {
  payment: 'cod' | 'prepaid';
  /** the order's payment_reference */
  reference: string | null;
  instrument: ShownInstrument;
}

/** To be paid on the provider's hosted page: the buyer is handed over, the order placed when the payment arrives. */
export interface HostedSettlement {
  hosted: 'razorpay';
  instrument: ShownInstrument;
}

const HANDLER_PATH = '$.payment_data.handler_id';

export function settlePayment(
  handlers: readonly HandlerDef[],
  data: PaymentInstrument,
  checkout: { id: string; destinationCountry: string | undefined },
): Settlement | HostedSettlement {
  const handler = handlers.find((h) => h.id === data.handler_id);
  if (!handler) throw new UcpError(400, 'invalid_payment', `Payment handler ${data.handler_id} is not offered by this business`, HANDLER_PATH);
  const binding = (data.credential as { binding?: { checkout_id?: unknown } } | undefined)?.binding;
  if (binding?.checkout_id !== undefined && binding.checkout_id !== checkout.id)
    throw new UcpError(400, 'invalid_payment', 'The payment credential is bound to another checkout', '$.payment_data.credential.binding.checkout_id');
  const instrument = {
    id: data.id ?? `instr_${handler.id}`,
    handler_id: handler.id,
    type: data.type ?? (handler.id === 'cod' ? 'cod' : handler.id === RAZORPAY_HANDLER_ID ? 'hosted_checkout' : 'card'),
    ...(data.brand ? { brand: data.brand } : {}),
    ...(data.last_digits ? { last_digits: data.last_digits } : {}),
  };

  switch (handler.id) {
    case 'cod':
      if ((checkout.destinationCountry ?? 'IN').toUpperCase() !== 'IN')
        throw new UcpError(400, 'invalid_payment', 'Cash on delivery is offered for addresses in India only', HANDLER_PATH);
      return { payment: 'cod', reference: null, instrument };
    case RAZORPAY_HANDLER_ID:
      return { hosted: 'razorpay', instrument };
    case 'mock_payment_handler': {
      const credential = data.credential;
      const approved = credential?.type === 'card' || credential?.token === 'success_token';
      if (!approved) throw new UcpError(402, 'payment_declined', 'Payment declined (mock): insufficient funds');
      return { payment: 'prepaid', reference: `mock_${checkout.id}`, instrument };
    }
    default:
      throw new UcpError(400, 'invalid_payment', `Payment handler ${handler.id} is advertised for testing and takes no payment here`, HANDLER_PATH);
  }
}
