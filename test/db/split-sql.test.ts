import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { splitSql } from '../../src/db/split-sql.js';

describe('splitSql (the migrator sends one statement at a time)', () => {
  it('splits at top-level semicolons only', () => {
    const text = `-- a comment; not a split
      CREATE TABLE a (x text DEFAULT 'semi;colon', "we;ird" int);
      /* block; /* nested; */ still */ INSERT INTO a VALUES (E'it\\'s;', 1);
      CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $body$ BEGIN RETURN 1; END $body$;
      DO $$ BEGIN PERFORM 1; END $$;
      -- trailing comment only`;
    const parts = splitSql(text);
    expect(parts).toHaveLength(4);
    expect(parts[0]).toMatch(/^-- a comment; not a split\s+CREATE TABLE a \(x text DEFAULT 'semi;colon', "we;ird" int\)$/);
    expect(parts[1]).toMatch(/INSERT INTO a VALUES \(E'it\\'s;', 1\)$/);
    expect(parts[2]).toMatch(/\$body\$ BEGIN RETURN 1; END \$body\$$/);
    expect(parts[3]).toBe('DO $$ BEGIN PERFORM 1; END $$');
  });

  it('keeps every migration whole: the pieces joined are the file, less separators and comments-only tails', () => {
    for (const f of readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql'))) {
      const text = readFileSync(join(MIGRATIONS_DIR, f), 'utf8');
      const parts = splitSql(text);
      expect(parts.length, f).toBeGreaterThan(0);
      const squash = (s: string) => s.replace(/--[^\n]*/g, '').replace(/[\s;]+/g, '');
      expect(squash(parts.join(';')), f).toBe(squash(text));
    }
  });
});
