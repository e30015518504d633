import type { CommandContext } from './command.js';

export interface Column {
  key: string;
  title: string;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  // Not a column type today; an object or array shows as its JSON rather than "[object Object]".
  return JSON.stringify(value);
}

/** A plain aligned table for people; `--json` output is for scripts. */
export function printTable(rows: Record<string, unknown>[], columns: Column[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((r) => columns.map((c) => cell(r[c.key])));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((row) => row[i].length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.title)), ...cells.map(line)].join('\n');
}

/** Progress on stderr, so stdout stays clean for --json. */
export function progress(label: string, done: number, total: number): void {
  const pct = total ? Math.floor((done / total) * 100) : 100;
  process.stderr.write(`\r${label}: ${done}/${total} (${pct}%)${done >= total ? '\n' : ''}`);
}

/** `--json`: the value as JSON; else the rows as a table. */
export function show(ctx: Pick<CommandContext, 'json' | 'out'>, value: unknown, columns: Column[], rows: Record<string, unknown>[]): void {
  if (ctx.json) ctx.out(JSON.stringify(value, null, 2));
  else ctx.out(printTable(rows, columns));
}

type OrderView = Awaited<ReturnType<CommandContext['services']['fulfilment']['view']>>;

/** An order with its shipment and invoice on one line (or as JSON). */
export function showOrder(ctx: CommandContext, v: OrderView): void {
  if (ctx.json) return ctx.out(JSON.stringify(v, null, 2));
  const row = {
    order: v.order_number,
    status: v.order_status,
    amount: v.amount,
    payment: v.payment,
    shipment: v.shipment ? `${v.shipment.status}${v.shipment.awb ? ` ${v.shipment.awb}` : ''}${v.shipment.courier ? ` (${v.shipment.courier})` : ''}` : null,
    invoice: v.invoice ? `${v.invoice.invoice_number} ${v.invoice.payment_status}, due ${v.invoice.amount_due}` : null,
  };
  ctx.out(
    printTable(
      [row],
      Object.keys(row).map((k) => ({ key: k, title: k.toUpperCase() })),
    ),
  );
}
