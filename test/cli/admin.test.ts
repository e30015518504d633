import { describe, expect, it, beforeAll } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { useTestApp } from '../helpers/app.js';

const ctx = useTestApp();

async function admin(...argv: string[]) {
  const lines: string[] = [];
  const code = await runAdmin(argv, (t) => lines.push(t));
  return { code, out: lines.join('\n') };
}

describe('admin CLI', () => {
  beforeAll(() => {
    // The CLI reads DATABASE_URL like the server; point it at this file's database.
    if (ctx.testDb.url) process.env.DATABASE_URL = ctx.testDb.url;
  });

  it('creates, lists and updates companies, in tables and in JSON', async (t) => {
    if (!ctx.testDb.url) return t.skip();
    const created = await admin('company', 'create', '--name', 'Chai & Co', '--json');
    expect(created.code).toBe(0);
    const company = JSON.parse(created.out);
    expect(company).toMatchObject({ name: 'Chai & Co', slug: 'chai-and-co', status: 'active', plan: 'commerce', auto_courier_booking: false });

    const updated = await admin('company', 'update', 'chai-and-co', '--status', 'inactive', '--plan', 'messaging', '--auto-booking', 'true', '--json');
    expect(JSON.parse(updated.out)).toMatchObject({ status: 'inactive', plan: 'messaging', auto_courier_booking: true });

    const table = await admin('company', 'list');
    expect(table.out).toMatch(/^ID\s+SLUG\s+NAME/);
    expect(table.out).toContain('chai-and-co');
  });

  it('prints a key once, lists only prefixes, revokes, and refuses a sixth', async (t) => {
    if (!ctx.testDb.url) return t.skip();
    await admin('company', 'create', '--name', 'Key Co', '--slug', 'key-co');
    const first = JSON.parse((await admin('key', 'create', '--company', 'key-co', '--json')).out);
    expect(first.key).toMatch(/^cok_/);
    const list = await admin('key', 'list', '--company', 'key-co', '--json');
    expect(list.out).not.toContain(first.key);
    expect(JSON.parse(list.out)[0].prefix).toBe(first.prefix);
    for (let i = 0; i < 4; i++) expect((await admin('key', 'create', '--company', 'key-co')).code).toBe(0);
    const sixth = await admin('key', 'create', '--company', 'key-co', '--json');
    expect(sixth.code).toBe(1);
    expect(JSON.parse(sixth.out).error).toMatch(/5 active keys/);
    const revoked = JSON.parse((await admin('key', 'revoke', '--company', 'key-co', first.prefix, '--json')).out);
    expect(revoked.revoked_at).toBeTruthy();
    expect((await admin('key', 'create', '--company', 'key-co')).code).toBe(0);
  });

  it('exits non-zero with a clear message on bad usage', async () => {
    expect((await admin('company', 'update', 'x', '--plan', 'gold')).code).toBe(2);
    expect((await admin('frobnicate')).code).toBe(2);
    expect((await admin('key', 'create', '--json')).code).toBe(2);
    const help = await admin('--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('key revoke');
  });
});
