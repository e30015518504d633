import { createHmac, timingSafeEqual } from 'node:crypto';

/** Headers of an outgoing webhook; docs/webhooks.md shows a receiver checking them. */
export const WEBHOOK_SIGNATURE_HEADER = 'x-webhook-signature';
export const WEBHOOK_ID_HEADER = 'x-webhook-id';
/** How old a signature's `t` a receiver should accept, in seconds (docs/webhooks.md). */
export const WEBHOOK_TOLERANCE_S = 300;

const hmacHex = (secret: string, t: number, rawBody: Buffer | string) => createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, one v1 per secret: during a rotation's grace
 * period both the new and the previous secret sign, so a receiver holding either accepts it.
 */
export function signWebhook(secrets: readonly string[], rawBody: Buffer | string, t: number = Math.floor(Date.now() / 1000)): string {
  return [`t=${t}`, ...secrets.map((s) => `v1=${hmacHex(s, t, rawBody)}`)].join(',');
}

/**
 * What a receiver does (and the tests do): the header parses, `t` is within `toleranceS` of now, and one v1
 * equals the HMAC of this exact raw body with the receiver's secret (compared in constant time).
 */
export function verifyWebhook(
  secret: string,
  rawBody: Buffer | string,
  header: string,
  { toleranceS = WEBHOOK_TOLERANCE_S, now = Math.floor(Date.now() / 1000) } = {},
): boolean {
  const parts = header.split(',').map((p) => p.split('=', 2) as [string, string | undefined]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(now - t) > toleranceS) return false;
  const expected = Buffer.from(hmacHex(secret, t, rawBody), 'hex');
  let ok = false;
  for (const [k, v] of parts) {
    if (k !== 'v1' || !v || !/^[0-9a-f]{64}$/.test(v)) continue;
    ok = timingSafeEqual(Buffer.from(v, 'hex'), expected) || ok;
  }
  return ok;
}
