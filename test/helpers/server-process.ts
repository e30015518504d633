import { spawn, type ChildProcess } from 'node:child_process';
import { logSink } from './log-sink.js';

/**
 * The service as a real process (`node --import tsx src/server.ts`: one process, so SIGKILL hits the server itself),
 * on `databaseUrl`, with `env` on top of the defaults below. Resolves with its URL once it prints "ready on …".
 * Kill what is left with `killAll()` in afterAll.
 */
export function serverProcesses() {
  const children: ChildProcess[] = [];
  return {
    start(databaseUrl: string, env: Record<string, string | undefined> = {}): Promise<{ child: ChildProcess; base: string; output: () => string }> {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          SEED_DEMO: 'false',
          PORT: '0',
          HOST: '127.0.0.1',
          // at info when the logs are kept for the personal-data scan (TEST_LOG_DIR), so request lines are scanned too
          LOG_LEVEL: process.env.TEST_LOG_DIR ? 'info' : 'warn',
          REDIS_URL: '',
          RATE_LIMIT_MAX: '100000',
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let out = '';
      const sink = logSink();
      child.stdout.on('data', (chunk: Buffer) => sink(chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => sink(chunk.toString()));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const m = /ready on (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve({ child, base: m[1], output: () => out });
          }
        });
        child.stderr.on('data', (c: Buffer) => (out += c.toString()));
        child.on('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
      });
    },
    killAll(): void {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    },
  };
}
