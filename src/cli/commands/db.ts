import { citusTables } from '../../db/citus-tables.js';
import { distribute } from '../../db/distribute.js';
import { parse } from '../args.js';
import type { CommandGroup } from '../command.js';
import { printTable } from '../output.js';

/** `db distribute`. */
export const dbCommands: CommandGroup = {
  'db distribute': {
    usage: 'db distribute',
    summary: 'on Citus: distribute what is not yet (reference tables, the rest by company_id); prints what it did',
    async run(args, ctx) {
      parse(args, {});
      const report = await distribute(ctx.db);
      const tables = report.citus ? await citusTables(ctx.db) : [];
      if (ctx.json) return ctx.out(JSON.stringify({ ...report, tables }, null, 2));
      if (!report.citus) return ctx.out('no citus extension in this database: nothing to distribute (one PostgreSQL keeps every table local)');
      ctx.out(report.statements.length ? report.statements.join('\n') : 'already distributed: nothing to do');
      ctx.out(
        `${report.reference.length} table(s) made reference, ${report.distributed.length} distributed by company_id, ${report.foreignKeys.length} foreign key(s) dropped and added again`,
      );
      ctx.out(
        printTable(
          tables.map((t) => ({ ...t })),
          [
            { key: 'table', title: 'TABLE' },
            { key: 'type', title: 'TYPE' },
            { key: 'column', title: 'COLUMN' },
            { key: 'colocation', title: 'COLOCATION' },
            { key: 'shards', title: 'SHARDS' },
          ],
        ),
      );
    },
  },
};
