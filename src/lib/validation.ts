import { z } from 'zod';
import { validationError, type AppError, type FieldIssue } from './errors.js';

/** `['items', 2, 'quantity']` -> `items[2].quantity`, the way the spec names fields. */
export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number' || (typeof seg === 'string' && /^\d+$/.test(seg))) out += `[${String(seg)}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out;
}

export function issuesToDetails(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>, root = ''): FieldIssue[] {
  return issues.map((i) => ({ path: fieldPath(i.path) || root || '(body)', message: i.message }));
}

export function toValidationError(error: z.ZodError): AppError {
  return validationError(issuesToDetails(error.issues));
}

/**
 * An integer parameter, from a query string ("20") or a JSON tool call (20): the one rule for every integer
 * parameter. Decimal digits only, optionally signed and surrounded by spaces (" 5" is 5); an empty string
 * takes the default, like an absent parameter. "0x10", "1e1", "2.5", "abc" and a repeated parameter (an
 * array) are refused with a message naming the range.
 */
export function queryInt(min: number, max: number, fallback: number) {
  const message = `must be an integer from ${min} to ${max}`;
  return z
    .union(
      [
        z.number().int().min(min).max(max),
        z
          .string()
          .regex(/^\s*(-?\d{1,9})?\s*$/)
          .transform((v) => (v.trim() === '' ? fallback : Number(v))),
      ],
      { error: message },
    )
    .pipe(z.number().int(message).min(min, message).max(max, message))
    .default(fallback);
}
