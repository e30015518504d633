export interface Column {
  key: string;
  title: string;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/** A plain aligned table for people; `--json` output is for scripts. */
export function printTable(rows: Record<string, unknown>[], columns: Column[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((r) => columns.map((c) => cell(r[c.key])));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((row) => row[i].length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  return [line(columns.map((c) => c.title)), ...cells.map(line)].join('\n');
}

/** Progress on stderr, so stdout stays clean for --json. */
export function progress(label: string, done: number, total: number): void {
  const pct = total ? Math.floor((done / total) * 100) : 100;
  process.stderr.write(`\r${label}: ${done}/${total} (${pct}%)${done >= total ? '\n' : ''}`);
}
