import { parse } from 'csv-parse/sync';
import { validationError } from '../contract/errors.js';
import { stockRowInput, type StockField, type StockRowInput, type UnreadableStockRow } from '../contract/stock.js';

/**
 * A stock file (CSV with a header row): `sku` or `barcode`, `on_hand`, and optionally `location` (a location code;
 * default the one that ships orders). A byte-order mark, Windows or Unix line ends, quoted fields and blank lines are
 * taken as spreadsheets write them, and so are header names in any case with spaces or underscores (`On Hand`).
 * A row that does not read is kept with its problems, so the stock service reports them with those it finds (unknown
 * SKU, duplicates): one report for the whole file, each problem at its line and column.
 */
export const STOCK_COLUMNS = ['sku', 'barcode', 'location', 'on_hand'] as const;

export interface StockFile {
  rows: (StockRowInput | UnreadableStockRow)[];
  /** the file line of each row */
  lines: number[];
}

/** `On Hand`, `on hand`, `ON_HAND` -> `on_hand`. */
const columnName = (header: string) =>
  header
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '_');

export function readStockFile(text: string): StockFile {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      columns: (header: string[]) => header.map(columnName),
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
  const rows: StockFile['rows'] = [];
  const lines: number[] = [];
  for (const { record, info } of records) {
    // an empty cell is an absent value
    const values = Object.fromEntries(Object.entries(record).filter(([, v]) => v !== ''));
    const parsed = stockRowInput.safeParse(values);
    rows.push(
      parsed.success
        ? parsed.data
        : { problems: parsed.error.issues.map((issue) => ({ field: (issue.path[0] ?? 'on_hand') as StockField, message: issue.message })) },
    );
    lines.push(info.lines);
  }
  return { rows, lines };
}
