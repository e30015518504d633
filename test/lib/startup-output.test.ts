import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmptyDatabase } from '../helpers/db.js';

/**
 * What `npm start` prints: readable lines at a terminal, JSON lines anywhere else (containers,
 * CI, a pipe to a collector), and in both the banner with the base URL and the demo key, printed once, in the banner
 * only, never in a log line. The terminal is a real pseudo-terminal (`script` from util-linux); each run starts on a new
 * database, as a first start does (migrations, the demo company).
 */
const cleanup: (() => Promise<unknown> | void)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

/** Settings of a first start on a new database: PostgreSQL when the suite has one, else the embedded database. */
async function freshStart(): Promise<Record<string, string>> {
  const db = await createEmptyDatabase();
  if (db) {
    cleanup.push(db.drop);
    return { DATABASE_URL: db.url };
  }
  const dir = mkdtempSync(join(tmpdir(), 'startup-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return { DATABASE_URL: '', DATA_DIR: dir };
}

/** Starts the service (at a terminal or on a pipe) and returns what it printed up to the end of its banner. */
async function startOutput(terminal: boolean): Promise<string> {
  const env = { ...process.env, ...(await freshStart()), PORT: '0', HOST: '127.0.0.1', REDIS_URL: '', LOG_LEVEL: undefined, SEED_DEMO: undefined };
  const node = `${process.execPath} --import tsx src/server.ts`;
  const child = terminal
    ? spawn('script', ['-qfec', node, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    const until = Date.now() + 150_000;
    while (!/Reference: \S+/.test(out)) {
      if (Date.now() > until || child.exitCode !== null) throw new Error(`no banner: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return out;
  } finally {
    child.kill('SIGTERM'); // `script` ends the session it started, and the service with it
    await gone;
  }
}

// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').replace(/\r/g, '');

function banner(lines: string[]) {
  const at = lines.findIndex((l) => l.startsWith('Commerce API ready on http://'));
  expect(at, lines.join('\n')).toBeGreaterThan(0);
  const key = /cok_\w+/.exec(lines.slice(at).join('\n'))?.[0];
  expect(key, 'the demo key is shown in the banner').toBeTruthy();
  return { before: lines.slice(0, at).filter((l) => l.trim()), after: lines.slice(at), key: key! };
}

describe('npm start', () => {
  it('at a terminal: readable log lines (time, level, message), then the banner with the base URL and the demo key', async () => {
    const lines = plain(await startOutput(true)).split('\n');
    const { before, after, key } = banner(lines);
    expect(before.length).toBeGreaterThanOrEqual(15); // migrations, the demo company, listening
    for (const line of before) expect(line, 'a readable line, not JSON').toMatch(/^\d\d:\d\d:\d\d (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) \S/);
    expect(before.some((l) => /INFO {2}applied \d+ migration/.test(l))).toBe(true);
    expect(after.join('\n')).toMatch(/Reference: http:\/\/127\.0\.0\.1:\d+\/api\/v1\/commerce\/docs/);
    expect(before.join('\n')).not.toContain(key);
  }, 180_000);

  it('on a pipe: one JSON object per log line, then the same banner; the demo key is in no log line', async () => {
    const lines = plain(await startOutput(false)).split('\n');
    const { before, after, key } = banner(lines);
    expect(before.length).toBeGreaterThanOrEqual(15);
    for (const line of before) expect(() => JSON.parse(line), line).not.toThrow();
    expect(before.map((l) => (JSON.parse(l) as { level: number }).level).every((level) => level === 30)).toBe(true);
    const logLines = lines.filter((l) => l.startsWith('{'));
    expect(logLines.some((l) => l.includes(key))).toBe(false);
    expect(after.filter((l) => l.includes(key)).length).toBe(2); // the key, and the curl line that uses it
  }, 180_000);
});
