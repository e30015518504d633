import { parse } from 'csv-parse/sync';
import { validationError, type FieldIssue } from '../contract/errors.js';
import { stockRowInput, type StockRowInput } from '../contract/stock.js';

/**
 * A stock file (CSV with a header row): `sku` or `barcode`, `on_hand`, and optionally `location` (a location code;
 * default the one that ships orders). A byte-order mark, Windows or Unix line ends, quoted fields and blank lines are
 * taken as spreadsheets write them. Every row is checked; problems name their row (the file's line) and column.
 */
export const STOCK_COLUMNS = ['sku', 'barcode', 'location', 'on_hand'] as const;

export interface StockFile {
  rows: StockRowInput[];
  /** the file line of each row, for problems the database finds (unknown SKU, duplicates) */
  lines: number[];
}

export function readStockFile(text: string): StockFile {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      record_delimiter: ['\r\n', '\n'],
      skip_empty_lines: true,
      trim: true,
      info: true,
    });
  } catch (err) {
    throw validationError([{ path: '(file)', message: `not a readable CSV file: ${(err as Error).message}` }]);
  }
  const header = Object.keys(records[0]?.record ?? {});
  const unknown = header.filter((h) => !(STOCK_COLUMNS as readonly string[]).includes(h));
  if (records.length === 0) throw validationError([{ path: '(file)', message: 'no rows: write a header line, then one row per variant' }]);
  if (unknown.length || !header.includes('on_hand') || !(header.includes('sku') || header.includes('barcode')))
    throw validationError([
      {
        path: 'line 1',
        message: `the header must name sku or barcode, on_hand, and optionally location${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`,
      },
    ]);
  const rows: StockRowInput[] = [];
  const lines: number[] = [];
  const problems: FieldIssue[] = [];
  for (const { record, info } of records) {
    // an empty cell is an absent value
    const values = Object.fromEntries(Object.entries(record).filter(([, v]) => v !== ''));
    const parsed = stockRowInput.safeParse(values);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        if (problems.length < 100) problems.push({ path: `line ${info.lines}, column ${String(issue.path[0] ?? 'on_hand')}`, message: issue.message });
      continue;
    }
    rows.push(parsed.data);
    lines.push(info.lines);
  }
  if (problems.length)
    throw validationError(problems, `${problems.length} problem(s) in the file, nothing was changed; first: ${problems[0].path}: ${problems[0].message}`);
  return { rows, lines };
}
