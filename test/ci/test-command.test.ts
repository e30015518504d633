import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * CI proves the command a user is told to run: the README's test command is `npm test`, and every
 * run of the suite in .ci/ goes through it (reporter flags after `--`), never through `npx vitest` or a bare `vitest`.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
/** Shell lines of a script without comments. */
const commandLines = (text: string) => text.split('\n').filter((line) => line.trim() && !line.trim().startsWith('#'));

describe("CI runs the README's test command", () => {
  it('the README tells a user to run `npm test`, and `npm test` is vitest run', () => {
    expect(read('README.md')).toMatch(/```sh\nnpm test\n```/);
    expect(JSON.parse(read('package.json')).scripts.test).toBe('vitest run');
  });

  it('every suite run in .ci/ is `npm test`, none calls vitest directly', () => {
    const scripts = readdirSync(join(ROOT, '.ci')).filter((f) => f === 'run' || f.endsWith('.sh'));
    const direct: string[] = [];
    let viaNpmTest = 0;
    for (const file of scripts)
      for (const line of commandLines(read(`.ci/${file}`))) {
        if (/\bnpm (?:run )?test\b/.test(line)) viaNpmTest++;
        // vitest as a command: at the start of a line or after ; & | (, through npx, or by its bin path
        if (/(?:^\s*|[;&|(]\s*|\bnpx\s+(?:-\S+\s+)*|\.bin\/)vitest\b/.test(line)) direct.push(`.ci/${file}: ${line.trim()}`);
      }
    expect(direct).toEqual([]);
    expect(viaNpmTest).toBeGreaterThan(0);
  });
});
