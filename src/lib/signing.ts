import { createHmac, timingSafeEqual } from 'node:crypto';

/** HMAC-SHA256 over the path and the expiry (unix seconds), base64url. */
export function signPath(secret: string, path: string, expires: number): string {
  return createHmac('sha256', secret).update(`${path}\n${expires}`).digest('base64url');
}

/** True when `sig` was made by `secret` for this path and expiry; compared in constant time. */
export function verifyPath(secret: string, path: string, expires: number, sig: string): boolean {
  const expected = Buffer.from(signPath(secret, path, expires), 'base64url');
  const given = Buffer.from(sig, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
