import { z } from 'zod';
import { requiredAs } from './orders.js';

/** Every event type a webhook may subscribe to, in the order docs/webhooks.md lists them. */
export const EVENT_TYPES = [
  'order.created',
  'order.status_changed',
  'order.cod_confirmation_requested',
  'order.cod_confirmation_settled',
  'shipment.updated',
  'invoice.issued',
  'payment.recorded',
  'customer.messaging_opt_out_changed',
  'order.payment_link_paid',
  'customer.consent_changed',
  'customer.erasure_scheduled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Stands for every event type in a subscription: REST `events: ["all"]` and CLI `--events all` alike. */
export const ALL_EVENTS = 'all';
/** What a subscription may list: the event types, or `all`. */
export const EVENT_CHOICES = [...EVENT_TYPES, ALL_EVENTS] as const;

/**
 * The event types a subscription lists, once each; `all` means every type known when the endpoint is added (the
 * types are stored, so a type added later is not sent to an existing endpoint unannounced).
 */
export function subscribedEvents(listed: readonly (typeof EVENT_CHOICES)[number][]): EventType[] {
  return listed.includes(ALL_EVENTS) ? [...EVENT_TYPES] : [...new Set(listed as readonly EventType[])];
}

/** Endpoints a company may have at once (removed ones do not count). */
export const MAX_WEBHOOK_ENDPOINTS = 10;
export const MAX_WEBHOOK_URL = 2048;

export const createWebhookBody = z.object({
  url: z
    .string({ error: requiredAs('the https:// URL to deliver to') })
    .trim()
    .min(1, 'must not be empty')
    .max(MAX_WEBHOOK_URL, `must be at most ${MAX_WEBHOOK_URL} characters`)
    .describe('Where events are POSTed: an https:// URL that does not point at a loopback, private, link-local or metadata address.'),
  events: z
    .array(z.enum(EVENT_CHOICES, { error: `must be one of ${EVENT_TYPES.join(', ')}, or ${ALL_EVENTS}` }), { error: requiredAs('an array of event types') })
    .min(1, 'must list at least one event type')
    .max(EVENT_CHOICES.length, `must list at most ${EVENT_CHOICES.length} event types`)
    .transform(subscribedEvents)
    .describe(`Event types to receive: ${EVENT_TYPES.join(', ')}; or ["${ALL_EVENTS}"] for every one of them.`),
  description: z
    .string({ error: 'must be a string' })
    .trim()
    .max(200, 'must be at most 200 characters')
    .nullish()
    .describe('Optional note for people, max 200 characters.'),
});
export type CreateWebhookBody = z.output<typeof createWebhookBody>;

export const webhookIdParams = z.object({ id: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters').describe('Endpoint id') });

export const webhookEndpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.string()),
  status: z.enum(['active', 'disabled']).describe('`disabled` after failing for days without a success; it receives nothing until added again.'),
  disabled_reason: z.string().nullable(),
  failing_since: z.string().nullable().describe('Since when deliveries to it have failed without a success; null when healthy.'),
  created_at: z.string(),
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

export const createdWebhookSchema = webhookEndpointSchema.extend({
  secret: z.string().describe('The signing secret, shown this once only. Keep it to check X-Webhook-Signature.'),
});
