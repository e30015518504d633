import { openMigratedDatabase } from '../boot.js';
import { loadConfig } from '../config.js';
import { parse, UsageError } from './args.js';

try {
  parse(process.argv.slice(2), {});
  const db = await openMigratedDatabase(loadConfig(), (msg) => process.stdout.write(`${msg}\n`));
  await db.close();
  process.stdout.write('migrations up to date\n');
} catch (err) {
  if (err instanceof UsageError) {
    process.stderr.write(`error: ${err.message}\nusage: npm run migrate\n`);
    process.exit(2);
  }
  process.stderr.write(`migration failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
