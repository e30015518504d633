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

/**
 * The one zod-issue mapper: issues -> `{ path, message }` in the spec's notation (`items[0].quantity`).
 * `root` names an issue about the whole input; `under` prefixes each path when the input was a part of something larger.
 */
export function issuesToDetails(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
  root = '',
  under: ReadonlyArray<PropertyKey> = [],
): FieldIssue[] {
  return issues.map((i) => ({ path: fieldPath([...under, ...i.path]) || root || '(body)', message: i.message }));
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

const nullTaking = new WeakSet<z.ZodType>();

/** One optional field that also takes `null`, read as not given: the field's own absent value (its default, if any). */
function nullAsAbsent(field: z.ZodType): z.ZodType {
  if (nullTaking.has(field)) return field;
  const meta = z.globalRegistry.get(field);
  // The description is stated once, on the field, not again inside its anyOf.
  const inner = meta?.description === undefined ? field : field.meta({ description: undefined });
  const wrapped = inner.nullable().transform((v) => (v === null ? inner.parse(undefined) : v));
  const out = meta ? wrapped.meta(meta) : wrapped;
  nullTaking.add(out);
  return out;
}

/**
 * Agents on strict function-calling schemas send every property, with `null` for those they do not use.
 * Every optional field of this object takes `null` as "not given" (its default applies); required fields
 * still refuse it, naming the field. Published JSON Schemas show such fields as nullable and optional.
 * Apply it where an object is declared (nested objects too) rather than writing `.nullish()` per field.
 */
export function nullsAsAbsent<T extends z.ZodObject>(schema: T): T {
  const shape = Object.fromEntries(
    Object.entries(schema.shape as Record<string, z.ZodType>).map(([key, field]) => [key, field.isOptional() ? nullAsAbsent(field) : field]),
  );
  return schema.extend(shape) as unknown as T;
}
