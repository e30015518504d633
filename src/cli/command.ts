import { AppError } from '../contract/errors.js';
import type { Database } from '../db/index.js';
import type { Services } from '../services.js';
import { UsageError, type Values } from './args.js';
import type { CallerEnv } from './admin-socket.js';
import type { Actor } from '../db/audit-log.js';

/**
 * What a command sees. The caller's side (`out`, `err`, `file`, `env`, `progress`) is the terminal that typed the
 * command, also when the command runs inside the service through its admin socket (cli/admin-socket.ts).
 */
export interface CommandContext {
  db: Database;
  services: Services;
  json: boolean;
  /** A line of the result, on stdout. */
  out: (text: string) => void;
  /** Notes and problems for people, on stderr (stdout stays the result alone, parseable with --json). */
  err: (text: string) => void;
  /** A file named on the command line, as an absolute path from the caller's working directory. */
  file: (name: string) => string;
  /** Settings the caller gave in its environment instead of a flag. */
  env: CallerEnv;
  /** A step of long work on stderr: rewritten in place on a terminal, a line each when piped. */
  progress: (label: string, done: number, total: number, unit?: string) => void;
  /**
   * Where the running service is reached (PUBLIC_URL, else the address it listens on), when the command runs inside
   * it; undefined when the CLI opened the database itself (the CLI's own PUBLIC_URL, HOST and PORT say it then).
   */
  serviceOrigin?: string;
  /** Who runs the command, for the audit trail: `{kind: 'cli', name: <user>}`. */
  actor: Actor;
}

/** One admin command: its usage line (printed with a UsageError), a summary for --help, and what it does. */
export interface Command {
  usage: string;
  summary: string;
  run(args: string[], ctx: CommandContext): Promise<void>;
}

export type CommandGroup = Record<string, Command>;

/** The company named by --company (id or slug), as its id; undefined when optional and not given. */
export async function companyId(ctx: CommandContext, values: Values, required = true): Promise<string | undefined> {
  if (typeof values.company !== 'string') {
    if (required) throw new UsageError('--company <id|slug> is required');
    return undefined;
  }
  return (await ctx.services.companies.get(values.company)).id;
}

/**
 * Awaits a service call; when it refuses with an AppError whose details name `path`, the message gets the
 * command to run (services say what is wrong, neutrally; the CLI says which command fixes it).
 */
export async function withHint<T>(call: Promise<T>, path: string, hint: string): Promise<T> {
  try {
    return await call;
  } catch (err) {
    const named = err instanceof AppError && Array.isArray(err.details) && err.details.some((d) => (d as { path?: unknown } | null)?.path === path);
    if (named) throw new AppError(err.kind, `${err.message}; ${hint}`, err.details, err.headers);
    throw err;
  }
}
