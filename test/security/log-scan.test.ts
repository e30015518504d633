import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { phonesIn, scanLogs } from '../../scripts/scan-logs.js';

/**
 * The scan CI runs over the logs of a full run of the suite (scripts/scan-logs.ts): it must find a phone
 * number however a log line writes it, and must not cry wolf at masked queries, decimals or long ids.
 */
describe('the log scan for phone numbers', () => {
  it('collects the numbers the tests write, in every way they write them', () => {
    expect([...phonesIn(`'+91 98765 43210', "9812345670", '+919000000001', "+91-70000-00001", '0 80 2345 6789', '987 654 3210'`)].sort()).toEqual(
      ['7000000001', '8023456789', '9000000001', '9812345670', '9876543210'].sort(),
    );
    // not phones: a 13-digit timestamp, a decimal, a number that starts below 6
    expect([...phonesIn('1764130000000 98765.43210 5876543210')]).toEqual([]);
  });

  it('finds a leaked number in any spacing, and nothing in masked or unrelated lines', () => {
    const dir = mkdtempSync(join(tmpdir(), 'log-scan-'));
    const phones = new Set(['9876543210', '9812345670']);
    writeFileSync(
      join(dir, 'a.log'),
      [
        '{"msg":"incoming request","req":{"url":"/v1/customers?phone=***"}}',
        '{"msg":"request completed","responseTime":0.9876543210123}',
        '{"msg":"order","id":"ord_98765432101234","time":1795670479207}',
        '{"msg":"incoming request","req":{"url":"/v1/customers?phone=%2B919876543210"}}',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'b.log'), '{"err":"duplicate key (phone)=(+91 98123 45670)"}\n{"x":"(0)98765-43210"}\n');
    const r = scanLogs(dir, phones);
    expect(r).toMatchObject({ files: 2, lines: 6, maskedPhoneQueries: 1, secrets: [] });
    // %2B91… is a URL-encoded +91: the digits after the encoded sign are still found
    expect(r.leaks.map((l) => [l.file, l.line, l.phone])).toEqual([
      ['a.log', 4, '9876543210'],
      ['b.log', 1, '9812345670'],
      ['b.log', 2, '9876543210'],
    ]);
  });

  it('finds a secret by its shape: a whole API key, a feed secret, a signed link in clear; not their masked forms', () => {
    const dir = mkdtempSync(join(tmpdir(), 'log-scan-'));
    writeFileSync(
      join(dir, 'c.log'),
      [
        '{"msg":"incoming request","req":{"url":"/invoices/*?expires=***&sig=***","params":{"company":"co_1"}}}',
        '{"msg":"request completed","key":"cok_2uC5SVeWoRtQ"}',
        '{"msg":"incoming request","req":{"url":"/feeds/meta/:company/:file"}}',
        '{"msg":"incoming request","req":{"url":"/invoices/co_1/inv_2.pdf?expires=1795670479&sig=QfcV3PU4J8nOKNP"}}',
        '{"msg":"incoming request","req":{"url":"/feeds/meta/co_1/mfd_FkznYB3SFkqZRNpXi-jrhhtmlsBgVdjZ.csv"}}',
        '{"msg":"x","err":"bad key cok_2uC5SVeWoRtQ_0123456789abcdefghijABCDEFGHIJ01"}',
      ].join('\n'),
    );
    const r = scanLogs(dir, new Set());
    expect(r.secrets.map((l) => [l.line, l.what])).toEqual([
      [4, 'link signature'],
      [4, 'link expiry'],
      [5, 'feed secret'],
      [6, 'API key'],
    ]);
  });
});
