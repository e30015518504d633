import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createServices } from '../../src/services.js';
import { testConfig } from '../helpers/app.js';
import { addLocations, addProduct } from '../helpers/catalogue-fixtures.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { freePort } from '../helpers/faulty-peers.js';
import { metricValue, serverProcesses, type ServerProcess } from '../helpers/server-process.js';

/**
 * The last-resort policy of src/main.ts (docs/decisions.md), on the real process at its default settings: an unhandled
 * rejection at run time is logged and counted and the service goes on; an uncaught exception is logged at fatal and
 * counted, then the instance drains (readiness fails, requests are still served) and exits 1 for a clean restart; a
 * broken configuration at start still exits 1 with its message. On d154ba3 the first two ended the process at once.
 */
let testDb: TestDatabase;
let headers: Record<string, string>;
const servers = serverProcesses();
const PRELOAD = './test/helpers/process-fault.ts';

/** On embedded PGlite this file is skipped: the service is a second process, and a PGlite folder belongs to one process. */
const SERVER = inject('testDb') !== null;

beforeAll(async () => {
  if (!SERVER) return;
  testDb = await createTestDatabase();
  const co = await createCompanyWithKey(createServices({ db: testDb.db, config: testConfig() }));
  await addLocations(testDb.db, co.company.id);
  await addProduct(testDb.db, co.company.id, { sku: 'P', name: 'Process item', variants: [{ sku: 'P-1', selling_price: '10.00', stock: '5' }] });
  headers = co.headers;
});
afterAll(async () => {
  servers.killAll();
  await testDb?.drop();
});

const origin = (s: ServerProcess) => new URL(s.base).origin;
const exited = (s: ServerProcess) =>
  new Promise<number | null>((r) => (s.child.exitCode !== null ? r(s.child.exitCode) : s.child.once('exit', (code) => r(code))));

const metric = (port: number, name: string, labels: string) => metricValue(`http://127.0.0.1:${port}/metrics`, name, labels);

describe.skipIf(!SERVER)('faults that reach the process', () => {
  it('an unhandled rejection is logged (scrubbed) and counted, and the service goes on answering', async () => {
    const port = await freePort();
    const s = await servers.start(testDb.url!, { PROCESS_FAULT: 'rejection', METRICS_PORT: String(port), RATE_LIMIT_MAX: undefined }, [PRELOAD]);
    for (let i = 0; i < 2; i++) {
      s.child.kill('SIGUSR2'); // one at a time: two signals sent together may arrive as one
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(s.child.exitCode, s.stderr()).toBeNull();
    expect((await fetch(`${origin(s)}/readyz`)).status).toBe(200);
    expect((await fetch(`${s.base}/catalog/products/P-1`, { headers })).status).toBe(200);
    expect(await metric(port, 'commerce_process_errors_total', 'kind="unhandled_rejection"')).toBe(2);
    expect(await metric(port, 'commerce_process_errors_total', 'kind="uncaught_exception"')).toBe(0);
    const logged = s.logs().filter((l) => String(l.msg).startsWith('unhandled rejection'));
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatchObject({ level: 50, err: { type: 'Error', message: 'injected fault for customer ***' } });
    expect(s.stdout().join('\n')).not.toMatch(/98451/);
    s.child.kill('SIGTERM');
    expect(await exited(s)).toBe(0);
  }, 60_000);

  it('an uncaught exception is logged at fatal and counted; readiness fails at once, requests are still served through the drain, then it exits 1', async () => {
    const s = await servers.start(testDb.url!, { PROCESS_FAULT: 'exception', RATE_LIMIT_MAX: undefined }, [PRELOAD]);
    const exit = exited(s);
    s.child.kill('SIGUSR2');
    await new Promise((r) => setTimeout(r, 300));
    expect((await fetch(`${origin(s)}/readyz`)).status).toBe(503);
    expect((await fetch(`${s.base}/catalog/products/P-1`, { headers })).status).toBe(200);
    const t0 = Date.now();
    expect(await exit).toBe(1);
    expect(Date.now() - t0).toBeLessThan(10_000); // SHUTDOWN_DRAIN_MS (2 s) and closing, within SHUTDOWN_TIMEOUT_MS
    const fatal = s.logs().filter((l) => l.level === 60);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toMatchObject({ err: { message: 'injected fault for customer ***' } });
    expect(s.logs().some((l) => l.msg === 'stopped')).toBe(true);
    expect(s.stdout().join('\n')).not.toMatch(/98451/);
  }, 60_000);

  it('a broken configuration or a port that cannot be listened on still stops the start with exit 1 and its message', async () => {
    await expect(servers.start(testDb.url!, { PORT: 'eighty' })).rejects.toThrow(/server exited \(1\)[\s\S]*PORT/);
    const taken = await servers.start(testDb.url!, {});
    const port = new URL(taken.base).port;
    await expect(servers.start(testDb.url!, { PORT: port })).rejects.toThrow(/server exited \(1\)[\s\S]*EADDRINUSE/);
    taken.child.kill('SIGTERM');
    expect(await exited(taken)).toBe(0);
  }, 120_000);
});
