import pino, { type LoggerOptions } from 'pino';
import { MASK, serializeRequest } from './log-request.js';

/**
 * What our logs may hold. API keys are redacted by path; customers' phone numbers, e-mail addresses and delivery
 * addresses (personal data under India's DPDP Act) never reach a log line at any level:
 * - request lines carry the route template, never the path as sent, and only the query values of paging and
 *   filters (`/orders/:reference?phone=***`, src/lib/log-request.ts); bodies are never logged;
 * - an error's text is scrubbed of anything shaped like a phone number or an e-mail address, and the fields where
 *   PostgreSQL repeats the values of a row (`detail`, `where`, `internalQuery`) are dropped.
 */

export const LOG_REDACT = ['req.headers.authorization', 'req.headers["x-api-key"]', 'headers.authorization', 'headers["x-api-key"]'];

// An e-mail address, and a run of 7 or more digits that may be broken by spaces, dots, dashes or brackets and may
// start with + (any way a phone number is written). Ids, order numbers and dates have letters or fewer digits.
const EMAIL = /[^\s@"'<>()[\],;:]+@[^\s@"'<>()[\],;:]+\.[A-Za-z]{2,}/g;
const PHONE = /\+?\d(?:[\s().-]{0,2}\d){6,}/g;

const DATE = /^\d{4}-\d{2}-\d{2}/;

/** Text with phone numbers and e-mail addresses masked (a date such as 2026-11-24 is kept). */
export function scrubText(text: string): string {
  return text.replace(EMAIL, MASK).replace(PHONE, (digits) => (DATE.test(digits) ? digits : MASK));
}

type SerializedError = ReturnType<typeof pino.stdSerializers.err> & Record<string, unknown>;
/** PostgreSQL error fields that repeat the values of a row or a statement. */
const ROW_FIELDS = ['detail', 'where', 'internalQuery', 'parameters', 'params'];

function scrubError(err: Error): SerializedError {
  const out = pino.stdSerializers.err(err) as SerializedError;
  for (const field of ROW_FIELDS) delete out[field];
  for (const [key, value] of Object.entries(out)) if (typeof value === 'string') out[key] = scrubText(value);
  return out;
}

export const LOG_SERIALIZERS = {
  req: serializeRequest,
  err: scrubError,
};

/** pino options for every logger of the service (server, tests, CLI workers): redaction and masking built in. */
export const logOptions = (level: string): LoggerOptions => ({ level, redact: LOG_REDACT, serializers: LOG_SERIALIZERS });
