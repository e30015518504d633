import type { z } from 'zod';
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
