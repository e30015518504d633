import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

/**
 * Where the tests' log lines also go when `TEST_LOG_DIR` is set (CI sets it for one full run of the suite, then
 * `scripts/scan-logs.ts` looks in them for every phone number the tests used). A no-op otherwise.
 */
export function logSink(): (text: string) => void {
  const dir = process.env.TEST_LOG_DIR;
  if (!dir) return () => {};
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${process.pid}-${threadId}.log`);
  return (text) => appendFileSync(file, text);
}
