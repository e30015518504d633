import type { Database } from '../db/index.js';
import type { Services } from '../services.js';
import { UsageError, type Values } from './args.js';

export interface CommandContext {
  db: Database;
  services: Services;
  json: boolean;
  out: (text: string) => void;
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
