import { loadConfig } from '../config.js';
import { callerOf, runInService } from './admin-socket.js';

const argv = process.argv.slice(2);
const out = (line: string) => process.stdout.write(`${line}\n`);

/**
 * On the embedded database a running service holds the folder: the command runs inside it. This road imports only
 * the socket's client, so such a command starts in a fraction of the time the whole CLI takes to load.
 */
async function inService(): Promise<number | undefined> {
  let config;
  try {
    config = loadConfig();
  } catch {
    return undefined; // runAdmin reports the configuration error
  }
  if (config.DATABASE_URL) return undefined;
  try {
    return await runInService(config.DATA_DIR, argv, out, callerOf());
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (argv.includes('--json')) out(JSON.stringify({ error: message }));
    else process.stderr.write(`error: ${message}\n`);
    return 1;
  }
}

// Otherwise (PostgreSQL, or no service running) the CLI opens the database itself. runAdmin reports its own errors
// and answers with the exit code; anything it still throws ends the process as an uncaught error (exit 1, with the stack).
const code = (await inService()) ?? (await (await import('./admin.js')).runAdmin(argv));
process.exit(code);
