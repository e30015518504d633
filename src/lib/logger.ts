import { pino, type DestinationStream, type Logger } from 'pino';
import { logOptions } from './log-privacy.js';

/**
 * The service's logger, built in one place for `npm start` (src/main.ts), the tests (test/helpers/app.ts) and the
 * workers run by either: the same options, redaction and serializers (src/lib/log-privacy.ts), so what a test sees is
 * what production writes.
 */
export interface LoggerSetup {
  level: string;
  /** Where the lines go; standard output (pino's own destination) when not given. */
  destination?: DestinationStream;
  /** One readable line per entry instead of JSON, for a person at a terminal (src/main.ts: when stdout is a TTY). */
  human?: boolean;
  /** Colours in the readable lines (a terminal that did not ask for NO_COLOR). */
  colour?: boolean;
}

export function createServiceLogger(setup: LoggerSetup): Logger {
  const options = logOptions(setup.level);
  if (setup.human) return pino(options, humanLines(setup.destination ?? process.stdout, setup.colour ?? false));
  return setup.destination ? pino(options, setup.destination) : pino(options);
}

const LEVELS: Record<number, [name: string, colour: string]> = {
  10: ['TRACE', '90'],
  20: ['DEBUG', '90'],
  30: ['INFO ', '32'],
  40: ['WARN ', '33'],
  50: ['ERROR', '31'],
  60: ['FATAL', '31;1'],
};
/** Fields every entry has, or that the line shows in its own place. */
const SHOWN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'err']);

/**
 * pino's JSON lines, already serialized and redacted, rewritten for reading: `12:04:05 INFO  message key=value`, an
 * error's stack below it. The entries are the same as in JSON (nothing is logged that JSON would not hold), so the
 * privacy of the logs does not depend on the format.
 */
export function humanLines(target: { write(text: string): unknown }, colour: boolean): DestinationStream {
  return { write: (line: string) => void target.write(formatLine(line, colour)) };
}

export function formatLine(line: string, colour: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const [name, code] = LEVELS[entry.level as number] ?? ['LOG  ', '0'];
  const time = typeof entry.time === 'number' ? new Date(entry.time).toTimeString().slice(0, 8) : '--:--:--';
  const fields = Object.entries(entry)
    .filter(([key]) => !SHOWN.has(key))
    .flatMap(([key, value]) => flatten(key, value))
    .join(' ');
  const msg = typeof entry.msg === 'string' ? entry.msg : entry.msg === undefined ? '' : show(entry.msg);
  const head = `${time} ${colour ? `\u001b[${code}m${name}\u001b[0m` : name} ${msg}${fields ? `  ${fields}` : ''}`;
  const err = entry.err as { type?: unknown; message?: unknown; stack?: unknown } | undefined;
  const stack = typeof err?.stack === 'string' ? err.stack : err ? `${show(err.type)}: ${show(err.message)}` : '';
  const detail = stack ? `\n    ${stack.replace(/\n/g, '\n    ')}` : '';
  return `${head}${detail}\n`;
}

/** `key=value`, an object's fields one level down as `key.field=value`. */
function flatten(key: string, value: unknown): string[] {
  if (value && typeof value === 'object' && !Array.isArray(value)) return Object.entries(value).map(([k, v]) => `${key}.${k}=${show(v)}`);
  return [`${key}=${show(value)}`];
}

const show = (v: unknown) => (typeof v === 'string' && /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v));
