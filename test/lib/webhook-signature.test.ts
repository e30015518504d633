import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook, WEBHOOK_TOLERANCE_S } from '../../src/lib/webhook-signature.js';
import { secretBox } from '../../src/lib/secret-box.js';

const secret = 'whsec_0123456789abcdefABCDEF0123456789';
const body = '{"id":"evt_1","type":"order.created","created_at":"2026-11-23T10:00:00.000Z","data":{"order_number":"ORD-1"}}';
const now = 1_800_000_000;

describe('X-Webhook-Signature', () => {
  it('is t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> and verifies with the secret', async () => {
    const header = signWebhook([secret], body, now);
    const { createHmac } = await import('node:crypto');
    expect(header).toBe(`t=${now},v1=${createHmac('sha256', secret).update(`${now}.${body}`).digest('hex')}`);
    expect(verifyWebhook(secret, body, header, { now })).toBe(true);
  });

  it('fails on a changed body, another secret, or a changed t', () => {
    const header = signWebhook([secret], body, now);
    expect(verifyWebhook(secret, body.replace('ORD-1', 'ORD-2'), header, { now })).toBe(false);
    expect(verifyWebhook(`${secret}x`, body, header, { now })).toBe(false);
    expect(verifyWebhook(secret, body, header.replace(`t=${now}`, `t=${now + 1}`), { now })).toBe(false);
  });

  it(`fails on a timestamp older (or newer) than the ${WEBHOOK_TOLERANCE_S} s tolerance, at its edge`, () => {
    const header = signWebhook([secret], body, now);
    expect(verifyWebhook(secret, body, header, { now: now + WEBHOOK_TOLERANCE_S })).toBe(true);
    expect(verifyWebhook(secret, body, header, { now: now + WEBHOOK_TOLERANCE_S + 1 })).toBe(false);
    expect(verifyWebhook(secret, body, header, { now: now - WEBHOOK_TOLERANCE_S - 1 })).toBe(false);
  });

  it('carries one v1 per secret during a rotation; either secret verifies', () => {
    const header = signWebhook(['whsec_new', secret], body, now);
    expect(verifyWebhook('whsec_new', body, header, { now })).toBe(true);
    expect(verifyWebhook(secret, body, header, { now })).toBe(true);
    expect(verifyWebhook('whsec_other', body, header, { now })).toBe(false);
  });

  it('refuses malformed headers', () => {
    for (const h of ['', 't=abc,v1=00', `v1=${'0'.repeat(64)}`, `t=${now}`, `t=${now},v1=xyz`]) expect(verifyWebhook(secret, body, h, { now }), h).toBe(false);
  });
});

describe('secretBox', () => {
  it('seals and opens; another service secret or a changed byte cannot open it', () => {
    const box = secretBox('service-secret-0123456789abcdef0123', 'webhook-endpoint-secrets');
    const sealed = box.seal(secret);
    expect(sealed).not.toContain(secret);
    expect(box.open(sealed)).toBe(secret);
    expect(() => secretBox('another-service-secret-0123456789abc', 'webhook-endpoint-secrets').open(sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = `${parts[3][0] === 'A' ? 'B' : 'A'}${parts[3].slice(1)}`;
    expect(() => box.open(parts.join('.'))).toThrow();
  });
});
