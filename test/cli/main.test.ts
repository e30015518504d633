import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';

const ctx = useTestApp();
const ROOT = join(import.meta.dirname, '../..');

/** The real entry point (`npm run admin`), as a person or a script runs it. */
function admin(...argv: string[]) {
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...argv], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: ctx.testDb.url, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe('admin CLI entry point', () => {
  it('runs the catalogue commands: progress on stderr, a table or JSON on stdout', { timeout: 120_000 }, async (t) => {
    if (!ctx.testDb.url) return t.skip();
    const slug = `cli-${Date.now()}`;
    await ctx.services.companies.create({ kind: 'cli', name: 'test' }, { name: 'CLI Co', slug });

    const generated = admin('catalog', 'generate', '--company', slug, '--products', '30', '--variants', '2', '--json');
    expect(generated.code, generated.stderr).toBe(0);
    expect(JSON.parse(generated.stdout)).toMatchObject({ products: 30, variants: 60 });
    expect(generated.stderr).toMatch(/generated: 30\/30/);

    const companies = admin('company', 'list');
    expect(companies.code).toBe(0);
    expect(companies.stdout).toMatch(/^ID\s+SLUG\s+NAME/);
    expect(companies.stdout).toContain(slug);
  });

  it('exits non-zero with a clear message on every kind of failure', { timeout: 120_000 }, async (t) => {
    if (!ctx.testDb.url) return t.skip();
    const unknownCompany = admin('key', 'list', '--company', 'no-such-company');
    expect(unknownCompany.code).toBe(1);
    expect(unknownCompany.stderr).toContain('error: no company with id or slug "no-such-company"');

    const asJson = admin('key', 'list', '--company', 'no-such-company', '--json');
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stdout)).toEqual({ error: expect.stringContaining('no-such-company') });

    const missingFile = admin('catalog', 'import', '--company', 'no-such-company', '/nonexistent/catalogue.json');
    expect(missingFile.code).not.toBe(0);
    expect(missingFile.stderr).toMatch(/^error: /m);

    const badFlag = admin('company', 'update', 'x', '--status', 'paused');
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('--status must be one of active, inactive');

    const unknown = admin('catalog', 'frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('error: unknown command');

    const noDatabase = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'company', 'list'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', DB_CONNECT_TIMEOUT_MS: '500', LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(noDatabase.status).toBe(1);
    expect(noDatabase.stderr).toContain('error: cannot open the PostgreSQL server in DATABASE_URL');
  });
});
