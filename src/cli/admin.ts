import { parseArgs } from 'node:util';
import { openMigratedDatabase } from '../boot.js';
import { loadConfig } from '../config.js';
import type { Database } from '../db/index.js';
import { AppError } from '../contract/errors.js';
import { createServices, type Services } from '../services.js';
import { printTable, type Column } from './output.js';

export interface CommandContext {
  db: Database;
  services: Services;
  json: boolean;
  out: (text: string) => void;
}

type Handler = (args: string[], ctx: CommandContext) => Promise<void>;

interface Command {
  usage: string;
  summary: string;
  run: Handler;
}

const COMPANY_COLUMNS: Column[] = [
  { key: 'id', title: 'ID' },
  { key: 'slug', title: 'SLUG' },
  { key: 'name', title: 'NAME' },
  { key: 'status', title: 'STATUS' },
  { key: 'plan', title: 'PLAN' },
  { key: 'auto_courier_booking', title: 'AUTO BOOKING' },
  { key: 'created_at', title: 'CREATED' },
];

const KEY_COLUMNS: Column[] = [
  { key: 'id', title: 'ID' },
  { key: 'prefix', title: 'PREFIX' },
  { key: 'name', title: 'NAME' },
  { key: 'created_at', title: 'CREATED' },
  { key: 'last_used_at', title: 'LAST USED' },
  { key: 'revoked_at', title: 'REVOKED' },
];

const bool = (value: string | undefined, flag: string): boolean | undefined => {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'on' || value === 'yes') return true;
  if (value === 'false' || value === 'off' || value === 'no') return false;
  throw new UsageError(`--${flag} takes true or false, not "${value}"`);
};

const oneOf = <T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined => {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${flag} must be one of ${allowed.join(', ')}`);
  return value as T;
};

class UsageError extends Error {}

function parse(args: string[], options: Record<string, { type: 'string' | 'boolean' }>, positionals = 0) {
  const { values, positionals: pos } = parseArgs({ args, options: { ...options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  if (pos.length > positionals) throw new UsageError(`unexpected argument "${pos[positionals]}"`);
  return { values: values as Record<string, string | undefined>, positionals: pos };
}

function show(ctx: CommandContext, value: unknown, columns: Column[], rows: Record<string, unknown>[]): void {
  if (ctx.json) ctx.out(JSON.stringify(value, null, 2));
  else ctx.out(printTable(rows, columns));
}

const companyFlags = {
  name: { type: 'string' },
  slug: { type: 'string' },
  status: { type: 'string' },
  plan: { type: 'string' },
  'auto-booking': { type: 'string' },
} as const;

function companyPatch(values: Record<string, string | undefined>) {
  return {
    name: values.name,
    status: oneOf(values.status, ['active', 'inactive'] as const, 'status'),
    plan: oneOf(values.plan, ['commerce', 'messaging'] as const, 'plan'),
    auto_courier_booking: bool(values['auto-booking'], 'auto-booking'),
  };
}

const commands: Record<string, Command> = {
  'company create': {
    usage: 'company create --name <name> [--slug <slug>] [--status active|inactive] [--plan commerce|messaging] [--auto-booking true|false]',
    summary: 'create a company',
    async run(args, ctx) {
      const { values } = parse(args, companyFlags);
      if (!values.name) throw new UsageError('--name is required');
      const patch = companyPatch(values);
      const company = await ctx.services.companies.create({ ...patch, name: values.name, slug: values.slug });
      show(ctx, company, COMPANY_COLUMNS, [company as unknown as Record<string, unknown>]);
    },
  },
  'company list': {
    usage: 'company list',
    summary: 'list companies',
    async run(args, ctx) {
      parse(args, {});
      const companies = await ctx.services.companies.list();
      show(ctx, companies, COMPANY_COLUMNS, companies as unknown as Record<string, unknown>[]);
    },
  },
  'company update': {
    usage: 'company update <id|slug> [--name <name>] [--status active|inactive] [--plan commerce|messaging] [--auto-booking true|false]',
    summary: 'change a company (status, plan, flags)',
    async run(args, ctx) {
      const { values, positionals } = parse(args, companyFlags, 1);
      if (!positionals[0]) throw new UsageError('name the company: company update <id|slug>');
      if (values.slug) throw new UsageError('a slug cannot be changed');
      const company = await ctx.services.companies.update(positionals[0], companyPatch(values));
      show(ctx, company, COMPANY_COLUMNS, [company as unknown as Record<string, unknown>]);
    },
  },
  'key create': {
    usage: 'key create --company <id|slug> [--name <label>]',
    summary: 'create an API key (printed once, never again; at most 5 active per company)',
    async run(args, ctx) {
      const { values } = parse(args, { company: { type: 'string' }, name: { type: 'string' } });
      if (!values.company) throw new UsageError('--company is required');
      const company = await ctx.services.companies.get(values.company);
      const { key, record } = await ctx.services.keys.create(company.id, values.name);
      if (ctx.json) ctx.out(JSON.stringify({ key, ...record }, null, 2));
      else {
        ctx.out(printTable([record as unknown as Record<string, unknown>], KEY_COLUMNS));
        ctx.out(`\nAPI key for ${company.slug} (shown only this once; store it now):\n\n    ${key}\n`);
      }
    },
  },
  'key list': {
    usage: 'key list --company <id|slug>',
    summary: "list a company's keys (visible prefix only)",
    async run(args, ctx) {
      const { values } = parse(args, { company: { type: 'string' } });
      if (!values.company) throw new UsageError('--company is required');
      const company = await ctx.services.companies.get(values.company);
      const keys = await ctx.services.keys.list(company.id);
      show(ctx, keys, KEY_COLUMNS, keys as unknown as Record<string, unknown>[]);
    },
  },
  'key revoke': {
    usage: 'key revoke --company <id|slug> <key id|prefix>',
    summary: 'revoke a key; refused from the very next request',
    async run(args, ctx) {
      const { values, positionals } = parse(args, { company: { type: 'string' } }, 1);
      if (!values.company) throw new UsageError('--company is required');
      if (!positionals[0]) throw new UsageError('name the key: its id (key_…) or prefix (cok_…)');
      const company = await ctx.services.companies.get(values.company);
      const record = await ctx.services.keys.revoke(company.id, positionals[0]);
      show(ctx, record, KEY_COLUMNS, [record as unknown as Record<string, unknown>]);
    },
  },
};

/** Extra command groups registered by domain modules (catalogue import/export, order moves). */
export function registerCommands(extra: Record<string, Command>): void {
  Object.assign(commands, extra);
}

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

export async function runAdmin(argv: string[], out: (text: string) => void = (t) => process.stdout.write(`${t}\n`)): Promise<number> {
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
    db = await openMigratedDatabase(config).catch((err: Error) => {
      const where = config.DATABASE_URL ? 'the PostgreSQL server in DATABASE_URL' : `the embedded database in ${config.DATA_DIR}`;
      throw new Error(`cannot open ${where}: ${err.message}`);
    });
    const services = createServices({ db, config });
    await commands[name].run(rest, { db, services, json, out });
    return 0;
  } catch (err) {
    if (err instanceof UsageError) return fail(`${err.message}\nusage: npm run admin -- ${commands[name].usage}`, 2);
    if (err instanceof AppError) return fail(err.message);
    if ((err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return fail(`${(err as Error).message}\nusage: npm run admin -- ${commands[name].usage}`, 2);
    return fail(err instanceof Error ? err.message : String(err));
  } finally {
    await db?.close();
  }
}
