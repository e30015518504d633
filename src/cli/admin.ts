import { openMigratedDatabase } from '../boot.js';
import { loadConfig } from '../config.js';
import type { Database } from '../db/index.js';
import { AppError } from '../contract/errors.js';
import { createServices } from '../services.js';
import { UsageError } from './args.js';
import { COMMANDS as commands } from './registry.js';

function help(): string {
  return [
    'Usage: npm run admin -- <command> [options] [--json]',
    '',
    'Commands:',
    ...Object.values(commands).flatMap((c) => [`  ${c.usage}`, `      ${c.summary}`]),
    '',
    'Every command takes --json for machine-readable output.',
    'It uses DATABASE_URL when set, else the embedded database in DATA_DIR (stop `npm start` first: one process at a time).',
  ].join('\n');
}

/** Runs one admin command: exit 0 done, 1 refused or failed, 2 called the wrong way (UsageError or unknown command). */
/**
 * Runs one admin command. `opts.db` is an already open database to run it on (left open): the tests give their own,
 * which on embedded PGlite is the only way to reach it (a PGlite folder belongs to one process and one handle).
 */
export async function runAdmin(
  argv: string[],
  out: (text: string) => void = (t) => process.stdout.write(`${t}\n`),
  opts: { db?: Database } = {},
): Promise<number> {
  const json = argv.includes('--json');
  const fail = (message: string, code = 1) => {
    if (json) out(JSON.stringify({ error: message }));
    else process.stderr.write(`error: ${message}\n`);
    return code;
  };
  const words = argv.filter((a) => !a.startsWith('-'));
  const name = [`${words[0]} ${words[1]}`, `${words[0]} ${words[1]} ${words[2]}`].find((n) => commands[n]);
  if (!name || argv.includes('--help') || argv.includes('-h')) {
    if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
      out(help());
      return 0;
    }
    process.stderr.write(`${help()}\n\n`);
    return fail(`unknown command "${words.slice(0, 2).join(' ')}"`, 2);
  }
  const rest = argv.slice(argv.indexOf(name.split(' ').at(-1)!) + 1).filter((a) => a !== '--json');
  let db: Database | undefined;
  try {
    const config = loadConfig();
    db =
      opts.db ??
      (await openMigratedDatabase(config).catch((err: Error) => {
        const where = config.DATABASE_URL ? 'the PostgreSQL server in DATABASE_URL' : `the embedded database in ${config.DATA_DIR}`;
        throw new Error(`cannot open ${where}: ${err.message}`);
      }));
    const services = createServices({ db, config });
    await commands[name].run(rest, { db, services, json, out });
    return 0;
  } catch (err) {
    if (err instanceof UsageError) return fail(`${err.message}\nusage: npm run admin -- ${commands[name].usage}`, 2);
    if (err instanceof AppError) return fail(err.message);
    return fail(err instanceof Error ? err.message : String(err));
  } finally {
    if (db !== opts.db) await db?.close();
  }
}
