import { connect, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createServices } from '../../src/services.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { serverProcesses } from '../helpers/server-process.js';

/**
 * The service as `npm start` runs it, with REDIS_URL set while Redis is away: it starts and serves (rate limits fail
 * open, as when Redis goes away at run time), and once Redis answers at that address the shared limit applies. A
 * malformed REDIS_URL is still a configuration error that stops the start.
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let testDb: TestDatabase;
const servers = serverProcesses();
const closers: (() => Promise<unknown>)[] = [];

/** On embedded PGlite this file is skipped: the server is a second process, and a PGlite folder belongs to one process. */
const SERVER = inject('testDb') !== null;

beforeAll(async () => {
  if (!SERVER) return;
  testDb = await createTestDatabase();
});
afterAll(async () => {
  servers.killAll();
  for (const close of closers) await close();
  await testDb?.drop();
});

/** A port nothing listens on (taken, then let go). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Redis appearing at `port`: every connection there is piped to the test Redis. */
async function redisAt(port: number): Promise<Server> {
  const upstream = new URL(REDIS_URL);
  const server = createServer((client) => {
    const to = connect(Number(upstream.port || 6379), upstream.hostname);
    for (const s of [client, to]) s.on('error', () => {});
    client.pipe(to).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return server;
}

describe.skipIf(!SERVER)('REDIS_URL set while Redis is away at start', () => {
  it('starts and serves without limits, warns once without the URL’s password, and shares the limit once Redis is back', async () => {
    const services = createServices({ db: testDb.db, config: testConfig() });
    const co = await createCompanyWithKey(services);
    const port = await closedPort();
    const t0 = Date.now();
    const { base, output } = await servers.start(testDb.url!, {
      REDIS_URL: `redis://:s3cret-redis-pass@127.0.0.1:${port}`,
      RATE_LIMIT_MAX: '3',
      LOG_LEVEL: 'info',
    });
    const startMs = Date.now() - t0;
    const get = async () => (await fetch(`${base}/catalog/categories`, { headers: co.headers, signal: AbortSignal.timeout(10_000) })).status;

    // fail open: more requests than the limit, all served
    const served = [];
    for (let i = 0; i < 6; i++) served.push(await get());
    expect(served).toEqual(Array(6).fill(200));
    const warnings = output()
      .split('\n')
      .filter((l) => l.includes('Redis unreachable'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0])).toMatchObject({ level: 40, redis: `127.0.0.1:${port}`, cause: 'ECONNREFUSED' });
    expect(output()).not.toContain('s3cret-redis-pass');

    // Redis comes up at that address: the client reconnects by itself and the key's limit of 3 applies again
    await redisAt(port);
    const t1 = Date.now();
    let statuses: number[] = [];
    while (Date.now() - t1 < 15_000) {
      if (output().includes('Redis reachable again')) {
        statuses = [await get(), await get(), await get(), await get()];
        if (statuses.includes(429)) break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(statuses.at(-1), output().slice(-2000)).toBe(429);
    console.log(`[redis-at-start] started in ${startMs} ms with Redis away; limit shared again ${Date.now() - t1} ms after Redis came up`);
  }, 60_000);

  it('a malformed REDIS_URL stops the start with a message naming it', async () => {
    for (const url of ['not a url', 'http://redis-host:6379', 'redis://'])
      await expect(servers.start(testDb.url!, { REDIS_URL: url }), url).rejects.toThrow(
        /exited \(1\)[\s\S]*REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/,
      );
  }, 60_000);
});
