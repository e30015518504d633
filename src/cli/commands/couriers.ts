import { COURIER_ADAPTERS, isAdapterName } from '../../couriers/index.js';
import { parse, str, UsageError } from '../args.js';
import { companyId, type CommandGroup } from '../command.js';
import { printTable } from '../output.js';

const companyFlag = { company: { type: 'string' } } as const;

/** `courier configure`, `jobs list|retry`: a company's courier and the booking queue. */
export const courierCommands: CommandGroup = {
  'courier configure': {
    usage: `courier configure --company <id|slug> --adapter <${COURIER_ADAPTERS.join('|')}> [--base-url <url>] [--email <e>] [--password <p> | --token <t> | env COURIER_PASSWORD] [--pickup-location <name>] [--rotate-secret]`,
    summary: "set a company's courier; the callback signing secret is printed when made (first time or --rotate-secret)",
    async run(args, ctx) {
      const f = { type: 'string' } as const;
      const { values } = parse(
        args,
        { ...companyFlag, adapter: f, 'base-url': f, email: f, password: f, token: f, 'pickup-location': f, 'rotate-secret': { type: 'boolean' } },
        [],
      );
      const adapter = str(values.adapter);
      if (!adapter || !isAdapterName(adapter)) throw new UsageError(`--adapter must be one of ${COURIER_ADAPTERS.join(', ')}`);
      const result = await ctx.services.fulfilment.configureCourier((await companyId(ctx, values))!, ctx.actor, {
        adapter,
        baseUrl: str(values['base-url']),
        email: str(values.email),
        password: str(values.password) ?? (str(values.token) ? undefined : ctx.env.COURIER_PASSWORD),
        token: str(values.token),
        pickupLocation: str(values['pickup-location']),
        rotateSecret: values['rotate-secret'] === true,
      });
      if (ctx.json) return ctx.out(JSON.stringify(result, null, 2));
      const { callback_secret, ...shown } = result;
      ctx.out(
        printTable(
          [shown],
          Object.keys(shown).map((k) => ({ key: k, title: k.toUpperCase() })),
        ),
      );
      if (callback_secret) ctx.out(`\nCallback signing secret (shown only now; give it to the courier for X-Courier-Signature):\n\n    ${callback_secret}\n`);
    },
  },
  'jobs list': {
    usage: 'jobs list [--company <id|slug>] [--failed]',
    summary: 'courier-booking jobs, newest first (failed ones need staff)',
    async run(args, ctx) {
      const { values } = parse(args, { ...companyFlag, failed: { type: 'boolean' } }, []);
      const jobs = await ctx.services.fulfilment.listJobs({ companyId: await companyId(ctx, values, false), failed: values.failed === true });
      if (ctx.json) return ctx.out(JSON.stringify(jobs, null, 2));
      ctx.out(
        printTable(
          jobs,
          ['id', 'order_number', 'kind', 'status', 'attempts', 'run_at', 'last_error'].map((k) => ({ key: k, title: k.toUpperCase() })),
        ),
      );
    },
  },
  'jobs retry': {
    usage: 'jobs retry <job id>',
    summary: 'make a failed job due again (attempts start over)',
    async run(args, ctx) {
      const { pos } = parse(args, companyFlag, ['id']);
      const job = await ctx.services.fulfilment.retryJob(pos[0]);
      ctx.out(ctx.json ? JSON.stringify(job, null, 2) : `job ${pos[0]} is pending again`);
    },
  },
};
