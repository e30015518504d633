import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';

const ctx = useTestApp({ PUBLIC_URL: 'https://api.example.in' });

/** Runs an admin command on this file's database and services; exit code, stdout and stderr. */
async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(argv, (t) => out.push(t), { db: ctx.testDb.db, services: ctx.services, caller: { err: (t) => err.push(t) } });
  return { code, out: out.join('\n'), err: err.join('') };
}

const json = async (...argv: string[]) => {
  const r = await admin(...argv, '--json');
  expect(r.code, r.err || r.out).toBe(0);
  return JSON.parse(r.out);
};

describe('admin CLI: ucp', () => {
  it('shows the defaults, enables and disables the business; the profile follows', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    const co = company.slug;
    const profile = () => ctx.app.inject({ url: `/ucp/${co}/.well-known/ucp` });
    expect(await json('ucp', 'show', '--company', co)).toEqual({
      enabled: false,
      hold_minutes: 30,
      privacy_url: null,
      terms_url: null,
      updated_at: null,
      discovery_url: `https://api.example.in/ucp/${co}/.well-known/ucp`,
      hosts: [],
    });
    expect((await json('ucp', 'enable', '--company', co)).enabled).toBe(true);
    expect((await profile()).statusCode).toBe(200);
    expect((await json('ucp', 'disable', '--company', company.id)).enabled).toBe(false);
    expect((await profile()).statusCode).toBe(404);
    const table = await admin('ucp', 'show', '--company', co);
    expect(table.out).toMatch(/ENABLED\s+HOLD MINUTES/);
    expect(table.out).toContain('(none)');
  });

  it('sets the hold within 1–1440 and the links; an empty link removes it; wrong calls exit 2, refusals 1', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    const co = company.slug;
    expect(await json('ucp', 'set', '--company', co, '--hold-minutes', '1', '--privacy-url', 'https://shop.example.in/privacy')).toMatchObject({
      hold_minutes: 1,
      privacy_url: 'https://shop.example.in/privacy',
      enabled: false,
    });
    expect((await json('ucp', 'set', '--company', co, '--hold-minutes', '1440')).hold_minutes).toBe(1440);
    for (const minutes of ['0', '1441']) {
      const r = await admin('ucp', 'set', '--company', co, '--hold-minutes', minutes);
      expect(r.code, minutes).toBe(1);
      expect(r.err).toContain('hold_minutes: must be an integer from 1 to 1440');
    }
    expect((await admin('ucp', 'set', '--company', co, '--hold-minutes', 'ten')).code).toBe(2);
    expect((await admin('ucp', 'set', '--company', co)).code).toBe(2);
    expect((await admin('ucp', 'set', '--company', co, '--terms-url', 'http://shop.example.in/terms')).code).toBe(1);
    expect((await json('ucp', 'set', '--company', co, '--privacy-url', '')).privacy_url).toBeNull();
    expect(await ctx.services.ucpSettings.get(company.id)).toMatchObject({ hold_minutes: 1440, privacy_url: null, terms_url: null });
    expect((await admin('ucp', 'enable')).code).toBe(2);
  });

  it("adds, lists and removes hosts; another company's host is refused", async () => {
    const a = await createCompanyWithKey(ctx.services);
    const b = await createCompanyWithKey(ctx.services);
    const host = `cli-${a.company.slug}.example.in`;
    expect(await json('ucp', 'host', 'add', '--company', a.company.slug, host.toUpperCase())).toEqual({ host, created_at: expect.any(String) });
    expect((await json('ucp', 'host', 'list', '--company', a.company.slug)).map((h: { host: string }) => h.host)).toEqual([host]);
    const clash = await admin('ucp', 'host', 'add', '--company', b.company.slug, host);
    expect(clash.code).toBe(1);
    expect(clash.err).toContain('registered for another company');
    expect(await json('ucp', 'host', 'list', '--company', b.company.slug)).toEqual([]);
    expect(await json('ucp', 'host', 'remove', '--company', a.company.slug, host)).toEqual({ host, removed: true });
    expect(await json('ucp', 'host', 'list', '--company', a.company.slug)).toEqual([]);
    expect((await admin('ucp', 'host', 'add', '--company', a.company.slug)).code).toBe(2);
  });
});
