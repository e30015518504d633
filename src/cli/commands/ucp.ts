import type { UcpSettings } from '../../checkout/ucp-settings.service.js';
import { ucpDiscoveryUrl } from '../../checkout/ucp-profile.js';
import { HOLD_MINUTES, type UcpSettingsInput } from '../../contract/ucp.js';
import { parse, str, UsageError, type Flags } from '../args.js';
import { companyId, type CommandContext, type CommandGroup } from '../command.js';
import { printTable, show, type Column } from '../output.js';

const SETTINGS_COLUMNS: Column[] = [
  { key: 'enabled', title: 'ENABLED' },
  { key: 'hold_minutes', title: 'HOLD MINUTES' },
  { key: 'privacy_url', title: 'PRIVACY' },
  { key: 'terms_url', title: 'TERMS' },
  { key: 'discovery_url', title: 'PROFILE' },
];
const HOST_COLUMNS: Column[] = [
  { key: 'host', title: 'HOST' },
  { key: 'created_at', title: 'ADDED' },
];

const companyFlag = { company: { type: 'string' } } as const;

/** The settings as the admin reads them: the profile's address in place of the slug. */
function settingsView(ctx: CommandContext, s: UcpSettings) {
  const { slug, ...rest } = s;
  return { ...rest, discovery_url: ucpDiscoveryUrl(ctx.serviceOrigin ?? ctx.services.media.configuredOrigin(), slug) };
}

async function change(args: string[], ctx: CommandContext, fixed: Pick<UcpSettingsInput, 'enabled'>, flags: Flags = {}) {
  const { values } = parse(args, { ...companyFlag, ...flags });
  const input: UcpSettingsInput = { ...fixed };
  const minutes = str(values['hold-minutes']);
  if (minutes !== undefined) {
    if (!/^\d{1,9}$/.test(minutes)) throw new UsageError(`--hold-minutes takes a whole number of minutes (${HOLD_MINUTES.min}–${HOLD_MINUTES.max})`);
    input.hold_minutes = Number(minutes);
  }
  // An empty value removes the link.
  for (const [flag, field] of [
    ['privacy-url', 'privacy_url'],
    ['terms-url', 'terms_url'],
  ] as const) {
    const value = str(values[flag]);
    if (value !== undefined) input[field] = value.trim() === '' ? null : value;
  }
  if (Object.keys(input).length === 0) throw new UsageError('name at least one of --hold-minutes, --privacy-url, --terms-url');
  const settings = await ctx.services.ucpSettings.set((await companyId(ctx, values))!, ctx.actor, input);
  const view = settingsView(ctx, settings);
  show(ctx, view, SETTINGS_COLUMNS, [view]);
}

/** `ucp show|enable|disable|set` and `ucp host add|remove|list`: a company's UCP business (agents buying over UCP). */
export const ucpCommands: CommandGroup = {
  'ucp show': {
    usage: 'ucp show --company <id|slug>',
    summary: "a company's UCP business: on or off, stock hold, policy links, its profile's address and its hosts",
    async run(args, ctx) {
      const { values } = parse(args, companyFlag);
      const company = (await companyId(ctx, values))!;
      const view = settingsView(ctx, await ctx.services.ucpSettings.get(company));
      const hosts = await ctx.services.ucpSettings.hosts(company);
      if (ctx.json) return ctx.out(JSON.stringify({ ...view, hosts }, null, 2));
      ctx.out(printTable([view], SETTINGS_COLUMNS));
      ctx.out(`\nHosts:\n${printTable(hosts, HOST_COLUMNS)}`);
    },
  },
  'ucp enable': {
    usage: 'ucp enable --company <id|slug>',
    summary: 'turn the UCP business on: agents can discover the company and (once built) check out',
    run: (args, ctx) => change(args, ctx, { enabled: true }),
  },
  'ucp disable': {
    usage: 'ucp disable --company <id|slug>',
    summary: 'turn the UCP business off: its profile and endpoints answer 404 from the next request',
    run: (args, ctx) => change(args, ctx, { enabled: false }),
  },
  'ucp set': {
    usage: `ucp set --company <id|slug> [--hold-minutes <${HOLD_MINUTES.min}-${HOLD_MINUTES.max}>] [--privacy-url <https://…>] [--terms-url <https://…>]`,
    summary: 'change how long a checkout holds stock and the policy links checkouts show (an empty URL removes it)',
    run: (args, ctx) => change(args, ctx, {}, { 'hold-minutes': { type: 'string' }, 'privacy-url': { type: 'string' }, 'terms-url': { type: 'string' } }),
  },
  'ucp host add': {
    usage: 'ucp host add --company <id|slug> <host[:port]>',
    summary: "serve the company's UCP profile at https://<host>/.well-known/ucp (a host serves one company only)",
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['host']);
      const host = await ctx.services.ucpSettings.addHost((await companyId(ctx, values))!, ctx.actor, pos[0]);
      show(ctx, host, HOST_COLUMNS, [host]);
    },
  },
  'ucp host remove': {
    usage: 'ucp host remove --company <id|slug> <host[:port]>',
    summary: 'stop answering /.well-known/ucp for that host',
    async run(args, ctx) {
      const { values, pos } = parse(args, companyFlag, ['host']);
      const removed = await ctx.services.ucpSettings.removeHost((await companyId(ctx, values))!, ctx.actor, pos[0]);
      show(ctx, removed, [{ key: 'host', title: 'REMOVED' }], [removed]);
    },
  },
  'ucp host list': {
    usage: 'ucp host list --company <id|slug>',
    summary: 'the hosts whose /.well-known/ucp is the company’s',
    async run(args, ctx) {
      const { values } = parse(args, companyFlag);
      const hosts = await ctx.services.ucpSettings.hosts((await companyId(ctx, values))!);
      show(ctx, hosts, HOST_COLUMNS, hosts);
    },
  },
};
