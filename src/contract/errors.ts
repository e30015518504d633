/**
 * The one error catalogue: every code the API can answer with and its HTTP status.
 * The error handler and the OpenAPI document both read it, so they cannot drift.
 */
export const errorCatalogue = {
  validation_failed: { status: 400, description: 'Invalid request; details lists { path, message }' },
  unauthorized: { status: 401, description: 'Missing, malformed, unknown or revoked API key' },
  forbidden: {
    status: 403,
    description: 'Company account inactive, plan excludes orders and inventory, key lacks the permission, or an Origin header not in ALLOWED_ORIGINS',
  },
  not_found: { status: 404, description: 'No such resource in this company' },
  method_not_allowed: { status: 405, description: 'Method not allowed (code validation_failed)' },
  insufficient_stock: { status: 409, description: 'Not enough stock to fill an order; nothing created' },
  conflict: {
    status: 409,
    description: "The name is taken by another company (a UCP host), or an order's COD confirmation was already settled the other way; nothing changed",
  },
  payload_too_large: { status: 413, description: 'Body too large (code validation_failed)' },
  unsupported_media_type: { status: 415, description: 'Body not application/json (code validation_failed)' },
  unprocessable: {
    status: 422,
    description:
      "Company has no active stock location, the external_reference belongs to an order staff are preparing, or a COD order breaks the company's COD rules (details name each rule); nothing created. Or an order asked no COD confirmation was answered one",
  },
  rate_limited: { status: 429, description: 'Rate limit exceeded; wait Retry-After seconds' },
  internal: { status: 500, description: 'Server fault; safe to retry' },
  unavailable: { status: 503, description: 'Service overloaded or temporarily unavailable; nothing was done, retry after Retry-After seconds' },
} as const;

export type ErrorKind = keyof typeof errorCatalogue;

/** The `code` callers branch on. 405/413/415 are validation failures in the spec's words. */
export function wireCode(kind: ErrorKind): string {
  switch (kind) {
    case 'method_not_allowed':
    case 'payload_too_large':
    case 'unsupported_media_type':
      return 'validation_failed';
    default:
      return kind;
  }
}

export interface FieldIssue {
  path: string;
  message: string;
}

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;

  constructor(kind: ErrorKind, message: string, details?: unknown, headers?: Record<string, string>) {
    super(message);
    this.name = 'AppError';
    this.kind = kind;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return errorCatalogue[this.kind].status;
  }

  toBody(): ErrorBody {
    return errorBody(this.kind, this.message, this.details);
  }
}

export function errorBody(kind: ErrorKind, message: string, details?: unknown): ErrorBody {
  const error: ErrorBody['error'] = { code: wireCode(kind), message };
  if (details !== undefined) error.details = details;
  return { error };
}

/** The first few problems in words, so a person reading only the message knows what to fix. */
function summarise(details: FieldIssue[]): string {
  if (details.length === 1) return `${details[0].path}: ${details[0].message}`;
  const shown = details
    .slice(0, 3)
    .map((d) => `${d.path}: ${d.message}`)
    .join('; ');
  return `${details.length} fields are invalid: ${shown}${details.length > 3 ? `; and ${details.length - 3} more in details` : ''}`;
}

export const validationError = (details: FieldIssue[], message?: string) => new AppError('validation_failed', message ?? summarise(details), details);

export const notFound = (message: string, details?: unknown) => new AppError('not_found', message, details);

/**
 * PostgreSQL refuses a NUL character in text (22021) and in JSON (22P05), and a lone UTF-16 surrogate
 * (`"\\ud800"`) in JSON (22P02, "invalid input syntax for type json"): that is the caller's input, not a
 * server fault, so it is a 400 rather than a 500 (found by the hostile-input tests).
 */
export function inputRefusedByDatabase(err: unknown): AppError | undefined {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  const badJson = code === '22P02' && typeof message === 'string' && message.startsWith('invalid input syntax for type json');
  if (code !== '22021' && code !== '22P05' && !badJson) return undefined;
  return validationError([{ path: '(request)', message: 'text must be valid Unicode without NUL (\\u0000) characters or unpaired surrogates' }]);
}
