/**
 * No customer's phone number and no secret in any log line: after a full run of the suite with
 * TEST_LOG_DIR set,
 *   npx tsx scripts/scan-logs.ts <log dir> [test dir]
 * collects every Indian mobile number written in the test sources (`+91 98765 43210`, `9876543210`, `+919876543210`…)
 * and looks for each in every log line the run wrote, however it is spaced; and looks for anything shaped like a
 * secret of ours (a whole API key, a feed's secret, a signed link's signature or expiry in clear). Exits 1 naming the
 * lines that hold one; also when the logs are too few to mean anything or hold no masked phone query (the capture did
 * not work).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The 10-digit Indian mobile numbers written in `text` (with or without +91/91/0 and separators). */
export function phonesIn(text: string): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?<![\d.])(?:\+?91[\s-]?|0)?([6-9](?:[\s-]?\d){9})(?![\d.])/g)) found.add(m[1].replace(/\D/g, ''));
  return found;
}

/** Secrets by their shape: whatever test wrote them, a log line holding one is a leak. */
export const SECRET_SHAPES: [what: string, shape: RegExp][] = [
  ['API key', /cok_[A-Za-z0-9]{12}_[A-Za-z0-9]{32}/],
  ['feed secret', /mfd_[A-Za-z0-9_-]{20,}/],
  ['link signature', /[?&]sig=(?!\*\*\*)[^&"\s]+/],
  ['link expiry', /[?&]expires=(?!\*\*\*)[^&"\s]+/],
];

export interface ScanResult {
  files: number;
  lines: number;
  /** request lines whose URL carries a masked phone query (`phone=***`): proof that request lines were captured */
  maskedPhoneQueries: number;
  leaks: { file: string; line: number; phone: string; text: string }[];
  secrets: { file: string; line: number; what: string; text: string }[];
}

/** Every log line in `dir` checked for any of `phones`, each number read with its spaces, dashes and brackets removed. */
export function scanLogs(dir: string, phones: Set<string>): ScanResult {
  const result: ScanResult = { files: 0, lines: 0, maskedPhoneQueries: 0, leaks: [], secrets: [] };
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (!statSync(file).isFile()) continue;
    result.files++;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((text, i) => {
        if (!text) return;
        result.lines++;
        if (/[?&]phone=\*\*\*/.test(text)) result.maskedPhoneQueries++;
        // a number however it is spaced (`+91 98765 43210`, `(0)98765-43210`); not the digits of a decimal or a long id
        for (const run of text.matchAll(/(?<![\d.])\+?\d(?:[\s()-]{0,2}\d){9,}(?![\d.])/g)) {
          const digits = run[0].replace(/\D/g, '');
          const phone = digits.length <= 12 ? digits.slice(-10) : '';
          if (phones.has(phone)) result.leaks.push({ file: name, line: i + 1, phone, text: text.slice(0, 300) });
        }
        for (const [what, shape] of SECRET_SHAPES) if (shape.test(text)) result.secrets.push({ file: name, line: i + 1, what, text: text.slice(0, 300) });
      });
  }
  return result;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.(ts|json|csv)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dir, testDir = 'test'] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: scan-logs.ts <log dir> [test dir]');
    process.exit(2);
  }
  const phones = new Set<string>();
  for (const f of sources(testDir)) for (const p of phonesIn(readFileSync(f, 'utf8'))) phones.add(p);
  const r = scanLogs(dir, phones);
  console.log(
    `scanned ${r.lines} log lines in ${r.files} files for the ${phones.size} phone numbers the tests use: ${r.leaks.length} found; ` +
      `${r.secrets.length} secrets found; ${r.maskedPhoneQueries} request lines carry phone=*** (masked)`,
  );
  for (const l of r.leaks.slice(0, 20)) console.log(`  ${l.file}:${l.line} holds ${l.phone}: ${l.text}`);
  for (const l of r.secrets.slice(0, 20)) console.log(`  ${l.file}:${l.line} holds a ${l.what}: ${l.text}`);
  if (r.leaks.length || r.secrets.length) process.exit(1);
  if (r.lines < 1000 || r.maskedPhoneQueries === 0) {
    console.log('too few log lines, or none with a masked phone query: the logs were not captured (is TEST_LOG_DIR passed to the tests?)');
    process.exit(1);
  }
}
