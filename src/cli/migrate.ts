import { openMigratedDatabase } from '../boot.js';
import { loadConfig } from '../config.js';

try {
  const db = await openMigratedDatabase(loadConfig(), (msg) => process.stdout.write(`${msg}\n`));
  await db.close();
  process.stdout.write('migrations up to date\n');
} catch (err) {
  process.stderr.write(`migration failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
