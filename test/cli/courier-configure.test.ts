import { beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { useTestApp } from '../helpers/app.js';
import { teeShop } from '../helpers/fulfilment.js';

const ctx = useTestApp();
beforeAll(() => {
  if (ctx.testDb.url) process.env.DATABASE_URL = ctx.testDb.url;
});

async function admin(...argv: string[]) {
  const lines: string[] = [];
  const code = await runAdmin([...argv, '--json'], (t) => lines.push(t), { db: ctx.testDb.db });
  return { code, text: lines.join('\n') };
}

describe('courier configure: the adapters and their settings come from the courier registry', () => {
  it('lists every registry courier, and checks Delhivery settings with its configSchema (token, pickup location)', async () => {
    const s = await teeShop(ctx, '1');
    const slug = s.company.slug;
    const unknown = await admin('courier', 'configure', '--company', slug, '--adapter', 'fedex');
    expect(unknown.code).not.toBe(0);
    expect(unknown.text).toContain('manual, shiprocket, delhivery');

    const missing = await admin('courier', 'configure', '--company', slug, '--adapter', 'delhivery', '--pickup-location', 'WH-BLR');
    expect(missing.code).toBe(1);
    expect(missing.text).toMatch(/token.*required for the delhivery adapter/s);

    const ok = await admin('courier', 'configure', '--company', slug, '--adapter', 'delhivery', '--token', 'dlv-sekrit', '--pickup-location', 'WH-BLR');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.text)).toMatchObject({ adapter: 'delhivery', password_set: true, pickup_location: 'WH-BLR', callback_secret: expect.any(String) });
    expect(ok.text).not.toContain('dlv-sekrit');
    // stored settings count: switching the base URL alone keeps the token and the pickup location
    const again = await admin('courier', 'configure', '--company', slug, '--adapter', 'delhivery', '--base-url', 'https://staging-express.delhivery.com');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.text)).toMatchObject({ base_url: 'https://staging-express.delhivery.com', password_set: true, pickup_location: 'WH-BLR' });
  });
});
