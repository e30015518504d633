import { chmodSync, lstatSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { isAbsolute } from 'node:path';
import type { Logger } from 'pino';
import type { Database } from '../db/index.js';
import type { Services } from '../services.js';
import { commandName, runAdmin } from './admin.js';
import { adminSocketPath, callerEnv, type AdminReply, type AdminRequest } from './admin-socket.js';

/** A request is a command line; anything longer than this is not one. */
const MAX_REQUEST_BYTES = 1024 * 1024;
/** A Unix socket path longer than this does not fit `sockaddr_un` (104 bytes on macOS, 108 on Linux, with the NUL). */
const MAX_SOCKET_PATH = 103;

export interface AdminServer {
  path: string;
  /** Stops taking commands and waits for those running. */
  close(): Promise<void>;
}

/**
 * The service's end of the admin socket (cli/admin-socket.ts): each connection runs one admin command with the
 * service's database and services, as a request would, its output sent back to the CLI. Null, with a warning, when
 * the socket cannot be made (a data folder path too long for a socket, a folder not ours): the CLI then says the
 * folder is in use, as before.
 */
export async function serveAdminSocket(deps: {
  dataDir: string;
  db: Database;
  services: Services;
  /** PUBLIC_URL, else the address the service listens on: where links printed by a command point. */
  origin: string;
  log: Pick<Logger, 'info' | 'warn'>;
}): Promise<AdminServer | null> {
  const { dir, path } = adminSocketPath(deps.dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    deps.log.warn({ path }, 'admin socket not started: its path is too long for a Unix socket; stop the service to run admin commands');
    return null;
  }
  try {
    // Only this user may enter the folder, so only this user can connect (the socket's own mode is not honoured everywhere).
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory() || (process.getuid && st.uid !== process.getuid())) throw new Error(`${dir} is not a folder of this user`);
    chmodSync(dir, 0o700);
    // A socket left by a service that was killed: this process holds the folder's lock, so no live one can be there.
    rmSync(path, { force: true });
  } catch (err) {
    deps.log.warn({ err, path }, 'admin socket not started; stop the service to run admin commands');
    return null;
  }

  const running = new Set<Promise<void>>();
  const server = createServer((socket) => {
    const task = serve(socket, deps)
      .catch((err: unknown) => deps.log.warn({ err }, 'admin command failed'))
      .finally(() => running.delete(task));
    running.add(task);
  });
  const listening = await new Promise<boolean>((done) => {
    server.once('error', (err) => {
      deps.log.warn({ err, path }, 'admin socket not started; stop the service to run admin commands');
      done(false);
    });
    server.listen(path, () => done(true));
  });
  if (!listening) return null;
  chmodSync(path, 0o600);
  return {
    path,
    async close() {
      await new Promise<void>((done) => server.close(() => done()));
      await Promise.allSettled([...running]);
      rmSync(path, { force: true });
    },
  };
}

/** Reads the request line, runs the command, writes its output and exit code; a broken connection ends it quietly. */
async function serve(socket: Socket, deps: Parameters<typeof serveAdminSocket>[0]): Promise<void> {
  socket.on('error', () => {});
  const send = (reply: AdminReply) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
  };
  const request = await readRequest(socket);
  if (!request) {
    send({ err: 'error: the admin socket takes one JSON line: {"argv": [...], "cwd": "...", "env": {}, "terminal": false}\n' });
    send({ exit: 2 });
    socket.end();
    return;
  }
  const started = Date.now();
  const code = await runAdmin(request.argv, (line) => send({ out: line }), {
    db: deps.db,
    services: deps.services,
    serviceOrigin: deps.origin,
    caller: {
      err: (text) => send({ err: text }),
      cwd: request.cwd,
      env: request.env,
      terminal: request.terminal,
      ...(request.user ? { user: request.user } : {}),
    },
  });
  send({ exit: code });
  socket.end();
  // The command's name only: its arguments may hold a customer's phone or a courier password.
  deps.log.info({ command: commandName(request.argv) ?? '(unknown)', exit: code, ms: Date.now() - started }, 'admin command');
}

function readRequest(socket: Socket): Promise<AdminRequest | undefined> {
  return new Promise((done) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const nl = text.indexOf('\n');
      if (nl < 0 && text.length <= MAX_REQUEST_BYTES) return;
      socket.off('data', onData);
      done(nl < 0 ? undefined : parseRequest(text.slice(0, nl)));
    };
    socket.on('data', onData);
    socket.once('close', () => done(undefined));
  });
}

function parseRequest(line: string): AdminRequest | undefined {
  try {
    const r = JSON.parse(line) as Partial<AdminRequest>;
    const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((a) => typeof a === 'string');
    if (!strings(r.argv) || typeof r.cwd !== 'string' || !isAbsolute(r.cwd) || typeof r.terminal !== 'boolean' || typeof r.env !== 'object' || r.env === null)
      return undefined;
    const user = typeof r.user === 'string' && r.user.trim() ? r.user.trim().slice(0, 100) : undefined;
    return { argv: r.argv, cwd: r.cwd, terminal: r.terminal, env: callerEnv(r.env), ...(user ? { user } : {}) };
  } catch {
    return undefined;
  }
}
