import type { LogFn, Logger, LoggerOptions } from 'pino';
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
const EMAIL = /[^\s@"'<>()[\],;:]{1,64}@[^\s@"'<>()[\],;:]{1,255}\.[A-Za-z]{2,}/g;
const PHONE = /\+?\d(?:[\s().-]{0,2}\d){6,}/g;

const DATE = /^(?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])/;
const DIGITS_7 = /(?:\d\D{0,2}){7}/;

/**
 * Text with phone numbers and e-mail addresses masked. A run that starts with a date such as 2026-11-24 keeps the date
 * (and a time's hour after it); what follows is masked when it is long enough to be a number (`2026-11-24 9845123456`).
 */
export function scrubText(text: string): string {
  return text.replace(EMAIL, MASK).replace(PHONE, (run) => {
    const date = DATE.exec(run)?.[0];
    if (!date) return MASK;
    const rest = run.slice(date.length);
    return DIGITS_7.test(rest) ? `${date}${rest.replace(PHONE, MASK)}` : run;
  });
}

/** PostgreSQL error fields that repeat the values of a row or a statement: dropped wherever they appear under `err`. */
const ROW_FIELDS = new Set(['detail', 'where', 'internalQuery', 'parameters', 'params']);

// Bounds on what one serializer may write, whatever it is handed: a log line stays small and a log call stays cheap.
const OUTPUT_BUDGET = 32_768; // characters of strings and keys, all told
const STRING_MAX = 4_096;
const DEPTH_MAX = 6;
const ITEMS_MAX = 50;
const UNREADABLE = '[unreadable]';

/** One walk over a value: what is left of the budget, and the objects already on the way (cycles). */
interface Walk {
  budget: number;
  seen: WeakSet<object>;
  /** scrub text and drop ROW_FIELDS (under `err`); elsewhere the serializer has masked what it writes */
  scrub: boolean;
}

/** A property read that a throwing getter or a hostile proxy cannot turn into a throw. */
function read(obj: object, key: PropertyKey): unknown {
  try {
    return (obj as Record<PropertyKey, unknown>)[key];
  } catch {
    return UNREADABLE;
  }
}

function text(raw: string, walk: Walk): string {
  if (walk.budget <= 0) return '[truncated]';
  // Scrubbed before it is cut (a number cut in half would no longer look like one), on a slice of bounded length.
  const scrubbed = walk.scrub ? scrubText(raw.length > 2 * STRING_MAX ? raw.slice(0, 2 * STRING_MAX) : raw) : raw;
  const max = Math.min(STRING_MAX, walk.budget);
  walk.budget -= Math.min(scrubbed.length, max);
  return scrubbed.length > max ? `${scrubbed.slice(0, max)}…[truncated]` : scrubbed;
}

const isErrorLike = (v: object): boolean => typeof read(v, 'message') === 'string' && (v instanceof Error || typeof read(v, 'stack') === 'string');

function typeName(v: object): string {
  const ctor = read(v, 'constructor');
  const name = typeof ctor === 'function' ? read(ctor, 'name') : read(v, 'name');
  return typeof name === 'string' && name ? name : 'Object';
}

/** A copy of any value that JSON can hold, within the walk's bounds; never throws on what it reads. */
function copy(value: unknown, walk: Walk, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      return text(value, walk);
    case 'number':
    case 'boolean':
    case 'undefined':
      return value;
    case 'bigint':
    case 'symbol':
      return text(String(value), walk);
    case 'function':
      return '[function]';
  }
  if (value === null) return null;
  const obj = value as object;
  if (walk.seen.has(obj)) return '[circular]';
  if (depth >= DEPTH_MAX || walk.budget <= 0) return '[truncated]';
  walk.seen.add(obj);
  try {
    if (walk.scrub && isErrorLike(obj)) return errorShape(obj, walk, depth);
    if (ArrayBuffer.isView(obj)) return `[${obj.byteLength} bytes]`;
    if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? 'Invalid Date' : obj.toISOString();
    if (Array.isArray(obj)) {
      const items = obj.slice(0, ITEMS_MAX).map((item) => copy(item, walk, depth + 1));
      if (obj.length > ITEMS_MAX) items.push(`…${obj.length - ITEMS_MAX} more`);
      return items;
    }
    return fields(obj, walk, depth, new Set());
  } catch {
    return UNREADABLE; // a proxy whose traps throw
  } finally {
    walk.seen.delete(obj);
  }
}

/** The object's own enumerable fields (at most ITEMS_MAX), each copied; `skip` and, under `err`, ROW_FIELDS left out. */
function fields(obj: object, walk: Walk, depth: number, skip: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const key of Object.keys(obj)) {
    if (skip.has(key) || (walk.scrub && ROW_FIELDS.has(key))) continue;
    if (++n > ITEMS_MAX || walk.budget <= 0) {
      out['…'] = 'more fields left out';
      break;
    }
    out[text(key, walk)] = copy(read(obj, key), walk, depth + 1);
  }
  return out;
}

const OWN_ERROR_FIELDS = new Set(['type', 'message', 'stack', 'cause', 'errors']);

/** An error as pino writes one (type, message, stack, its own fields), with its cause and AggregateError's errors nested. */
function errorShape(err: object, walk: Walk, depth: number): Record<string, unknown> {
  const message = read(err, 'message');
  const out: Record<string, unknown> = { type: typeName(err), message: typeof message === 'string' ? text(message, walk) : UNREADABLE };
  const stack = read(err, 'stack');
  if (typeof stack === 'string') out.stack = text(stack, walk);
  Object.assign(out, fields(err, walk, depth, OWN_ERROR_FIELDS));
  const cause = read(err, 'cause');
  if (cause !== undefined) out.cause = copy(cause, walk, depth + 1);
  const errors = read(err, 'errors');
  if (Array.isArray(errors)) out.aggregateErrors = copy(errors, walk, depth + 1);
  return out;
}

/**
 * The `err` serializer, total: an Error (with a circular cause, an AggregateError, a pg error), a string, a number,
 * `undefined`, a plain object or one without a prototype all come out as an object with `type` and what can be said
 * of it, its text scrubbed of phone numbers and e-mail addresses and the PostgreSQL fields that repeat a row dropped.
 */
function serializeError(value: unknown): Record<string, unknown> {
  const walk: Walk = { budget: OUTPUT_BUDGET, seen: new WeakSet(), scrub: true };
  if (typeof value === 'function') return { type: 'function' };
  if (typeof value !== 'object' || value === null) return { type: value === null ? 'null' : typeof value, message: text(String(value), walk) };
  const shaped = copy(value, walk, 0);
  if (typeof shaped === 'object' && shaped !== null && !Array.isArray(shaped)) return 'type' in shaped ? shaped : { type: typeName(value), ...shaped };
  return { type: typeName(value), value: shaped };
}

type Serializer = (value: never) => unknown;

/**
 * Every serializer made total and bounded: pino calls a serializer inside the log call, so a throw there is a throw
 * from `log.warn(...)`, which inside a catch block ends the process. Whatever a serializer is handed, the
 * line is written: its output copied within OUTPUT_BUDGET, or, should it throw, a note of the failure that repeats
 * nothing of the value.
 */
function totalSerializers<S extends Record<string, Serializer>>(serializers: S): { [K in keyof S]: (value: unknown) => unknown } {
  const entries = Object.entries(serializers).map(([name, serialize]) => [
    name,
    (value: unknown) => {
      try {
        return copy(serialize(value as never), { budget: OUTPUT_BUDGET, seen: new WeakSet(), scrub: false }, 0);
      } catch {
        return { serializer_failed: name, type: value === null ? 'null' : typeof value };
      }
    },
  ]);
  return Object.fromEntries(entries) as { [K in keyof S]: (value: unknown) => unknown };
}

export const LOG_SERIALIZERS = totalSerializers({
  /** Fastify's request line: the route template, its safe parameters and masked query (src/lib/log-request.ts). */
  req: serializeRequest,
  /** Fastify's response line (its own serializer, made total here like the others). */
  res: (reply: { statusCode?: number }) => ({ statusCode: reply.statusCode }),
  err: serializeError,
  /**
   * Fastify's response time, to the hundredth of a millisecond: its raw float (1.7121980000001713) holds long digit
   * runs that read like phone numbers to the scans of the logs, and say nothing more.
   */
  responseTime: (ms: unknown) => (typeof ms === 'number' ? Math.round(ms * 100) / 100 : ms),
});

/**
 * The last guard of a log call: pino itself reads the logged object before any serializer (its fields, an error's
 * `message` when no message is given), and a throwing getter or proxy there would throw from the call. Such a call
 * writes a line that says so, with its message when it had one, and nothing of the object.
 */
function logMethod(this: Logger, args: Parameters<LogFn>, method: LogFn): void {
  try {
    method.apply(this, args);
  } catch {
    const msg = args.find((a): a is string => typeof a === 'string');
    method.call(this, { log_call_failed: args[0] === null ? 'null' : typeof args[0] }, msg ?? 'a log call failed: its object could not be read');
  }
}

/** pino options for every logger of the service (server, tests, CLI workers): redaction, masking and totality built in. */
export const logOptions = (level: string): LoggerOptions => ({ level, redact: LOG_REDACT, serializers: LOG_SERIALIZERS, hooks: { logMethod } });
