import { parseArgs } from 'node:util';

/** A command called the wrong way: the runner prints the message and the command's usage line, and exits 2. */
export class UsageError extends Error {}

export type Flags = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
export type Values = Record<string, string | boolean | string[] | undefined>;

/**
 * The one argument parser of every command (node:util parseArgs, strict): the command's flags plus --json, and
 * positionals named in order, a trailing `?` marking an optional one (`['ref']`, `['file.json?']`). An unknown
 * flag, a flag without its value, a missing or an extra positional is a UsageError.
 */
export function parse(args: string[], flags: Flags, positionals: readonly string[] = []): { values: Values; pos: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...flags, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const pos = parsed.positionals;
  if (pos.length > positionals.length) throw new UsageError(`unexpected argument "${pos[positionals.length]}"`);
  const missing = positionals.slice(pos.length).filter((p) => !p.endsWith('?'));
  if (missing.length) throw new UsageError(`missing ${missing.map((m) => `<${m}>`).join(' ')}`);
  return { values: parsed.values, pos };
}

/** A string flag's value, or undefined. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A true/false flag given as text (`--auto-booking true`). */
export function bool(value: string | undefined, flag: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'on' || value === 'yes') return true;
  if (value === 'false' || value === 'off' || value === 'no') return false;
  throw new UsageError(`--${flag} takes true or false, not "${value}"`);
}

/** A flag (or positional) that must be one of a fixed list. */
export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}
