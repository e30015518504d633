import { z } from 'zod';

/**
 * Consent shapes shared by the customer and order contracts (zod only, so orders.ts and customers.ts both import it).
 * What a customer consents to, on which channel (customer_consents, migration 0032), in the order answers list them. */
export const CONSENT_PURPOSES = ['order_updates', 'marketing'] as const;
export const CONSENT_CHANNELS = ['messaging', 'email'] as const;
export const CONSENT_STATES = ['given', 'withdrawn'] as const;

const perChannel = <T extends z.ZodType>(value: T) => z.object({ messaging: value, email: value });

/** The customer's state per purpose and channel: the newest record, `not_asked` when there is none. */
export const consentStatesSchema = z
  .object({
    order_updates: perChannel(z.enum([...CONSENT_STATES, 'not_asked'])),
    marketing: perChannel(z.enum([...CONSENT_STATES, 'not_asked'])),
  })
  .describe("The customer's consent per purpose (order_updates, marketing) and channel (messaging, email): given, withdrawn, or not_asked (never recorded).");

/** What the flow may send the customer now, per purpose and channel. */
export const maySendSchema = z
  .object({
    order_updates: perChannel(z.boolean()).describe('Messages needed to fulfil an order (a legitimate use): true unless the customer withdrew them.'),
    marketing: perChannel(z.boolean()).describe('Offers and news: true only when the customer gave consent for that channel.'),
  })
  .describe('What may be sent to the customer now, per purpose and channel; all false for an erased customer. Check it before sending anything.');

/**
 * POST /orders' and place_order's optional marketing consent, as the customer answered while ordering: true records
 * consent given on that channel, false withdrawn, absent records nothing. Order updates need no consent.
 */
export const marketingConsentInput = z
  .object(
    {
      messaging: z.boolean({ error: 'must be true or false' }).nullish(),
      email: z.boolean({ error: 'must be true or false' }).nullish(),
    },
    { error: 'must be an object { messaging, email } of true or false' },
  )
  .nullish()
  .describe(
    "Optional: the customer's own answer to marketing messages, asked while ordering: messaging and/or email, true (agreed) or false (declined); leave a channel out when the customer was not asked. Order updates need no consent.",
  );
export type MarketingConsentInput = z.output<typeof marketingConsentInput>;
