import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { progressWriter } from '../../src/cli/output.js';
import { useTestApp } from '../helpers/app.js';

const ctx = useTestApp();
const ROOT = join(import.meta.dirname, '../..');

/** A script run as a person runs it, its stderr piped (as into `tee` or a CI log). */
function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: ctx.testDb.url, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('progress of long work', () => {
  it('piped: a whole line per step; on a terminal: one line rewritten in place, ended once', () => {
    let piped = '';
    const toPipe = progressWriter((t) => (piped += t), false);
    let tty = '';
    const toTerminal = progressWriter((t) => (tty += t), true);
    for (const done of [1000, 2000, 2500]) {
      toPipe('generated', done, 2500, 'products');
      toTerminal('generated', done, 2500, 'products');
    }
    expect(piped).toBe('generated: 1000/2500 products\ngenerated: 2000/2500 products\ngenerated: 2500/2500 products\n');
    expect(tty).toBe('\rgenerated: 1000/2500 products\rgenerated: 2000/2500 products\rgenerated: 2500/2500 products\n');
  });

  it('the generator script and the CLI, piped, print each step on its own line (no \\r running them together)', { timeout: 180_000 }, async (t) => {
    if (!ctx.testDb.url) return t.skip('PGlite: the script opens DATABASE_URL, and this file has no pg URL');
    const slug = `progress-${Date.now()}`;
    await ctx.services.companies.create({ kind: 'cli', name: 'test' }, { name: 'Progress Co', slug });

    const script = await run(['scripts/generate-catalogue.ts', '--company', slug, '--products', '2500', '--variants', '1']);
    expect(script.code, script.stderr).toBe(0);
    expect(script.stderr).not.toContain('\r');
    expect(script.stderr.split('\n').slice(0, 4)).toEqual([
      'generated: 1000/2500 products',
      'generated: 2000/2500 products',
      'generated: 2500/2500 products',
      expect.stringMatching(/^2500 products, 2500 variants in \d+\.\d s$/),
    ]);

    const cli = await run(['src/cli/main.ts', 'catalog', 'generate', '--company', slug, '--products', '1500', '--variants', '1', '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).toBe('generated: 1000/1500 products\ngenerated: 1500/1500 products\n');
    expect(JSON.parse(cli.stdout)).toEqual({ products: 1500, variants: 1500 });
  });
});
