import { createHmac, timingSafeEqual } from 'node:crypto';

/** The courier callback signature (Stripe's scheme), checked by the courier-callback route. */
export const SIGNATURE_HEADER = 'x-courier-signature';
/** v1 values one header may carry: the current secret's and, while a courier rotates, the old one's. */
const MAX_SIGNATURES = 4;

const hmacHex = (secret: string, t: number | string, rawBody: Buffer | string) => createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');

/**
 * The X-Courier-Signature value for a body: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`
 * with the company's callback secret (Stripe's scheme). `at` defaults to now.
 */
export const signCallback = (secret: string, rawBody: Buffer | string, at: number = Math.floor(Date.now() / 1000)) =>
  `t=${at},v1=${hmacHex(secret, at, rawBody)}`;

export type ParsedSignature = { t: number; v1: Buffer[] };

/**
 * Strict parse of the header: comma-separated `t=<digits>` exactly once and one to four `v1=<64 hex>`, nothing
 * else (no other keys, no spaces, no trailing junk). Answers the reason when it does not parse.
 */
export function parseSignatureHeader(value: string): ParsedSignature | string {
  let t: number | undefined;
  const v1: Buffer[] = [];
  for (const part of value.trim().split(',')) {
    const m = /^(t|v1)=(.*)$/.exec(part);
    if (!m) return `unexpected element "${part.slice(0, 20)}"`;
    if (m[1] === 't') {
      if (t !== undefined) return 't= given twice';
      if (!/^\d{1,12}$/.test(m[2])) return 't= must be unix seconds';
      t = Number(m[2]);
    } else {
      if (!/^[0-9a-fA-F]{64}$/.test(m[2])) return 'v1= must be 64 hex digits';
      if (v1.length === MAX_SIGNATURES) return `at most ${MAX_SIGNATURES} v1= values`;
      v1.push(Buffer.from(m[2], 'hex'));
    }
  }
  if (t === undefined) return 't= is missing';
  if (v1.length === 0) return 'v1= is missing';
  return { t, v1 };
}

export function signatureMatches(secret: string, raw: Buffer, sig: ParsedSignature): boolean {
  const expected = Buffer.from(hmacHex(secret, sig.t, raw), 'hex');
  let ok = false;
  for (const given of sig.v1) ok = timingSafeEqual(given, expected) || ok; // every value compared: no early exit
  return ok;
}
