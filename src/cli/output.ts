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

/**
 * Progress of long work for people, on stderr. On a terminal one line rewritten in place (`\r`); piped or in a log,
 * a whole line per step, since a `\r` there runs every step into one line.
 */
export function progressWriter(write: (text: string) => void, terminal: boolean) {
  return (label: string, done: number, total: number, unit?: string) => {
    const line = `${label}: ${done}/${total}${unit ? ` ${unit}` : ''}`;
    write(terminal ? `\r${line}${done >= total ? '\n' : ''}` : `${line}\n`);
  };
}

/** This process's stderr as `progressWriter` (the scripts and the benchmark). */
export const progress = progressWriter((text) => process.stderr.write(text), process.stderr.isTTY === true);

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

type OrderDetail = Awaited<ReturnType<CommandContext['services']['fulfilment']['detail']>>;

/** `order show`: the order, its customer and address, lines, shipment, invoice and history, for people (or as JSON). */
export function showOrderDetail(ctx: CommandContext, d: OrderDetail): void {
  if (ctx.json) return ctx.out(JSON.stringify(d, null, 2));
  const a = d.delivery_address;
  const address = a ? [a.name, a.line1, a.line2, a.city, [a.state, a.pincode].filter(Boolean).join(' '), a.phone].filter(Boolean).join(', ') : null;
  const s = d.shipment;
  const i = d.invoice;
  const facts: [string, string | null][] = [
    ['Order', `${d.order_number} (${d.order_id})${d.external_reference ? `, reference ${d.external_reference}` : ''}`],
    ['Status', `${d.order_status}: ${d.status_label}`],
    ['Placed', d.created_at],
    ['Amount', `${d.amount} INR, ${d.payment}${d.cod_confirmation ? ` (COD confirmation ${d.cod_confirmation})` : ''}`],
    ['Customer', [d.customer.name, d.customer.phone, d.customer.email].filter(Boolean).join(', ')],
    ['Deliver to', address ?? '(no address yet)'],
    [
      'Shipment',
      s ? [s.status, s.awb && `AWB ${s.awb}`, s.courier, s.tracking_url, s.delivered_at && `delivered ${s.delivered_at}`].filter(Boolean).join(', ') : '(none)',
    ],
    [
      'Invoice',
      i
        ? `${i.invoice_number}, ${i.payment_status}, total ${i.total}, due ${i.amount_due}` +
          (i.credit_note ? `; credit note ${i.credit_note.credit_note_number} (${i.credit_note.reason}) ${i.credit_note.total}` : '')
        : '(not issued)',
    ],
  ];
  const width = Math.max(...facts.map(([k]) => k.length)) + 1;
  ctx.out(facts.map(([k, v]) => `${`${k}:`.padEnd(width)} ${v ?? '-'}`).join('\n'));
  ctx.out('\nItems:');
  ctx.out(
    indent(
      printTable(d.items, [
        { key: 'sku', title: 'SKU' },
        { key: 'name', title: 'NAME' },
        { key: 'quantity', title: 'QTY' },
        { key: 'unit_price', title: 'PRICE' },
        { key: 'tax_rate', title: 'GST %' },
        { key: 'line_total', title: 'TOTAL' },
      ]),
    ),
  );
  ctx.out('\nHistory:');
  ctx.out(
    indent(
      printTable(d.history, [
        { key: 'at', title: 'AT' },
        { key: 'event', title: 'EVENT' },
        { key: 'order_status', title: 'ORDER' },
        { key: 'shipment_status', title: 'SHIPMENT' },
        { key: 'payment_status', title: 'PAYMENT' },
      ]),
    ),
  );
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
