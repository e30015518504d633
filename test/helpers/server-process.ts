import { spawn, type ChildProcess } from 'node:child_process';
import { logSink } from './log-sink.js';

export interface ServerProcess {
  child: ChildProcess;
  base: string;
  /** Every line the process wrote to stdout so far: its log (JSON at the default level, stdout being a pipe) and its banner. */
  stdout: () => string[];
  /** The stdout lines that parse as JSON (the log entries), parsed. */
  logs: () => Record<string, unknown>[];
  /** Everything written to stderr. */
  stderr: () => string;
  /** Everything written so far, stdout then stderr, as text. */
  output: () => string;
}

/**
 * The service as a real process (`node --import tsx src/server.ts`: one process, so SIGKILL hits the server itself),
 * on `databaseUrl`, with `env` on top of the defaults below (a value `undefined` leaves a default out). Resolves once it
 * prints "ready on …". It logs as `npm start` does where stdout is not a terminal: JSON at the configured default level
 * (info); its lines are kept for the test and, with TEST_LOG_DIR, for the personal-data scan. `preload` adds modules
 * loaded before the service (`--import`). Kill what is left with `killAll()` in afterAll.
 */
export function serverProcesses() {
  const children: ChildProcess[] = [];
  return {
    start(databaseUrl: string, env: Record<string, string | undefined> = {}, preload: string[] = []): Promise<ServerProcess> {
      const child = spawn(process.execPath, ['--import', 'tsx', ...preload.flatMap((p) => ['--import', p]), 'src/server.ts'], {
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          SEED_DEMO: 'false',
          PORT: '0',
          HOST: '127.0.0.1',
          LOG_LEVEL: undefined,
          REDIS_URL: '',
          // the tests drive hundreds of requests a minute with one key; the limit itself is tested in test/http
          RATE_LIMIT_MAX: '100000',
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let out = '';
      let err = '';
      const sink = logSink();
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        sink(chunk.toString());
      });
      child.stderr.on('data', (chunk: Buffer) => {
        err += chunk.toString();
        sink(chunk.toString());
      });
      // whole lines only: the last one may still be arriving
      const stdout = () =>
        out
          .slice(0, out.lastIndexOf('\n') + 1)
          .split('\n')
          .filter((l) => l.trim());
      const logs = () => stdout().flatMap((l) => (l.startsWith('{') ? [JSON.parse(l) as Record<string, unknown>] : []));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`server did not start: ${out}${err}`)), 60_000);
        const ready = () => {
          const m = /ready on (http:\/\/\S+)/.exec(out);
          if (!m) return;
          clearTimeout(timer);
          child.stdout.off('data', ready);
          resolve({ child, base: m[1], stdout, logs, stderr: () => err, output: () => out + err });
        };
        child.stdout.on('data', ready);
        child.on('exit', (code) => reject(new Error(`server exited (${code}): ${out}${err}`)));
      });
    },
    killAll(): void {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    },
  };
}

/** The value of one series (labels written exactly as exposed, e.g. `kind="x"`) scraped from a metrics URL; NaN when absent. */
export async function metricValue(metricsUrl: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : NaN;
}
