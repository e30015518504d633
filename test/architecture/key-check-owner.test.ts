import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The key checked inside a request's first statement has one owner, src/keys/key-check.ts (its SQL in
 * keys.queries.ts): domain code reads through a tenant reader and never names the check, and Tenant carries none.
 * Each name below may appear only in the files listed for it; a match anywhere else under src/ fails.
 */
const OWNER = ['src/keys/key-check.ts', 'src/keys/keys.queries.ts'];

const RULES: { what: string; pattern: RegExp; allowed: string[] }[] = [
  // the mechanism itself, and the names it had when it was spread over the domain code
  { what: 'the check column', pattern: /\bkey_ok\b|\bkey_checked_row\b/, allowed: OWNER },
  { what: 'the check SQL', pattern: /\bkeyChecked\b|\bKeyCheckColumns\b|\bkeyOkSql\b/, allowed: OWNER },
  { what: 'the old owner shapes', pattern: /\bKeyOwner\b|\bKeyCheck\b|\bsettleKey\b|\bkeyInStatement\b/, allowed: [] },
  { what: 'a check carried by the tenant', pattern: /\btenant\??\.check\b|\bcheck\??\.pending\b/, allowed: [] },
  // the key's table: read and written by the keys module's queries (db/ declares and distributes it)
  { what: 'a statement on the api_keys table', pattern: /\b(?:FROM|JOIN|UPDATE|INTO)\s+api_keys\b/i, allowed: ['src/keys/keys.queries.ts', 'src/db/**'] },
  // who may take part: the key memory defers, the tool door settles in full, the HTTP auth settles what is left
  { what: 'deferring a check', pattern: /\bdeferKeyCheck\b/, allowed: ['src/keys/key-check.ts', 'src/keys/keys.service.ts'] },
  { what: 'settling in full before work', pattern: /\bsettleInFull\b/, allowed: ['src/keys/key-check.ts', 'src/mcp/tool-definition.ts'] },
  { what: 'settling before the answer leaves', pattern: /\bauthenticateUnsettled\b/, allowed: ['src/keys/key-check.ts', 'src/http/auth.ts'] },
  // the opt-in is declared by a door (a REST route's config, a tool's definition), never by a service or query
  { what: 'the opt-in', pattern: /\bkeyInFirstStatement\b/, allowed: ['src/http/**', 'src/mcp/**'] },
];

const ROOT = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = posix.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

const allowedBy = (globs: string[], file: string) => globs.some((g) => (g.endsWith('/**') ? file.startsWith(g.slice(0, -2)) : file === g));

/** `file: what` for every line that names something outside the files allowed to. */
function violations(files: { path: string; text: string }[]): string[] {
  return files.flatMap(({ path, text }) =>
    RULES.filter((r) => !allowedBy(r.allowed, path) && r.pattern.test(text)).map((r) => `${path}: ${r.what} (${r.pattern.source})`),
  );
}

describe('the key check has one owner', () => {
  const files = sourceFiles('src').map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));

  it('no file outside its owner names the check, its SQL, its table or its settlement', () => {
    expect(violations(files)).toEqual([]);
  });

  it('Tenant is who a request acts for, with no check of its own', () => {
    const keys = files.find((f) => f.path === 'src/keys/keys.service.ts')!.text;
    const tenant = /export interface Tenant \{([^}]*)\}/.exec(keys);
    expect(tenant).not.toBeNull();
    expect(tenant![1]).not.toMatch(/\bcheck\b|pending|settled/);
  });

  it('finds what it guards against', () => {
    expect(
      violations([
        { path: 'src/orders/orders.queries.ts', text: 'sql`SELECT ${x} AS key_ok`' },
        { path: 'src/catalogue/read-model.queries.ts', text: 'function stockSql({ companyId, keyId }: KeyOwner) {}' },
        { path: 'src/orders/orders.service.ts', text: 'settleKey(tenant, prelude.key_ok);' },
        { path: 'src/http/auth.ts', text: 'const check = req.tenant?.check;' },
        { path: 'src/customers/customers.queries.ts', text: 'FROM api_keys k' },
        { path: 'src/orders/orders.service.ts', text: 'await settleInFull(tenant);' },
        { path: 'src/catalogue/catalogue.service.ts', text: '{ keyInFirstStatement: true }' },
      ]),
    ).toHaveLength(8);
    expect(violations([{ path: 'src/mcp/tool-definition.ts', text: 'keyInFirstStatement: true, await settleInFull(ctx.tenant)' }])).toEqual([]);
  });
});
