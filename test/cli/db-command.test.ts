import { beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { useTestApp } from '../helpers/app.js';
import { onCitus } from '../helpers/db.js';

const ctx = useTestApp();

async function admin(...argv: string[]) {
  const lines: string[] = [];
  const code = await runAdmin(argv, (t) => lines.push(t));
  return { code, out: lines.join('\n') };
}

describe('admin CLI: db distribute', () => {
  beforeAll(() => {
    if (ctx.testDb.url) process.env.DATABASE_URL = ctx.testDb.url;
  });

  it('says what it did: nothing without Citus; the tables and their distribution on Citus', async (t) => {
    if (!ctx.testDb.url) return t.skip('PGlite: the CLI opens DATABASE_URL, and this file has no pg URL');
    const res = await admin('db', 'distribute');
    expect(res.code).toBe(0);
    const json = JSON.parse((await admin('db', 'distribute', '--json')).out);
    if (!onCitus()) {
      expect(res.out).toMatch(/no citus extension/);
      expect(json).toMatchObject({ citus: false, statements: [], tables: [] });
      return;
    }
    // Already distributed by the migrator: nothing to do, and the table shows the design.
    expect(res.out).toMatch(/already distributed: nothing to do/);
    expect(res.out).toMatch(/^companies\s+reference/m);
    expect(res.out).toMatch(/^orders\s+distributed\s+company_id/m);
    expect(json.citus).toBe(true);
    expect(json.statements).toEqual([]);
  });

  it('refuses arguments it does not take', async () => {
    expect((await admin('db', 'distribute', 'now')).code).toBe(2);
  });
});
