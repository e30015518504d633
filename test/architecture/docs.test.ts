import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The docs say what is true now: no doc names the work item that produced it (git history does that), and every
 * relative link points at a file that exists and, with a #fragment, at a heading or anchor that exists in it.
 */

const ROOT = join(import.meta.dirname, '..', '..');

function docFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', 'ARCHITECTURE.md', ...docs].filter((f) => existsSync(join(ROOT, f)));
}

const WORK_ITEM = [/\bissues?\s*#?\d+/i, /\bwork[\s-]items?\b/i];

/** Lines (1-based) that name a work item. */
export function workItemMentions(text: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  text.split('\n').forEach((line, i) => {
    if (WORK_ITEM.some((re) => re.test(line))) found.push({ line: i + 1, text: line.trim().slice(0, 120) });
  });
  return found;
}

/** The text with fenced code blocks blanked (line count kept). */
function withoutFences(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (m) => m.replace(/[^\n]/g, ' '));
}

/** The text with fenced code blocks and inline code spans blanked, so examples are not read as links. */
function withoutCode(text: string): string {
  return withoutFences(text).replace(/`[^`\n]*`/g, (m) => ' '.repeat(m.length));
}

/** GitHub's heading anchor: rendered text, lower-cased, punctuation removed, spaces as hyphens. */
export function slug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__|\*|_)(\S(?:[^]*?\S)?)\1/g, '$2')
    .replace(/<[^>]+>/g, '');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown file defines: its headings' slugs (repeats numbered as GitHub does) and HTML ids. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of withoutFences(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) out.add(m[1]);
  return out;
}

/** Relative links of a Markdown file (inline links and images; external and mail links left out). */
export function relativeLinks(text: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  const plain = withoutCode(text);
  for (const m of plain.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    links.push({ target, line: plain.slice(0, m.index).split('\n').length });
  }
  return links;
}

/** Problems with one file's relative links: a missing file or a missing #anchor. */
export function brokenLinks(file: string, text: string, read: (path: string) => string | undefined): string[] {
  const problems: string[] = [];
  for (const { target, line } of relativeLinks(text)) {
    const [pathPart, fragment] = target.split('#', 2) as [string, string | undefined];
    const path = pathPart ? resolve(dirname(join(ROOT, file)), decodeURIComponent(pathPart)) : join(ROOT, file);
    const shown = `${file}:${line} → ${target}`;
    // A link that leaves the repository (the shared contract beside it) cannot be checked from here.
    if (relative(ROOT, path).startsWith('..')) continue;
    if (pathPart && !existsSync(path)) {
      problems.push(`${shown}: no such file`);
      continue;
    }
    if (fragment === undefined || fragment === '') continue;
    if (!path.endsWith('.md') || (existsSync(path) && statSync(path).isDirectory())) continue;
    const linked = pathPart ? read(relative(ROOT, path)) : text;
    if (linked === undefined || !anchors(linked).has(decodeURIComponent(fragment).toLowerCase())) problems.push(`${shown}: no such heading`);
  }
  return problems;
}

function read(path: string): string | undefined {
  const full = join(ROOT, path);
  return existsSync(full) ? readFileSync(full, 'utf8') : undefined;
}

describe('docs say what is true now', () => {
  it('no doc names a work item', () => {
    const found = docFiles().flatMap((f) => workItemMentions(read(f) ?? '').map((m) => `${f}:${m.line}: ${m.text}`));
    expect(found, 'docs naming a work item (say what is true instead; git keeps the history)').toEqual([]);
  });

  it('every relative link reaches an existing file and heading', () => {
    const problems = docFiles().flatMap((f) => brokenLinks(f, read(f) ?? '', read));
    expect(problems, 'broken relative links').toEqual([]);
  });

  it('the checks find what they look for', () => {
    expect(workItemMentions('ok\nBuilt in issue 14.\nIssue #16: x\nthe work item said').map((m) => m.line)).toEqual([2, 3, 4]);
    expect(workItemMentions('RFC 9110, langchainjs#11593, SEP-414, 16 issues')).toEqual([]);
    expect(slug('One writer for every tools/call answer')).toBe('one-writer-for-every-toolscall-answer');
    expect(slug('Database access: drizzle’s `sql` template')).toBe('database-access-drizzles-sql-template');
    expect([...anchors('# A\n## A\n```\n# not a heading\n```\n<a name="x"></a>')]).toEqual(['a', 'a-1', 'x']);
    const doc = '[ok](#a) [gone](#b) [file](docs/decisions.md) [none](docs/missing.md) `[code](#c)` [web](https://x.y/#z)\n# A';
    expect(brokenLinks('README.md', doc, read)).toEqual(['README.md:1 → #b: no such heading', 'README.md:1 → docs/missing.md: no such file']);
  });
});
