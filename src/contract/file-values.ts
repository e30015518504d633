import { z } from 'zod';
import { Decimal } from '../lib/money.js';

/** The value rules of the catalogue file (catalogue-file.ts) and of the product's own fields (product-fields.ts). */

/** `places` decimals and as many integer digits as `max` has: a pattern a JSON Schema can publish. */
const decimalPattern = (max: string, places: number) => new RegExp(`^\\d{1,${max.split('.')[0].length}}(\\.\\d{1,${places}})?$`);

/**
 * A non-negative decimal as a string, or a plain JSON number taken by its text (so 0.1 stays 0.1), from 0 to `max`
 * with at most `places` decimals. One rule and one message for both forms, reported once; the bound is published
 * (the string's pattern, the number's maximum).
 */
export const decimal = (max: string, places: number, message: string) => {
  const pattern = decimalPattern(max, places);
  return z
    .union([z.string().meta({ pattern: pattern.source }), z.number().min(0, message).max(Number(max), message)], { error: message })
    .transform((v) => String(v).trim())
    .pipe(
      z
        .string()
        .regex(pattern, { error: message, abort: true })
        .refine((v) => new Decimal(v).lte(max), message),
    );
};

export const text = (max: number) => z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
export const optionalText = (max: number) =>
  z
    .string({ error: 'must be a string or null' })
    .trim()
    .max(max, `must be at most ${max} characters`)
    .nullish()
    .transform((v) => (v ? v : null));
