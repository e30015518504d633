import { resolve } from 'node:path';
import { openMigratedDatabase } from '../boot.js';
import { loadConfig } from '../config.js';
import type { Database } from '../db/index.js';
import { AppError } from '../contract/errors.js';
import { createServices, type Services } from '../services.js';
import { callerOf, type AdminCaller } from './admin-socket.js';
import { UsageError } from './args.js';
import type { CommandContext } from './command.js';
import { progressWriter } from './output.js';
import { COMMANDS as commands } from './registry.js';

function help(): string {
  return [
    'Usage: npm run admin -- <command> [options] [--json]',
    '',
    'Commands:',
    ...Object.values(commands).flatMap((c) => [`  ${c.usage}`, `      ${c.summary}`]),
    '',
    'Every command takes --json for machine-readable output.',
    'It uses DATABASE_URL when set, else the embedded database in DATA_DIR: while `npm start` runs on that folder,',
    'the command runs inside the service (through DATA_DIR/admin/admin.sock), otherwise the CLI opens the folder itself.',
  ].join('\n');
}

/** The command `argv` names (`order draft create`, `key list`), or undefined. */
export function commandName(argv: string[]): string | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  return [`${words[0]} ${words[1]}`, `${words[0]} ${words[1]} ${words[2]}`].find((n) => commands[n]);
}

/** A command's context for `caller` (this process when not given). */
export function commandContext(
  base: Pick<CommandContext, 'db' | 'services' | 'json' | 'out'>,
  caller: Partial<AdminCaller> = {},
  serviceOrigin?: string,
): CommandContext {
  const c = callerOf(caller);
  return {
    ...base,
    err: c.err,
    file: (file) => resolve(c.cwd, file),
    env: c.env,
    progress: progressWriter(c.err, c.terminal),
    serviceOrigin,
    actor: { kind: 'cli', name: c.user },
  };
}

export interface AdminOptions {
  /**
   * An open database to run on, left open. The tests give their own; the service gives its own to the commands that
   * reach it through its admin socket (cli/admin-socket.ts), with its `services` and its `serviceOrigin`.
   */
  db?: Database;
  services?: Services;
  serviceOrigin?: string;
  caller?: Partial<AdminCaller>;
}

/**
 * Runs one admin command: exit 0 done, 1 refused or failed, 2 called the wrong way (UsageError or unknown command).
 * Without `opts.db` it opens the database of the environment (`npm run admin` does so only when no service holds the
 * embedded database: cli/main.ts).
 */
export async function runAdmin(argv: string[], out: (text: string) => void = (t) => process.stdout.write(`${t}\n`), opts: AdminOptions = {}): Promise<number> {
  const caller = callerOf(opts.caller);
  const json = argv.includes('--json');
  const fail = (message: string, code = 1) => {
    if (json) out(JSON.stringify({ error: message }));
    else caller.err(`error: ${message}\n`);
    return code;
  };
  const name = commandName(argv);
  if (!name || argv.includes('--help') || argv.includes('-h')) {
    if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
      out(help());
      return 0;
    }
    caller.err(`${help()}\n\n`);
    return fail(
      `unknown command "${argv
        .filter((a) => !a.startsWith('-'))
        .slice(0, 2)
        .join(' ')}"`,
      2,
    );
  }
  const rest = argv.slice(argv.indexOf(name.split(' ').at(-1)!) + 1).filter((a) => a !== '--json');
  let db = opts.db;
  try {
    let services = opts.services;
    if (!db) {
      const config = loadConfig();
      db = await openMigratedDatabase(config).catch((err: Error) => {
        const where = config.DATABASE_URL ? 'the PostgreSQL server in DATABASE_URL' : `the embedded database in ${config.DATA_DIR}`;
        throw new Error(`cannot open ${where}: ${err.message}`);
      });
      services = createServices({ db, config });
    }
    services ??= createServices({ db, config: loadConfig() });
    await commands[name].run(rest, commandContext({ db, services, json, out }, caller, opts.serviceOrigin));
    return 0;
  } catch (err) {
    if (err instanceof UsageError) return fail(`${err.message}\nusage: npm run admin -- ${commands[name].usage}`, 2);
    if (err instanceof AppError) return fail(err.message);
    return fail(err instanceof Error ? err.message : String(err));
  } finally {
    if (db !== opts.db) await db?.close();
  }
}
