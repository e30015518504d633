import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/contract/errors.js';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';

const ctx = useTestApp();

/** The AppError a call refuses with (fails when it succeeds). */
async function refusal(call: Promise<unknown>): Promise<AppError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('UCP settings', () => {
  it('are the defaults until first set: off, a 30-minute hold, no links', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    expect(await ctx.services.ucpSettings.get(company.id)).toEqual({
      slug: company.slug,
      enabled: false,
      hold_minutes: 30,
      privacy_url: null,
      terms_url: null,
      updated_at: null,
    });
    expect(await ctx.services.ucpSettings.bySlug(company.slug)).toBeUndefined();
  });

  it('take hold_minutes from 1 to 1440 and refuse 0 and 1441, naming the field', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    for (const minutes of [1, 1440]) {
      expect((await ctx.services.ucpSettings.set(company.id, { kind: 'cli', name: 'test' }, { hold_minutes: minutes })).hold_minutes).toBe(minutes);
      expect((await ctx.services.ucpSettings.get(company.id)).hold_minutes).toBe(minutes);
    }
    for (const minutes of [0, 1441, 2.5]) {
      const err = await refusal(ctx.services.ucpSettings.set(company.id, { kind: 'cli', name: 'test' }, { hold_minutes: minutes }));
      expect(err.kind).toBe('validation_failed');
      expect(err.details).toEqual([{ path: 'hold_minutes', message: 'must be an integer from 1 to 1440' }]);
    }
    expect((await ctx.services.ucpSettings.get(company.id)).hold_minutes).toBe(1440);
  });

  it('change only the fields given; null removes a link; links must be https', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    const s = ctx.services.ucpSettings;
    await s.set(
      company.id,
      { kind: 'cli', name: 'test' },
      { enabled: true, privacy_url: 'https://shop.example.in/privacy', terms_url: 'https://shop.example.in/terms' },
    );
    const after = await s.set(company.id, { kind: 'cli', name: 'test' }, { hold_minutes: 45 });
    expect(after).toMatchObject({
      enabled: true,
      hold_minutes: 45,
      privacy_url: 'https://shop.example.in/privacy',
      terms_url: 'https://shop.example.in/terms',
      updated_at: expect.stringMatching(/Z$/),
    });
    expect(await s.set(company.id, { kind: 'cli', name: 'test' }, { privacy_url: null })).toMatchObject({
      privacy_url: null,
      terms_url: 'https://shop.example.in/terms',
    });
    for (const bad of ['http://shop.example.in/privacy', 'not a url', 'https://user:pw@shop.example.in/']) {
      const err = await refusal(s.set(company.id, { kind: 'cli', name: 'test' }, { terms_url: bad }));
      expect(err.details).toEqual([{ path: 'terms_url', message: expect.stringContaining('https://') }]);
    }
    expect((await s.get(company.id)).terms_url).toBe('https://shop.example.in/terms');
  });

  it('turn the business on and off for its slug; an inactive company is never found', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    const s = ctx.services.ucpSettings;
    await s.set(company.id, { kind: 'cli', name: 'test' }, { enabled: true, hold_minutes: 20 });
    expect(await s.bySlug(company.slug)).toEqual({
      companyId: company.id,
      slug: company.slug,
      name: company.name,
      holdMinutes: 20,
      privacyUrl: null,
      termsUrl: null,
      autoCourierBooking: company.auto_courier_booking,
    });
    await s.set(company.id, { kind: 'cli', name: 'test' }, { enabled: false });
    expect(await s.bySlug(company.slug)).toBeUndefined();

    const inactive = await createCompanyWithKey(ctx.services, { status: 'inactive' });
    await s.set(inactive.company.id, { kind: 'cli', name: 'test' }, { enabled: true });
    expect(await s.bySlug(inactive.company.slug)).toBeUndefined();
    expect(await s.bySlug('no-such-company-slug')).toBeUndefined();
    expect(await s.bySlug('Not A Slug')).toBeUndefined();
  });
});

describe('UCP hosts', () => {
  it('are stored lower-case, listed by name, added again unchanged and removed', async () => {
    const { company } = await createCompanyWithKey(ctx.services);
    const s = ctx.services.ucpSettings;
    const name = `shop-${company.slug}.example.in`;
    const added = await s.addHost(company.id, { kind: 'cli', name: 'test' }, name.toUpperCase());
    expect(added).toEqual({ host: name, created_at: expect.stringMatching(/Z$/) });
    expect(await s.addHost(company.id, { kind: 'cli', name: 'test' }, `${name}.`)).toEqual(added);
    await s.addHost(company.id, { kind: 'cli', name: 'test' }, `${name}:8443`);
    expect((await s.hosts(company.id)).map((h) => h.host)).toEqual([name, `${name}:8443`]);
    expect(await s.removeHost(company.id, { kind: 'cli', name: 'test' }, name)).toEqual({ host: name, removed: true });
    expect((await s.hosts(company.id)).map((h) => h.host)).toEqual([`${name}:8443`]);
    expect((await refusal(s.removeHost(company.id, { kind: 'cli', name: 'test' }, name))).kind).toBe('not_found');
    const bad = await refusal(s.addHost(company.id, { kind: 'cli', name: 'test' }, 'https://shop.example.in/'));
    expect(bad.kind).toBe('validation_failed');
    expect(bad.details).toEqual([{ path: 'host', message: expect.stringContaining('without https://') }]);
  });

  it('refuse a host another company registered with a conflict that names no company', async () => {
    const first = await createCompanyWithKey(ctx.services);
    const second = await createCompanyWithKey(ctx.services);
    const name = `taken-${randomBytes(4).toString('hex')}.example.in`;
    await ctx.services.ucpSettings.addHost(first.company.id, { kind: 'cli', name: 'test' }, name);
    const err = await refusal(ctx.services.ucpSettings.addHost(second.company.id, { kind: 'cli', name: 'test' }, name.toUpperCase()));
    expect(err.kind).toBe('conflict');
    expect(err.status).toBe(409);
    expect(err.message).not.toContain(first.company.slug);
    expect(err.message).not.toContain(first.company.id);
    expect(await ctx.services.ucpSettings.hosts(second.company.id)).toEqual([]);
    // another company cannot remove it either
    expect((await refusal(ctx.services.ucpSettings.removeHost(second.company.id, { kind: 'cli', name: 'test' }, name))).kind).toBe('not_found');
    expect((await ctx.services.ucpSettings.hosts(first.company.id)).map((h) => h.host)).toEqual([name]);
  });

  it('name their company only while it is active and its business on; a port-specific host decides over its bare name', async () => {
    const a = await createCompanyWithKey(ctx.services);
    const b = await createCompanyWithKey(ctx.services);
    const s = ctx.services.ucpSettings;
    const name = `both-${a.company.slug}.example.in`;
    await s.addHost(a.company.id, { kind: 'cli', name: 'test' }, name);
    await s.addHost(b.company.id, { kind: 'cli', name: 'test' }, `${name}:8443`);
    // both have settings, with the business off
    await s.set(a.company.id, { kind: 'cli', name: 'test' }, { enabled: false, hold_minutes: 10 });
    await s.set(b.company.id, { kind: 'cli', name: 'test' }, { enabled: false });
    expect(await s.byHost(name)).toBeUndefined(); // registered, but the business is off
    await s.set(a.company.id, { kind: 'cli', name: 'test' }, { enabled: true });
    expect((await s.byHost(name))?.companyId).toBe(a.company.id);
    expect((await s.byHost(`${name.toUpperCase()}:3000`))?.companyId).toBe(a.company.id);
    // b registered the port: its registration decides there, and while b is off nobody answers for it
    expect(await s.byHost(`${name}:8443`)).toBeUndefined();
    await s.set(b.company.id, { kind: 'cli', name: 'test' }, { enabled: true });
    expect((await s.byHost(`${name}:8443`))?.companyId).toBe(b.company.id);
    expect(await s.byHost('unregistered.example.in')).toBeUndefined();
    expect(await s.byHost('')).toBeUndefined();
  });
});
