import { spawn, type ChildProcess } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';

/** What every benchmark does around its measurements: a database of its own, a server process, the server's start line. */

/** Drops and creates `name` on the server `serverUrl` points at (the benchmark's own database, never the service's). */
export async function recreateDatabase(serverUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
}

const READY = 'BENCH_SERVER_READY';

/** Starts a bench server script (bench/server.ts and the like) as a process of its own; resolves once it listens. */
export async function startBenchServer(
  script: string,
  env: Record<string, string>,
  cwd = process.cwd(),
): Promise<{ child: ChildProcess; port: number; base: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd, env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = new RegExp(`${READY} (\\d+)`).exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`bench server ${script} exited (${code})`)));
  });
  return { child, port, base: `http://127.0.0.1:${port}` };
}

/** In a bench server: listen, say so on stdout for startBenchServer, and close `stops` in order on SIGTERM or SIGINT. */
export async function serveBench(app: FastifyInstance, stops: (() => Promise<unknown> | undefined)[]): Promise<void> {
  await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
  const address = app.server.address();
  process.stdout.write(`${READY} ${typeof address === 'object' && address ? address.port : ''}\n`);
  const stop = async () => {
    for (const s of [() => app.close(), ...stops]) await s();
    process.exit(0);
  };
  // stop() ends the process itself; a failure to close is an unhandled rejection, which ends it too.
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}
