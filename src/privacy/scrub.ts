import { normalizePhone } from '../lib/phone.js';

/**
 * The pure half of an erasure: what a customer's personal data looks like (the needles) and how a value is rewritten
 * without it. The structured scrub (customer-data.service.ts) empties the fields it knows; this is the safety net
 * after it, for every copy of the data in text or JSON the structured scrub did not name (an event rendered months
 * ago, a payment provider's payload, an idempotent answer).
 */

/** What every erased personal value reads as. */
export const ERASED = 'Erased customer';

/** The shortest text taken as a needle: shorter strings (a one-letter name) would match everywhere. */
const MIN_NEEDLE = 4;

/** The personal values of a customer, each lower-cased, longest first (so a longer match wins over a part of it). */
export function needlesOf(values: (string | null | undefined)[]): string[] {
  const out = new Set<string>();
  for (const raw of values) {
    const v = raw?.trim();
    if (!v || v.length < MIN_NEEDLE) continue;
    out.add(v.toLowerCase());
    // a phone also appears as its 10 national digits (+919876543210 → 9876543210) and its digits with the country code
    const p = /^[+\d][\d\s()-]{6,}$/.test(v) ? normalizePhone(v) : null;
    if (p?.ok) {
      out.add(p.e164.toLowerCase());
      out.add(p.e164.slice(1));
      if (p.e164.startsWith('+91')) out.add(p.e164.slice(3));
    }
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/**
 * How the customer is recognised in rows no order or customer id leads to (an open or ended checkout, the UCP address
 * book, idempotent answers, payment events): by what identifies them, never by a name or an address line another
 * buyer may share. `needles`: their e-mails and phones (as needlesOf gives them); `emailKeys`: the address book's keys
 * for their e-mails; `phonePattern`: a regular expression over a text with the separators people type inside a number
 * (spaces, brackets, dots, hyphens) removed, matching any of their phones' digits with an optional prefix (0, 91, 0091
 * for an Indian number; 00 otherwise) and no digit either side ("+91 98765-43210", "098765 43210"); null without a phone.
 */
export interface BuyerMatch {
  needles: string[];
  emailKeys: string[];
  phonePattern: string | null;
}

export function buyerMatch(phones: (string | null | undefined)[], emails: (string | null | undefined)[]): BuyerMatch {
  const e164s = new Set<string>();
  for (const raw of phones) {
    const p = raw?.trim() ? normalizePhone(raw) : null;
    if (p?.ok) e164s.add(p.e164);
  }
  const mails = [...new Set(emails.map((e) => e?.trim().toLowerCase()).filter((e): e is string => !!e && e.length >= MIN_NEEDLE))];
  const numbers = [...e164s].map((e) => (e.startsWith('+91') ? `(0|91|0091)?${e.slice(3)}` : `(00)?${e.slice(1)}`));
  return {
    needles: needlesOf([...e164s, ...mails]),
    emailKeys: mails.map((m) => `email:${m}`),
    phonePattern: numbers.length ? `(^|[^0-9])(${numbers.join('|')})([^0-9]|$)` : null,
  };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A function replacing every occurrence (any case) of a needle in a text by the placeholder. */
export function textScrubber(needles: string[]): (text: string) => string {
  if (needles.length === 0) return (t) => t;
  const re = new RegExp(needles.map(escape).join('|'), 'giu');
  return (text) => text.replace(re, ERASED);
}

/** True when the text holds a needle. */
export function mentions(text: string, needles: string[]): boolean {
  const lower = text.toLowerCase();
  return needles.some((n) => lower.includes(n));
}

/** Keys whose value is personal wherever it sits in a JSON value we keep about the customer. */
const PERSONAL_KEYS = new Set([
  'phone',
  'phone_number',
  'customer_phone',
  'phone_e164',
  'address_phone',
  'email',
  'contact',
  'customer_email',
  'first_name',
  'last_name',
  'full_name',
]);

/**
 * A JSON value with the customer's data gone: the values of personal keys (phone, e-mail, contact) become null, and
 * every string holding a needle has it replaced by the placeholder. Keys themselves are kept (a consumer still parses
 * the shape it knows).
 */
export function scrubJson(value: unknown, needles: string[]): unknown {
  const text = textScrubber(needles);
  const walk = (v: unknown, key: string | null): unknown => {
    if (typeof v === 'string') return key !== null && PERSONAL_KEYS.has(key) && v !== '' ? null : text(v);
    if (Array.isArray(v)) return v.map((x) => walk(x, null));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(value, null);
}

/** A JSON text scrubbed as scrubJson does; a text that is not JSON has the needles replaced. */
export function scrubJsonText(text: string, needles: string[]): string {
  try {
    return JSON.stringify(scrubJson(JSON.parse(text), needles));
  } catch {
    return textScrubber(needles)(text);
  }
}
