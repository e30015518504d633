import { connect } from 'node:net';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The admin socket: while the service holds the embedded database folder (one process may open it), the admin CLI
 * sends it the whole command to run inside it. A Unix socket in a folder of the data folder that only the service's
 * user can enter: whoever can reach it could read the database files anyway (docs/decisions.md).
 *
 * The wire: the CLI writes one JSON line (`AdminRequest`); the service answers with JSON lines, `{"out": line}` for
 * stdout, `{"err": text}` for stderr, and last `{"exit": code}`.
 */
/** Settings a command may take from the caller's environment instead of a flag (secrets kept out of shell history). */
export const CALLER_ENV = ['COURIER_PASSWORD', 'RAZORPAY_KEY_SECRET', 'RAZORPAY_WEBHOOK_SECRET'] as const;
export type CallerEnv = { [K in (typeof CALLER_ENV)[number]]?: string };

/** CALLER_ENV's strings of `env`, nothing else. */
export function callerEnv(env: Record<string, unknown>): CallerEnv {
  const out: CallerEnv = {};
  for (const name of CALLER_ENV) {
    const value = env[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/** The caller's side of a command: where its output goes, its working directory and the settings it gave. */
export interface AdminCaller {
  /** Text for stderr, newlines included (stdout gets the command's lines). */
  err: (text: string) => void;
  cwd: string;
  env: CallerEnv;
  /** Whether the caller's stderr is a terminal (progress rewritten in place) or a pipe (a line per step). */
  terminal: boolean;
  /** Who typed the command, for the audit trail: ADMIN_USER when set (a shared login), else the operating-system user. */
  user: string;
}

/** The person running this process: ADMIN_USER, else the operating-system user name. */
export function adminUser(env: Record<string, string | undefined> = process.env): string {
  const named = env.ADMIN_USER?.trim();
  if (named) return named.slice(0, 100);
  try {
    return userInfo().username;
  } catch {
    return `uid:${process.getuid?.() ?? 'unknown'}`;
  }
}

/** This process as the caller, with `given` on top. */
export function callerOf(given: Partial<AdminCaller> = {}): AdminCaller {
  return {
    err: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: callerEnv(process.env),
    terminal: process.stderr.isTTY === true,
    user: adminUser(),
    ...given,
  };
}

export interface AdminRequest {
  argv: string[];
  cwd: string;
  env: AdminCaller['env'];
  terminal: boolean;
  /** AdminCaller's user; absent from an older CLI (the service then names its own user). */
  user?: string;
}

export type AdminReply = { out: string } | { err: string } | { exit: number };

/** The folder holding the socket (mode 0700) and the socket in it. */
export function adminSocketPath(dataDir: string): { dir: string; path: string } {
  const dir = join(resolve(dataDir), 'admin');
  return { dir, path: join(dir, 'admin.sock') };
}

/**
 * Runs the command inside the service that holds `dataDir`, relaying its output: the exit code, or undefined when
 * no service listens there (no socket, or one left by a service that is gone): the CLI then opens the folder itself.
 */
export function runInService(dataDir: string, argv: string[], out: (line: string) => void, caller: AdminCaller): Promise<number | undefined> {
  const { path } = adminSocketPath(dataDir);
  return new Promise((done, fail) => {
    const socket = connect(path);
    let connected = false;
    let exit: number | undefined;
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
      const request: AdminRequest = { argv, cwd: caller.cwd, env: caller.env, terminal: caller.terminal, user: caller.user };
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        let reply: AdminReply;
        try {
          reply = JSON.parse(buffered.slice(0, nl)) as AdminReply;
        } catch {
          socket.destroy();
          return fail(new Error(`${path} answered something other than an admin command's output`));
        }
        buffered = buffered.slice(nl + 1);
        if ('out' in reply) out(reply.out);
        else if ('err' in reply) caller.err(reply.err);
        else exit = reply.exit;
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (connected) return fail(new Error(`lost the service's admin socket ${path}: ${err.message}`));
      if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED') return done(undefined);
      if (err.code === 'EACCES')
        return fail(new Error(`the service holding ${resolve(dataDir)} runs as another user: run the command as that user (${path} is theirs alone)`));
      fail(new Error(`cannot reach the service through ${path}: ${err.message}`));
    });
    socket.on('close', () => {
      if (!connected) return;
      if (exit === undefined) fail(new Error('the service ended the command before it finished (was it stopped?)'));
      else done(exit);
    });
  });
}
