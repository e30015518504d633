import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { serveAdminSocket } from '../../src/cli/admin-server.js';
import { adminSocketPath, callerOf, runInService } from '../../src/cli/admin-socket.js';
import { logOptions } from '../../src/lib/log-privacy.js';
import { useTestApp } from '../helpers/app.js';

const ctx = useTestApp();
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'admin-sock-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The service's logger as `npm start` makes it (level info, its serializers), its lines kept. */
function logs() {
  const lines: { level: number; msg: string; [field: string]: unknown }[] = [];
  const logger = pino(logOptions('info'), { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
  return Object.assign(logger, { lines });
}

/** The CLI's end as `npm run admin` uses it, with its output kept. */
async function forward(dataDir: string, argv: string[], cwd = dataDir) {
  const out: string[] = [];
  let err = '';
  const code = await runInService(dataDir, argv, (l) => out.push(l), callerOf({ err: (t) => (err += t), cwd, terminal: false }));
  return { code, out: out.join('\n'), err };
}

/** One raw exchange on the socket: what a client other than ours might send. */
function exchange(path: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(path, () => s.write(text));
    let got = '';
    s.on('data', (c) => (got += c.toString()));
    s.on('close', () => resolve(got));
    s.on('error', reject);
  });
}

describe('admin socket', () => {
  it('no service listening (no socket, or one left by a dead service): the CLI is told to open the folder itself', async () => {
    const dataDir = tempDir();
    expect(await forward(dataDir, ['company', 'list'])).toMatchObject({ code: undefined });
    const log = logs();
    const server = await serveAdminSocket({ dataDir, db: ctx.db, services: ctx.services, origin: 'http://127.0.0.1:1', log });
    await server!.close();
    writeFileSync(adminSocketPath(dataDir).path, ''); // a leftover file where the socket was
    expect(await forward(dataDir, ['company', 'list'])).toMatchObject({ code: undefined });
  });

  it('runs the command with the service’s database: output, errors and exit code come back; files are the caller’s', async () => {
    const dataDir = tempDir();
    const caller = tempDir();
    const log = logs();
    const server = await serveAdminSocket({ dataDir, db: ctx.db, services: ctx.services, origin: 'https://shop.example.in', log });
    try {
      expect(statSync(adminSocketPath(dataDir).dir).mode & 0o777).toBe(0o700);
      const slug = `sock-${Date.now()}`;
      const made = await forward(dataDir, ['company', 'create', '--name', 'Socket Co', '--slug', slug, '--json']);
      expect(made.code, made.err).toBe(0);
      expect(JSON.parse(made.out)).toMatchObject({ slug });
      expect((await ctx.services.companies.get(slug)).name).toBe('Socket Co');

      // a relative file is the caller's: written in the caller's folder, not the service's
      const feed = await forward(
        dataDir,
        ['catalog', 'feed', '--company', slug, '--template', 'https://shop.example.in/p/{sku}', '--out', 'feed.csv', '--json'],
        caller,
      );
      expect(feed.code, feed.err).toBe(0);
      expect(JSON.parse(feed.out)).toMatchObject({ url: expect.stringMatching(/^https:\/\/shop\.example\.in\/feeds\/meta\//), file: join(caller, 'feed.csv') });
      expect(statSync(join(caller, 'feed.csv')).isFile()).toBe(true);

      const refused = await forward(dataDir, ['key', 'list', '--company', 'no-such-company']);
      expect(refused).toMatchObject({ code: 1, out: '', err: 'error: no company with id or slug "no-such-company"\n' });
      const usage = await forward(dataDir, ['order', 'show']);
      expect(usage.code).toBe(2);
      expect(usage.err).toMatch(/^error: missing <ref>\nusage: npm run admin -- order show/);

      // one log line per command: its name and outcome, never its arguments
      const commands = log.lines.filter((l) => l.msg === 'admin command');
      expect(commands).toEqual([
        expect.objectContaining({ command: 'company create', exit: 0 }),
        expect.objectContaining({ command: 'catalog feed', exit: 0 }),
        expect.objectContaining({ command: 'key list', exit: 1 }),
        expect.objectContaining({ command: 'order show', exit: 2 }),
      ]);
      expect(JSON.stringify(log.lines)).not.toContain('Socket Co');
    } finally {
      await server!.close();
    }
  });

  it('answers anything but a command line with a usage error, and runs nothing', async () => {
    const dataDir = tempDir();
    const server = await serveAdminSocket({ dataDir, db: ctx.db, services: ctx.services, origin: 'http://127.0.0.1:1', log: logs() });
    try {
      const { path } = adminSocketPath(dataDir);
      for (const bad of ['not json\n', '{"argv": "company list"}\n', '{"argv": ["company", "list"], "cwd": "relative", "env": {}, "terminal": false}\n']) {
        const replies = (await exchange(path, bad))
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        expect(replies.at(-1)).toEqual({ exit: 2 });
        expect(replies[0].err).toMatch(/takes one JSON line/);
      }
    } finally {
      await server!.close();
    }
  });

  it('a data folder too deep for a socket path: no socket, a warning, the service goes on', async () => {
    const deep = join(tempDir(), 'x'.repeat(120));
    const log = logs();
    expect(await serveAdminSocket({ dataDir: deep, db: ctx.db, services: ctx.services, origin: 'http://127.0.0.1:1', log })).toBeNull();
    expect(log.lines).toEqual([expect.objectContaining({ level: 40, msg: expect.stringMatching(/^admin socket not started: its path is too long/) })]);
  });
});
