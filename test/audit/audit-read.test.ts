import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { AUDIT_PAGE } from '../../src/contract/audit.js';
import { recordAudit } from '../../src/db/audit-log.js';
import { useTestApp } from '../helpers/app.js';
import { onCitus } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { BASE } from '../helpers/orders.js';

/** Reading the trail (GET /audit with the `audit` permission, `audit list`): pages, edges, one company only; and no one changes it. */
const ctx = useTestApp();
const TEST_ACTOR = { kind: 'cli', name: 'test' } as const;

/** A company with `n` more entries (action `test.entry`, numbered) and a key that may read them. */
async function auditedCompany(n: number) {
  const co = await createCompanyWithKey(ctx.services);
  for (let i = 0; i < n; i++) await recordAudit(ctx.db, co.company.id, TEST_ACTOR, { action: 'test.entry', detail: { n: i } });
  const { key } = await ctx.services.keys.create(co.company.id, TEST_ACTOR, 'auditor', ['audit']);
  return { ...co, audit: { 'x-api-key': key } };
}

async function getAudit(headers: Record<string, string>, query = '') {
  const res = await ctx.app.inject({ method: 'GET', url: `${BASE}/audit${query}`, headers });
  return { status: res.statusCode, body: res.json() };
}

describe('GET /audit', () => {
  it('needs the audit permission: a commerce key and a key with every other permission get 403 forbidden', async () => {
    const co = await auditedCompany(1);
    expect(await getAudit(co.headers)).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
    const { key } = await ctx.services.keys.create(co.company.id, TEST_ACTOR, 'all but audit', ['webhooks', 'catalogue', 'ucp', 'cod', 'privacy']);
    expect((await getAudit({ 'x-api-key': key })).status).toBe(403);
    expect((await getAudit(co.audit)).status).toBe(200);
  });

  it('answers newest first in the entry shape, paged by next_before to the end with nothing missed or repeated', async () => {
    const co = await auditedCompany(7);
    const first = await getAudit(co.audit, '?limit=1');
    expect(first.status).toBe(200);
    // the newest: the auditor key's own creation
    expect(first.body).toEqual({
      data: [
        {
          id: expect.stringMatching(/^aud_/),
          at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
          actor: { kind: 'cli', name: 'test' },
          action: 'key.created',
          subject: { kind: 'key', id: expect.stringMatching(/^key_/) },
          detail: { prefix: expect.stringMatching(/^cok_/), name: 'auditor', permissions: ['commerce', 'audit'] },
        },
      ],
      count: 1,
      limit: 1,
      has_more: true,
      next_before: expect.stringMatching(/^\d+$/),
    });
    // company.created, key.created (the fixture's), 7 entries, key.created (the auditor's): 10, in pages of 3
    const seen: { id: string; action: string; detail: Record<string, unknown> }[] = [];
    let before: string | null = null;
    let pages = 0;
    do {
      const page = await getAudit(co.audit, `?limit=3${before ? `&before=${before}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data);
      before = page.body.next_before;
      expect(page.body.has_more).toBe(before !== null);
      pages++;
    } while (before);
    expect(pages).toBe(4);
    expect(seen.map((e) => e.action)).toEqual(['key.created', ...Array(7).fill('test.entry'), 'key.created', 'company.created']);
    expect(seen.slice(1, 8).map((e) => e.detail.n)).toEqual([6, 5, 4, 3, 2, 1, 0]);
    expect(new Set(seen.map((e) => e.id)).size).toBe(10);
    // a page that ends exactly at the end says so
    const exact = await getAudit(co.audit, '?limit=10');
    expect(exact.body).toMatchObject({ count: 10, has_more: false, next_before: null });
  });

  it('keeps one action with `action`', async () => {
    const co = await auditedCompany(3);
    const only = await getAudit(co.audit, '?action=test.entry&limit=50');
    expect(only.body.data.map((e: { action: string }) => e.action)).toEqual(['test.entry', 'test.entry', 'test.entry']);
    expect((await getAudit(co.audit, '?action=no.such_action')).body).toMatchObject({ data: [], count: 0, has_more: false, next_before: null });
  });

  it(`limit is ${AUDIT_PAGE.min} to ${AUDIT_PAGE.max}, default ${AUDIT_PAGE.default}; a bad limit, cursor or action is a 400 naming it`, async () => {
    const co = await auditedCompany(AUDIT_PAGE.max + 1);
    expect((await getAudit(co.audit)).body).toMatchObject({ count: AUDIT_PAGE.default, limit: AUDIT_PAGE.default, has_more: true });
    expect((await getAudit(co.audit, `?limit=${AUDIT_PAGE.min}`)).body).toMatchObject({ count: 1 });
    expect((await getAudit(co.audit, `?limit=${AUDIT_PAGE.max}`)).body).toMatchObject({ count: AUDIT_PAGE.max, has_more: true });
    for (const [query, path] of [
      [`?limit=${AUDIT_PAGE.min - 1}`, 'limit'],
      [`?limit=${AUDIT_PAGE.max + 1}`, 'limit'],
      ['?limit=2.5', 'limit'],
      ['?before=abc', 'before'],
      ['?before=0', 'before'],
      ['?before=-5', 'before'],
      [`?before=${'9'.repeat(19)}`, 'before'],
      ['?action=DROP%20TABLE', 'action'],
      [`?action=a.${'b'.repeat(63)}`, 'action'],
    ] as const) {
      const res = await getAudit(co.audit, query);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code, query).toBe('validation_failed');
      expect(
        res.body.error.details.map((d: { path: string }) => d.path),
        query,
      ).toEqual([path]);
    }
    // the largest cursor accepted: everything is older
    expect((await getAudit(co.audit, `?limit=1&before=${'9'.repeat(18)}`)).body).toMatchObject({ count: 1 });
  });

  it("shows a company's own entries only: B's audit key never sees A's, whatever cursor it sends", async () => {
    const a = await auditedCompany(3);
    const b = await auditedCompany(0);
    const aIds = new Set((await getAudit(a.audit, '?limit=50')).body.data.map((e: { id: string }) => e.id));
    const bPage = await getAudit(b.audit, `?limit=50&before=${'9'.repeat(18)}`);
    expect(bPage.body.data.map((e: { action: string }) => e.action)).toEqual(['key.created', 'key.created', 'company.created']);
    expect(bPage.body.data.some((e: { id: string }) => aIds.has(e.id))).toBe(false);
    expect((await getAudit(b.audit, '?action=test.entry')).body.data).toEqual([]);
  });
});

describe('audit list (CLI)', () => {
  const run = async (...argv: string[]) => {
    const lines: string[] = [];
    const errors: string[] = [];
    const code = await runAdmin(argv, (t) => lines.push(t), { db: ctx.db, services: ctx.services, caller: { err: (t) => errors.push(t) } });
    return { code, out: lines.join('\n'), err: errors.join('') };
  };

  it('prints the page as REST answers it (--json), a table otherwise with the command for older entries; refuses a bad limit', async () => {
    const co = await auditedCompany(4);
    const json = await run('audit', 'list', '--company', co.company.slug, '--limit', '2', '--json');
    expect(json.code).toBe(0);
    const page = JSON.parse(json.out);
    expect(page).toEqual((await getAudit(co.audit, '?limit=2')).body);
    const older = await run('audit', 'list', '--company', co.company.slug, '--limit', '2', '--before', page.next_before, '--action', 'test.entry', '--json');
    expect(JSON.parse(older.out).data.map((e: { detail: { n: number } }) => e.detail.n)).toEqual([2, 1]);
    const table = await run('audit', 'list', '--company', co.company.slug, '--limit', '1');
    expect(table.out).toMatch(/ACTION[\s\S]*key\.created/);
    expect(table.err).toMatch(new RegExp(`^older entries: audit list --company ${co.company.slug} --before \\d+\\n$`));
    for (const limit of ['0', String(AUDIT_PAGE.max + 1)]) {
      const bad = await run('audit', 'list', '--company', co.company.slug, '--limit', limit);
      expect(bad.code).toBe(1);
      expect(bad.err).toContain('limit');
    }
    expect((await run('audit', 'list')).code).toBe(2);
  });
});

describe('append-only in the database', () => {
  it('refuses UPDATE, DELETE and TRUNCATE of audit_log; DELETE passes only with commerce.audit_purge on (the retention purge)', async (t) => {
    if (onCitus()) return t.skip('on Citus the trigger is not created (docs/decisions.md)');
    const co = await auditedCompany(2);
    const id = co.company.id;
    const count = async () => (await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM audit_log WHERE company_id = ${id}`))[0].n;
    const before = await count();
    await expect(ctx.db.query(sql`UPDATE audit_log SET actor = 'someone else' WHERE company_id = ${id}`)).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(ctx.db.query(sql`DELETE FROM audit_log WHERE company_id = ${id}`)).rejects.toThrow(/append-only: DELETE refused/);
    await expect(ctx.db.tx((tx) => tx.query(sql`TRUNCATE audit_log`))).rejects.toThrow(/append-only: TRUNCATE refused/);
    // the purge setting allows DELETE, never UPDATE
    await expect(
      ctx.db.tx(async (tx) => {
        await tx.query(sql`SET LOCAL commerce.audit_purge = 'on'`);
        await tx.query(sql`UPDATE audit_log SET actor = 'x' WHERE company_id = ${id}`);
      }),
    ).rejects.toThrow(/UPDATE refused/);
    expect(await count()).toBe(before);
    await ctx.db.tx(async (tx) => {
      await tx.query(sql`SET LOCAL commerce.audit_purge = 'on'`);
      await tx.query(sql`DELETE FROM audit_log WHERE company_id = ${id} AND action = 'test.entry'`);
    });
    expect(await count()).toBe(before - 2);
    // the setting was the purge transaction's alone
    await expect(ctx.db.query(sql`DELETE FROM audit_log WHERE company_id = ${id}`)).rejects.toThrow(/DELETE refused/);
  });
});
