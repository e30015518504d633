import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { EVENT_TYPES } from '../../src/contract/webhooks.js';
import { verifyWebhook } from '../../src/lib/webhook-signature.js';
import { createDeliveryWorker } from '../../src/events/delivery-worker.js';
import { useTestApp } from '../helpers/app.js';
import { BASE, get, orderBody, post, teeShop } from '../helpers/fulfilment.js';
import { webhookReceiver } from '../helpers/webhook-receiver.js';

const ctx = useTestApp({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_WORKER_ENABLED: 'false' });

async function admin(...argv: string[]) {
  const lines: string[] = [];
  const code = await runAdmin(argv, (t) => lines.push(t), { db: ctx.testDb.db });
  return { code, out: lines.join('\n') };
}

let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
const saved = { ...process.env };
beforeAll(async () => {
  // The CLI reads its settings from the environment like the server; point it at this file's database.
  if (ctx.testDb.url) process.env.DATABASE_URL = ctx.testDb.url;
  process.env.WEBHOOK_ALLOW_HTTP = 'true';
  process.env.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = 'true';
  process.env.SIGNING_SECRET = ctx.config.SIGNING_SECRET;
  receiver = await webhookReceiver();
});
afterAll(async () => {
  process.env = saved;
  await receiver?.close();
});

describe('admin CLI: webhooks, deliveries, opt-out, key permissions', () => {
  it('creates a key with the webhooks permission only when asked', async (t) => {
    if (!ctx.testDb.url) return t.skip();
    const s = await teeShop(ctx);
    const plain = JSON.parse((await admin('key', 'create', '--company', s.company.slug, '--json')).out);
    const hooks = JSON.parse((await admin('key', 'create', '--company', s.company.slug, '--permission', 'webhooks', '--json')).out);
    expect(plain.permissions).toEqual(['commerce']);
    expect(hooks.permissions).toEqual(['commerce', 'webhooks']);
    expect((await get(ctx, { 'x-api-key': plain.key }, '/webhooks')).status).toBe(403);
    expect((await get(ctx, { 'x-api-key': hooks.key }, '/webhooks')).status).toBe(200);
    expect((await admin('key', 'create', '--company', s.company.slug, '--permission', 'admin')).code).toBe(2);
  });

  it('adds, tests, lists, rotates and removes an endpoint; lists deliveries and re-sends failed ones', async (t) => {
    if (!ctx.testDb.url) return t.skip();
    const s = await teeShop(ctx);
    const co = s.company.slug;
    const added = await admin('webhook', 'add', '--company', co, '--url', receiver.url, '--events', 'order.created,order.status_changed', '--json');
    expect(added.code).toBe(0);
    const endpoint = JSON.parse(added.out);
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect((await admin('webhook', 'add', '--company', co, '--url', receiver.url, '--events', 'order.nope')).code).toBe(2);

    const tested = JSON.parse((await admin('webhook', 'test', '--company', co, endpoint.id, '--json')).out);
    expect(tested).toEqual({ id: endpoint.id, status: 200, error: null });
    const ping = receiver.state.received.at(-1)!;
    expect(ping.body.type).toBe('webhook.test');
    expect(verifyWebhook(endpoint.secret, ping.raw, String(ping.headers['x-webhook-signature']))).toBe(true);

    const table = (await admin('webhook', 'list', '--company', co)).out;
    expect(table).toContain(endpoint.id);
    expect(table).not.toContain(endpoint.secret);

    receiver.state.down = true;
    await post(ctx, s.headers, orderBody());
    await createDeliveryWorker({ db: ctx.db, config: { ...ctx.config, WEBHOOK_RETRY_FOR_MS: 1 }, log: ctx.workerLog('webhook-worker') }).runOnce(s.companyId);
    const failed = JSON.parse((await admin('webhook', 'deliveries', '--company', co, '--status', 'failed', '--json')).out);
    expect(failed).toEqual([expect.objectContaining({ type: 'order.created', status: 'failed', attempts: 1, last_status_code: 503 })]);
    expect((await admin('webhook', 'resend', '--company', co)).code).toBe(2);
    receiver.state.down = false;
    expect(JSON.parse((await admin('webhook', 'resend', '--company', co, failed[0].event_id, '--json')).out)).toEqual({ resent: 1 });
    await createDeliveryWorker({ db: ctx.db, config: ctx.config, log: ctx.workerLog('webhook-worker') }).drainNow(s.companyId);
    const delivered = JSON.parse((await admin('webhook', 'deliveries', '--company', co, '--json')).out);
    expect(delivered).toEqual([expect.objectContaining({ status: 'delivered', attempts: 2, last_status_code: 200 })]);
    expect((await admin('webhook', 'resend', '--company', co, '--all-failed', '--json')).out).toContain('"resent": 0');

    expect(JSON.parse((await admin('webhook', 'enable', '--company', co, endpoint.id, '--json')).out)).toMatchObject({ id: endpoint.id, status: 'active' });
    expect((await admin('webhook', 'enable', '--company', co, 'whe_none')).code).toBe(1);
    const rotated = JSON.parse((await admin('webhook', 'rotate', '--company', co, endpoint.id, '--json')).out);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect((await admin('webhook', 'remove', '--company', co, endpoint.id)).code).toBe(0);
    expect(JSON.parse((await admin('webhook', 'list', '--company', co, '--json')).out)).toEqual([]);
  });

  it('--events all subscribes to what REST events ["all"] does, from the one definition', async (t) => {
    if (!ctx.testDb.url) return t.skip();
    const s = await teeShop(ctx);
    const { key } = await ctx.services.keys.create(s.companyId, { kind: 'cli', name: 'test' }, 'hooks', ['webhooks']);
    const rest = await ctx.app.inject({
      method: 'POST',
      url: `${BASE}/webhooks`,
      headers: { 'x-api-key': key },
      payload: { url: receiver.url, events: ['all'] },
    });
    expect(rest.statusCode).toBe(201);
    const cli = JSON.parse((await admin('webhook', 'add', '--company', s.company.slug, '--url', receiver.url, '--events', 'all', '--json')).out);
    expect(cli.events).toEqual(rest.json().data.events);
    expect(cli.events).toEqual([...EVENT_TYPES]);
    const mixed = JSON.parse(
      (await admin('webhook', 'add', '--company', s.company.slug, '--url', receiver.url, '--events', 'order.created,all', '--json')).out,
    );
    expect(mixed.events).toEqual([...EVENT_TYPES]);
  });

  it('records a customer’s opt-out and its withdrawal', async (t) => {
    if (!ctx.testDb.url) return t.skip();
    const s = await teeShop(ctx);
    await post(ctx, s.headers, orderBody());
    const out = JSON.parse((await admin('customer', 'opt-out', '--company', s.company.slug, '--phone', '98765 43210', '--json')).out);
    expect(out).toMatchObject({ messaging_opted_out: true, changed: true });
    expect((await get(ctx, s.headers, '/customers?phone=9876543210')).body.data.messaging_opted_out).toBe(true);
    const resumed = JSON.parse((await admin('customer', 'opt-out', '--company', s.company.slug, '--phone', '9876543210', '--resume', '--json')).out);
    expect(resumed).toMatchObject({ messaging_opted_out: false, changed: true });
  });
});
