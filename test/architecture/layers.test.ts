import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Imports point down only. The layers, top first: a file may import files of its own layer and of any layer
 * below it, never above. The first row whose pattern matches a file gives its layer (`**` any depth, `*` one
 * name). Only relative imports of src/ files count, `import type` included: a type is a dependency too.
 */
const LAYERS: [layer: string, paths: string[]][] = [
  ['doors', ['src/http/routes/**', 'src/mcp/**', 'src/cli/**', 'src/server.ts', 'src/main.ts', 'src/app.ts']],
  ['wiring', ['src/services.ts', 'src/boot.ts', 'src/telemetry.ts', 'src/http/*.ts', 'src/seed/**']],
  // customers' data rights and retention reach every domain's tables (erasure, access, purges)
  ['privacy', ['src/privacy/**']],
  // cash on delivery orchestrates the order lifecycle (fulfilment); an order's COD confirmation is the order's own
  // state (src/orders/cod-confirmation.queries.ts)
  ['cod', ['src/cod/**']],
  ['fulfilment', ['src/fulfilment/**']],
  ['checkout', ['src/checkout/**']],
  ['orders', ['src/orders/**']],
  ['customers', ['src/customers/**']],
  ['catalogue', ['src/catalogue/**']],
  ['events', ['src/events/**']],
  ['adapters', ['src/media/**', 'src/keys/**', 'src/companies/**', 'src/couriers/**', 'src/payments/**']],
  ['contract', ['src/contract/**']],
  ['db', ['src/db/**']],
  ['lib', ['src/lib/**', 'src/config.ts']],
];

/**
 * Edges allowed to point the wrong way, each with the reason; none today. An edge listed here that no longer
 * exists fails the test too, so the list cannot go stale.
 */
const KNOWN_TODAY: string[] = [];

const ROOT = join(import.meta.dirname, '..', '..');

function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*\*/g, '\0')
    .replace(/\*/g, '[^/]*')
    .replace(/\0/g, '.*');
  return new RegExp(`^${body}$`);
}
const MATCHERS = LAYERS.flatMap(([layer, paths], rank) => paths.map((p) => ({ layer, rank, re: globToRegExp(p) })));

function layerOf(file: string): { layer: string; rank: number } | undefined {
  return MATCHERS.find((m) => m.re.test(file));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = posix.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Relative specifiers of static imports and re-exports, and of dynamic `import('...')`. */
function relativeImports(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]/g)) found.add(m[1]);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*['"](\.[^'"]+)['"]/g)) found.add(m[1]);
  for (const m of text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)) found.add(m[1]);
  return [...found];
}

function edges(): { from: string; to: string }[] {
  return sourceFiles('src').flatMap((from) =>
    relativeImports(readFileSync(join(ROOT, from), 'utf8'))
      .map((spec) => posix.normalize(posix.join(posix.dirname(from), spec)).replace(/\.js$/, '.ts'))
      .filter((to) => to.startsWith('src/') && to.endsWith('.ts'))
      .map((to) => ({ from, to })),
  );
}

/** `a → b` for every import from a file to a layer above its own. */
function upwardImports(all: { from: string; to: string }[]): string[] {
  return all
    .filter(({ from, to }) => {
      const a = layerOf(from);
      const b = layerOf(to);
      return a && b && b.rank < a.rank;
    })
    .map(({ from, to }) => `${from} → ${to}`)
    .sort();
}

describe('import direction', () => {
  const all = edges();

  it('places every source file in a layer', () => {
    expect(sourceFiles('src').filter((f) => !layerOf(f))).toEqual([]);
  });

  it('finds the imports it checks', () => {
    expect(all.length).toBeGreaterThan(100);
    expect(relativeImports(`import type { A } from '../a.js';\nexport * from './b.js';\nconst c = await import('./c.js');`)).toEqual([
      '../a.js',
      './b.js',
      './c.js',
    ]);
  });

  it('has no import pointing up the layers, beyond the known ones of today', () => {
    const upward = upwardImports(all);
    const known = upward.filter((e) => KNOWN_TODAY.includes(e));
    if (known.length) console.info(`[layers] ${known.length} known upward imports, to remove:\n  ${known.join('\n  ')}`);
    expect(
      upward.filter((e) => !KNOWN_TODAY.includes(e)),
      'new upward imports',
    ).toEqual([]);
    expect(
      KNOWN_TODAY.filter((e) => !upward.includes(e)),
      'KNOWN_TODAY lists edges that no longer exist: remove them',
    ).toEqual([]);
  });

  it('tells an upward import from a downward one', () => {
    expect(upwardImports([{ from: 'src/catalogue/x.ts', to: 'src/orders/y.ts' }])).toEqual(['src/catalogue/x.ts → src/orders/y.ts']);
    expect(upwardImports([{ from: 'src/orders/y.ts', to: 'src/catalogue/x.ts' }])).toEqual([]);
    expect(upwardImports([{ from: 'src/db/schema/a.ts', to: 'src/db/client.ts' }])).toEqual([]);
  });
});
