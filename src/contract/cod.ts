import { z } from 'zod';
import { money } from '../lib/money.js';
import { pinRange } from '../lib/pincode.js';
import { phoneInput, PHONE_FORMAT, requiredAs } from './orders.js';

/**
 * Cash on delivery that converts (README "COD that converts"): the company's COD settings as its admin sets them (REST
 * with the `cod` permission, the CLI), and the read-only check a flow asks before offering COD.
 */

/** How long a COD confirmation may stay pending, in minutes (the cod_settings CHECK). */
export const CONFIRM_WITHIN_MINUTES = { min: 5, max: 10080, default: 1440 } as const;
export const ON_TIMEOUT = ['cancel', 'staff'] as const;
/** Blocked PIN codes and ranges a company may list (as sent, before duplicates are dropped). */
export const MAX_BLOCKED_PINCODES = 500;
/** The largest returns-to-origin threshold (a count of one customer's parcels). */
export const MAX_RTO_THRESHOLD = 1000;
/** The largest order value limit: numeric(14, 2). */
const MAX_VALUE_DIGITS = 12;

/** The rules a COD order can break, as `details[].rule` and the check's `refusals[].rule` name them. */
export const COD_RULES = ['blocked_pincode', 'max_order_value', 'rto_threshold'] as const;
export type CodRule = (typeof COD_RULES)[number];

const minutesRule = `must be an integer from ${CONFIRM_WITHIN_MINUTES.min} to ${CONFIRM_WITHIN_MINUTES.max}`;
const thresholdRule = `must be an integer from 0 to ${MAX_RTO_THRESHOLD}`;
const rupeesRule = `must be an amount in rupees greater than 0 with at most 2 decimals, as a string, e.g. "4999" or "4999.50"`;

/** Rupees as a string, above zero, at most 2 decimals; written back with two ("4999" → "4999.00"). */
const positiveRupees = z
  .string({ error: rupeesRule })
  .trim()
  // a non-zero digit somewhere: above zero
  .regex(new RegExp(`^(?=.*[1-9])\\d{1,${MAX_VALUE_DIGITS}}(\\.\\d{1,2})?$`), rupeesRule)
  .transform((v) => money(v));

/** PIN codes and ranges as stored: each checked (a range low to high), a range of one PIN written as the PIN, each once, sorted. */
const blockedPincodes = z
  .array(z.string({ error: 'must be a string' }), { error: 'must be a list of PIN codes or ranges, e.g. ["560001", "110001-110099"]' })
  .max(MAX_BLOCKED_PINCODES, `must list at most ${MAX_BLOCKED_PINCODES} PIN codes or ranges`)
  .transform((values, ctx) => {
    const out = new Set<string>();
    values.forEach((value, index) => {
      const stored = pinRange(value);
      if (stored === null)
        ctx.addIssue({ code: 'custom', path: [index], message: 'must be a 6-digit PIN code or a range such as "110001-110099" (low to high)' });
      else out.add(stored);
    });
    return [...out].sort();
  });

export const codSettingsBody = z
  .object({
    confirm_before_booking: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe("Confirm COD before booking: a new COD order waits for the buyer's yes before a courier is booked."),
    confirm_within_minutes: z
      .number({ error: minutesRule })
      .int(minutesRule)
      .min(CONFIRM_WITHIN_MINUTES.min, minutesRule)
      .max(CONFIRM_WITHIN_MINUTES.max, minutesRule)
      .optional()
      .describe(
        `How long a COD confirmation may stay pending, in minutes (${CONFIRM_WITHIN_MINUTES.min}–${CONFIRM_WITHIN_MINUTES.max}; default ${CONFIRM_WITHIN_MINUTES.default}).`,
      ),
    on_timeout: z
      .enum(ON_TIMEOUT, { error: 'must be "cancel" or "staff"' })
      .optional()
      .describe('What happens to an order whose confirmation is still pending when the time is up: cancelled (stock back) or left for staff.'),
    blocked_pincodes: blockedPincodes
      .optional()
      .describe(
        `PIN codes where COD is not offered: a PIN ("560001") or an inclusive range ("110001-110099"); at most ${MAX_BLOCKED_PINCODES}. The list replaces the one stored; [] removes them all.`,
      ),
    max_order_value: positiveRupees.nullable().optional().describe('The largest order amount (rupees, GST included) COD is offered for; null: no limit.'),
    rto_threshold: z
      .number({ error: thresholdRule })
      .int(thresholdRule)
      .min(0, thresholdRule)
      .max(MAX_RTO_THRESHOLD, thresholdRule)
      .nullable()
      .optional()
      .describe('A customer with more parcels returned to origin than this is not offered COD (0: any return refuses it); null: not checked.'),
  })
  .describe('The settings to change; a field left out keeps its value.');
export type CodSettingsInput = z.input<typeof codSettingsBody>;

export const codSettingsSchema = z.object({
  confirm_before_booking: z.boolean(),
  confirm_within_minutes: z.number().int(),
  on_timeout: z.enum(ON_TIMEOUT),
  blocked_pincodes: z.array(z.string()),
  max_order_value: z.string().nullable(),
  rto_threshold: z.number().int().nullable(),
  updated_at: z.string().nullable().describe('When the settings last changed; null while they are the defaults.'),
});
export type CodSettingsView = z.infer<typeof codSettingsSchema>;

const amountRule = 'must be an amount in rupees with at most 2 decimals, as a string, e.g. "1299.00"';

/** GET /cod/availability; also the `check_cod_availability` tool's parameters. Each is optional: a rule needing one left out is not checked. */
export const codAvailabilityQuery = z.object({
  pincode: z
    .string({ error: 'must be a string' })
    .trim()
    .regex(/^\d{6}$/, 'must be a 6-digit Indian PIN code, e.g. "560038"')
    .optional()
    .describe('The PIN code of the delivery address (six digits). Without it, blocked PIN codes are not checked.'),
  phone: phoneInput.optional().describe(`The customer's mobile number, for their returns to origin. Without it, that rule is not checked. ${PHONE_FORMAT}`),
  amount: z
    .string({ error: requiredAs(amountRule) })
    .trim()
    .regex(new RegExp(`^\\d{1,${MAX_VALUE_DIGITS}}(\\.\\d{1,2})?$`), amountRule)
    .optional()
    .describe('The order amount in rupees, GST included (what place_order would come to). Without it, the maximum COD order value is not checked.'),
});
export type CodAvailabilityQuery = z.output<typeof codAvailabilityQuery>;

export const codRefusalSchema = z.object({
  rule: z.enum(COD_RULES).describe('The rule that refuses COD: blocked_pincode, max_order_value or rto_threshold.'),
  message: z.string(),
});

export const codAvailabilitySchema = z.object({
  available: z.boolean().describe('Whether COD can be offered for what was given: no rule refuses it.'),
  refusals: z.array(codRefusalSchema).describe('Each rule that refuses COD; empty when available.'),
  not_checked: z
    .array(z.enum(COD_RULES))
    .describe('Rules the company has set that could not be checked because their parameter was left out; placing a COD order checks them.'),
});
export type CodAvailability = z.infer<typeof codAvailabilitySchema>;
