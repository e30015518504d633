import { z } from 'zod';
import { Decimal, money } from '../lib/money.js';
import { officialStateName, pinRange } from '../lib/pincode.js';
import { requiredAs } from './orders.js';

/** What staff send to set up a checkout's shipping rates and discount codes, and what they get back. */

export const SERVICE_LEVELS = ['standard', 'express'] as const;
export const ZONE_KINDS = ['pincodes', 'states', 'countries', 'everywhere'] as const;
export const DISCOUNT_KINDS = ['percentage', 'fixed'] as const;
export type ZoneKind = (typeof ZONE_KINDS)[number];

const requiredText = (max: number) =>
  z
    .string({ error: requiredAs('a string') })
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`);

/** Rupees as text with at most 2 decimals (numeric(12,2)), written back with two: "49" -> "49.00". */
const rupees = z
  .string({ error: requiredAs('an amount in rupees as a string, e.g. "49" or "49.50"') })
  .trim()
  .regex(/^\d{1,10}(\.\d{1,2})?$/, 'must be an amount in rupees with at most 2 decimals, e.g. "49" or "49.50"')
  .transform((v) => money(v));

/** A count as a number or digits ("100" from the command line). */
const count = z
  .union(
    [
      z.number(),
      z
        .string()
        .trim()
        .regex(/^\d{1,9}$/)
        .transform(Number),
    ],
    { error: 'must be a whole number from 1 to 1000000000' },
  )
  .pipe(z.number().int('must be a whole number').min(1, 'must be at least 1').max(1_000_000_000, 'must be at most 1000000000'));

const moment = z.iso.datetime({ offset: true, error: 'must be a date and time with its offset, e.g. "2026-12-01T00:00:00+05:30"' });

/**
 * A zone's values as stored, or what is wrong with them: PIN codes or ranges; Indian states by their official names
 * (any accepted spelling in); ISO country codes upper case; none for everywhere. Each value once.
 */
export function zoneValues(kind: ZoneKind, values: readonly string[]): { values: string[] } | { index: number | null; message: string } {
  if (kind === 'everywhere') return values.length === 0 ? { values: [] } : { index: null, message: 'must be empty for zone everywhere' };
  if (values.length === 0) return { index: null, message: `must list at least one value for zone ${kind}` };
  const out: string[] = [];
  for (const [index, value] of values.entries()) {
    const stored =
      kind === 'pincodes'
        ? pinRange(value)
        : kind === 'states'
          ? officialStateName(value)
          : /^[A-Za-z]{2}$/.test(value.trim())
            ? value.trim().toUpperCase()
            : null;
    if (stored === null) {
      const rule = {
        pincodes: 'a 6-digit PIN code or a range such as "110001-110099" (low to high)',
        states: 'an Indian state or union territory, e.g. "Karnataka"',
        countries: 'a 2-letter ISO country code, e.g. "IN" or "US"',
      }[kind];
      return { index, message: `must be ${rule}` };
    }
    if (!out.includes(stored)) out.push(stored);
  }
  return { values: out };
}

export const shippingRateInput = z
  .object({
    id: z
      .string({ error: requiredAs('the rate id, e.g. "std-ship"') })
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'must be 1-64 letters, digits, _ . or -, starting with a letter or digit')
      .describe('The option id buyers and agents see, e.g. "std-ship".'),
    title: requiredText(100).describe('What the buyer sees, e.g. "Standard Shipping"; " (Free)" is added when it is free.'),
    description: z
      .string({ error: 'must be a string' })
      .trim()
      .max(200, 'must be at most 200 characters')
      .nullish()
      .transform((v) => v || null)
      .describe('e.g. "Arrives in 3-5 days".'),
    level: z.enum(SERVICE_LEVELS, { error: `must be one of ${SERVICE_LEVELS.join(', ')}` }),
    zone_kind: z
      .enum(ZONE_KINDS, { error: `must be one of ${ZONE_KINDS.join(', ')}` })
      .describe('Per level, the most specific zone that holds a destination wins.'),
    zone_values: z
      .array(z.string({ error: 'must be a string' }), { error: 'must be a list of strings' })
      .max(500, 'must list at most 500 values')
      .default([]),
    price: rupees.describe('Rupees, GST included.'),
    free_above: rupees
      .nullish()
      .transform((v) => v ?? null)
      .describe('Free when the goods come to at least this (before discounts).'),
    free_skus: z
      .array(z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'))
      .max(100, 'must list at most 100 SKUs')
      .default([])
      .transform((skus) => [...new Set(skus)])
      .describe('Free when the cart holds any of these SKUs.'),
    active: z.boolean({ error: 'must be true or false' }).default(true),
  })
  .transform((rate, ctx) => {
    const zone = zoneValues(rate.zone_kind, rate.zone_values);
    if ('values' in zone) return { ...rate, zone_values: zone.values };
    ctx.addIssue({ code: 'custom', path: zone.index === null ? ['zone_values'] : ['zone_values', zone.index], message: zone.message });
    return z.NEVER;
  });
export type ShippingRateInput = z.output<typeof shippingRateInput>;

export const discountCodeInput = z
  .object({
    code: z
      .string({ error: requiredAs('the code, e.g. "WELCOME20"') })
      .trim()
      .toUpperCase()
      .regex(/^[A-Z0-9][A-Z0-9_-]{0,31}$/, 'must be 1-32 letters, digits, _ or -, starting with a letter or digit')
      .describe('What buyers type, in any case; stored upper case.'),
    title: requiredText(100).describe('What the buyer sees, e.g. "20% Off".'),
    kind: z.enum(DISCOUNT_KINDS, { error: `must be one of ${DISCOUNT_KINDS.join(', ')}` }),
    value: rupees.describe('percentage: percent off the goods (at most 100); fixed: rupees off.'),
    min_order: rupees
      .nullish()
      .transform((v) => v ?? null)
      .describe('The goods must come to at least this.'),
    starts_at: moment.nullish().transform((v) => v ?? null),
    ends_at: moment
      .nullish()
      .transform((v) => v ?? null)
      .describe('No longer valid from this moment.'),
    usage_limit: count
      .nullish()
      .transform((v) => v ?? null)
      .describe('Orders that may use it in all.'),
    per_customer_limit: count
      .nullish()
      .transform((v) => v ?? null)
      .describe('Orders one customer may use it on.'),
    active: z.boolean({ error: 'must be true or false' }).default(true),
  })
  .superRefine((d, ctx) => {
    if (new Decimal(d.value).lte(0)) ctx.addIssue({ code: 'custom', path: ['value'], message: 'must be more than 0' });
    if (d.kind === 'percentage' && new Decimal(d.value).gt(100))
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'must be at most 100 for a percentage' });
    if (d.starts_at && d.ends_at && new Date(d.ends_at) <= new Date(d.starts_at))
      ctx.addIssue({ code: 'custom', path: ['ends_at'], message: 'must be after starts_at' });
  });
export type DiscountCodeInput = z.output<typeof discountCodeInput>;

export const shippingRateSchema = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  level: z.enum(SERVICE_LEVELS),
  zone_kind: z.enum(ZONE_KINDS),
  zone_values: z.array(z.string()),
  price: z.string(),
  free_above: z.string().nullable(),
  free_skus: z.array(z.string()),
  active: z.boolean(),
  created_at: z.string(),
});
export type ShippingRate = z.infer<typeof shippingRateSchema>;

export const discountCodeSchema = z.object({
  code: z.string(),
  title: z.string(),
  kind: z.enum(DISCOUNT_KINDS),
  value: z.string(),
  min_order: z.string().nullable(),
  starts_at: z.string().nullable(),
  ends_at: z.string().nullable(),
  usage_limit: z.number().int().nullable(),
  per_customer_limit: z.number().int().nullable(),
  used_count: z.number().int(),
  active: z.boolean(),
  created_at: z.string(),
});
export type DiscountCode = z.infer<typeof discountCodeSchema>;
