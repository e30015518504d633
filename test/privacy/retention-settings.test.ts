import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { listAudit } from '../../src/db/audit-log.js';
import { useTestApp } from '../helpers/app.js';
import { BASE, shop } from '../helpers/orders.js';

/**
 * GET and PUT /privacy/settings (the `privacy` permission; every field at its edges; partial updates; an audit entry
 * per change naming the fields and their new values) and the commands `privacy show|set`.
 */
const ctx = useTestApp();

const DEFAULTS = {
  notice_url: null,
  events_retention_days: 30,
  jobs_retention_days: 30,
  checkout_sessions_retention_days: 30,
  inactive_customer_years: null,
  audit_retention_days: 1095,
  updated_at: null,
};

async function privacyCompany() {
  const s = await shop(ctx, [], { noLocations: true });
  const { key, record } = await ctx.services.keys.create(s.companyId, { kind: 'cli', name: 'test' }, 'privacy admin', ['privacy']);
  return { ...s, privacy: { 'x-api-key': key }, privacyPrefix: record.prefix };
}

const getSettings = async (headers: Record<string, string>) => {
  const res = await ctx.app.inject({ method: 'GET', url: `${BASE}/privacy/settings`, headers });
  return { status: res.statusCode, body: res.json() };
};
const putSettings = async (headers: Record<string, string>, body: unknown) => {
  const res = await ctx.app.inject({
    method: 'PUT',
    url: `${BASE}/privacy/settings`,
    headers: { ...headers, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.json() };
};

/** The field's 400: exactly one detail, on `path`; the settings unchanged. */
async function refused(co: Awaited<ReturnType<typeof privacyCompany>>, body: Record<string, unknown>, path: string) {
  const before = (await getSettings(co.privacy)).body.data;
  const res = await putSettings(co.privacy, body);
  expect(res.status, JSON.stringify(body)).toBe(400);
  expect(res.body.error.code).toBe('validation_failed');
  expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
  expect((await getSettings(co.privacy)).body.data).toEqual(before);
}

describe('privacy settings over REST', () => {
  it('shows the defaults, sets every field, keeps what a later PUT leaves out, and clears with null', async () => {
    const co = await privacyCompany();
    expect(await getSettings(co.privacy)).toEqual({ status: 200, body: { data: DEFAULTS } });
    const all = {
      notice_url: 'https://shop.example.in/privacy',
      events_retention_days: 90,
      jobs_retention_days: 14,
      checkout_sessions_retention_days: 7,
      inactive_customer_years: 3,
      audit_retention_days: 730,
    };
    const set = await putSettings(co.privacy, all);
    expect(set.status).toBe(200);
    expect(set.body.data).toEqual({ ...all, updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
    const later = await putSettings(co.privacy, { events_retention_days: 1 });
    expect(later.body.data).toMatchObject({ ...all, events_retention_days: 1 });
    const cleared = await putSettings(co.privacy, { notice_url: null, inactive_customer_years: null });
    expect(cleared.body.data).toMatchObject({ ...all, events_retention_days: 1, notice_url: null, inactive_customer_years: null });
    expect((await getSettings(co.privacy)).body.data).toEqual(cleared.body.data);
  });

  it('records each change in the audit trail: the key, the fields changed and their new values', async () => {
    const co = await privacyCompany();
    await putSettings(co.privacy, { notice_url: 'https://shop.example.in/privacy', events_retention_days: 45 });
    await putSettings(co.privacy, { inactive_customer_years: null });
    const entries = await listAudit(ctx.db, co.companyId, { limit: 10, action: 'privacy_settings.changed' });
    expect(entries.map((e) => ({ kind: e.actor_kind, actor: e.actor, subject: e.subject_id, detail: e.detail }))).toEqual([
      { kind: 'key', actor: co.privacyPrefix, subject: co.companyId, detail: { changed: { inactive_customer_years: null } } },
      {
        kind: 'key',
        actor: co.privacyPrefix,
        subject: co.companyId,
        detail: { changed: { notice_url: 'https://shop.example.in/privacy', events_retention_days: 45 } },
      },
    ]);
    // a refused change writes nothing
    await putSettings(co.privacy, { events_retention_days: 0 });
    expect(await listAudit(ctx.db, co.companyId, { limit: 10, action: 'privacy_settings.changed' })).toHaveLength(2);
  });

  it('needs the privacy permission: a commerce key gets 403 and changes nothing', async () => {
    const co = await privacyCompany();
    expect((await getSettings(co.headers)).status).toBe(403);
    const res = await putSettings(co.headers, { events_retention_days: 1 });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('"privacy" permission');
    expect((await getSettings(co.privacy)).body.data).toEqual(DEFAULTS);
  });

  it("is one company's: another company's privacy key neither sees nor changes it", async () => {
    const a = await privacyCompany();
    const b = await privacyCompany();
    await putSettings(a.privacy, { events_retention_days: 5 });
    expect((await getSettings(b.privacy)).body.data).toEqual(DEFAULTS);
    await putSettings(b.privacy, { events_retention_days: 9 });
    expect((await getSettings(a.privacy)).body.data.events_retention_days).toBe(5);
  });

  it('takes every number at its edges and refuses one past them', async () => {
    const co = await privacyCompany();
    for (const field of ['events_retention_days', 'jobs_retention_days', 'checkout_sessions_retention_days']) {
      for (const ok of [1, 3650]) expect((await putSettings(co.privacy, { [field]: ok })).body.data[field]).toBe(ok);
      for (const bad of [0, 3651, 1.5, '30', null, -1]) await refused(co, { [field]: bad }, field);
    }
    for (const ok of [1, 20]) expect((await putSettings(co.privacy, { inactive_customer_years: ok })).body.data.inactive_customer_years).toBe(ok);
    for (const bad of [0, 21, 2.5, '3']) await refused(co, { inactive_customer_years: bad }, 'inactive_customer_years');
    for (const ok of [365, 3650]) expect((await putSettings(co.privacy, { audit_retention_days: ok })).body.data.audit_retention_days).toBe(ok);
    for (const bad of [364, 3651, null, 400.5]) await refused(co, { audit_retention_days: bad }, 'audit_retention_days');
  });

  it('takes an https notice link up to 2000 characters and refuses anything else', async () => {
    const co = await privacyCompany();
    const longest = `https://shop.example.in/${'p'.repeat(2000 - 'https://shop.example.in/'.length)}`;
    expect(longest).toHaveLength(2000);
    expect((await putSettings(co.privacy, { notice_url: longest })).body.data.notice_url).toBe(longest);
    for (const bad of [`${longest}x`, 'http://shop.example.in/privacy', 'shop.example.in/privacy', 'https://', 'javascript:alert(1)', '', 42])
      await refused(co, { notice_url: bad }, 'notice_url');
  });

  it('answers 400 for a body that is not an object, and reports each bad field', async () => {
    const co = await privacyCompany();
    const res = await putSettings(co.privacy, { events_retention_days: 0, audit_retention_days: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['audit_retention_days', 'events_retention_days']);
    expect((await putSettings(co.privacy, [1])).status).toBe(400);
  });
});

/** Runs an admin command on this file's database and services; exit code, stdout and stderr. */
async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(argv, (t) => out.push(t), { db: ctx.testDb.db, services: ctx.services, caller: { err: (t) => err.push(t) } });
  return { code, out: out.join('\n'), err: err.join('') };
}

describe('admin CLI: privacy', () => {
  it('shows the defaults, sets the fields given, clears with none, and records the CLI user', async () => {
    const co = await privacyCompany();
    const show = await admin('privacy', 'show', '--company', co.company.slug, '--json');
    expect(show.code, show.err).toBe(0);
    expect(JSON.parse(show.out)).toEqual(DEFAULTS);
    const set = await admin(
      'privacy',
      'set',
      '--company',
      co.company.slug,
      '--notice-url',
      'https://shop.example.in/privacy',
      '--events-days',
      '60',
      '--jobs-days',
      '10',
      '--checkouts-days',
      '5',
      '--inactive-years',
      '2',
      '--audit-days',
      '400',
      '--json',
    );
    expect(set.code, set.err).toBe(0);
    expect(JSON.parse(set.out)).toMatchObject({
      notice_url: 'https://shop.example.in/privacy',
      events_retention_days: 60,
      jobs_retention_days: 10,
      checkout_sessions_retention_days: 5,
      inactive_customer_years: 2,
      audit_retention_days: 400,
    });
    const cleared = await admin('privacy', 'set', '--company', co.company.slug, '--notice-url', 'none', '--inactive-years', 'none', '--json');
    expect(JSON.parse(cleared.out)).toMatchObject({ notice_url: null, inactive_customer_years: null, events_retention_days: 60 });
    const [entry] = await listAudit(ctx.db, co.companyId, { limit: 1 });
    expect(entry).toMatchObject({
      actor_kind: 'cli',
      action: 'privacy_settings.changed',
      detail: { changed: { notice_url: null, inactive_customer_years: null } },
    });
    // a table for people
    const table = await admin('privacy', 'show', '--company', co.company.slug);
    expect(table.out).toContain('EVENTS DAYS');
  });

  it('refuses a wrong call with the usage line, and a value out of range with the field', async () => {
    const co = await privacyCompany();
    const none = await admin('privacy', 'set', '--company', co.company.slug);
    expect(none.code).toBe(2);
    expect(none.err).toContain('name at least one of');
    const word = await admin('privacy', 'set', '--company', co.company.slug, '--events-days', 'ten');
    expect(word.code).toBe(2);
    expect(word.err).toContain('--events-days takes a whole number (1-3650)');
    const range = await admin('privacy', 'set', '--company', co.company.slug, '--audit-days', '10');
    expect(range.code).not.toBe(0);
    expect(range.err).toContain('audit_retention_days');
    expect(JSON.parse((await admin('privacy', 'show', '--company', co.company.slug, '--json')).out)).toEqual(DEFAULTS);
  });
});
