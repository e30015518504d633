import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/**
 * Opaque, prefixed, time-ordered ids (`prod_01jd…`): 10 chars of millisecond time, 16 of randomness.
 * Sorting by id sorts by creation; ids reveal no counts.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += ALPHABET[bytes[i] & 31];
  return `${prefix}_${time}${rand}`;
}

/** Random letters and digits for secrets (keys), from a uniform alphabet of 62. */
export function randomAlnum(length: number): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += chars[b % 62]; // 248 = 4*62: no modulo bias
    }
  }
  return out;
}
