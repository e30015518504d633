import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createServiceLogger } from '../../src/lib/logger.js';
import { configSchema, type Config } from '../../src/config.js';
import { createServices, type Services } from '../../src/services.js';
import type { Database } from '../../src/db/index.js';
import type { Redis } from 'ioredis';
import { createTestDatabase, type TestDatabase } from './db.js';
import { logSink } from './log-sink.js';

export function testConfig(overrides: Partial<Record<keyof Config, string>> = {}): Config {
  return configSchema.parse({
    NODE_ENV: 'test',
    SEED_DEMO: 'false',
    MEDIA_DIR: './test/fixtures/media',
    SIGNING_SECRET: 'test-signing-secret-0123456789abcdef0123',
    RATE_LIMIT_MAX: '1000',
    AUTH_FAILURE_LIMIT: '1000',
    ...overrides,
  });
}

export interface TestApp {
  app: FastifyInstance;
  db: Database;
  config: Config;
  services: Services;
  /** Every log line the app wrote, parsed. */
  logs: Record<string, unknown>[];
  /** A child of the app's logger for a worker run by the test (as src/main.ts gives one to each worker). */
  workerLog: (component: string) => Logger;
  /** Raw log text, to grep for secrets. */
  rawLogs: () => string;
}

/**
 * The logger of `npm start` (options, serializers, the level the config gives), written to memory: a line that is not
 * JSON fails the test at once (its log call throws), and every line is there to be searched.
 */
export function captureLogger(level: string = testConfig().LOG_LEVEL) {
  const chunks: string[] = [];
  const logs: Record<string, unknown>[] = [];
  const sink = logSink();
  const stream = new Writable({
    write(chunk, _enc, cb) {
      const text = chunk.toString();
      chunks.push(text);
      sink(text);
      for (const line of text.split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      cb();
    },
  });
  return { logger: createServiceLogger({ level, destination: stream }), logs, rawLogs: () => chunks.join('') };
}

export async function buildTestApp(db: Database, overrides: Partial<Record<keyof Config, string>> = {}, redis?: Redis): Promise<TestApp> {
  const config = testConfig(overrides);
  const { logger, logs, rawLogs } = captureLogger(config.LOG_LEVEL);
  const services = createServices({ db, config });
  const app = await buildApp({ config, db, logger, services, redis });
  await app.ready();
  return { app, db, config, services, logs, rawLogs, workerLog: (component) => logger.child({ component }) };
}

/**
 * One database for the whole test file and an app on it; `ctx` is filled in beforeAll.
 * Each test makes its own company (see fixtures), so tests do not depend on each other.
 */
export function useTestApp(overrides: Partial<Record<keyof Config, string>> = {}) {
  const ctx = {} as TestApp & { testDb: TestDatabase };
  beforeAll(async () => {
    ctx.testDb = await createTestDatabase();
    Object.assign(ctx, await buildTestApp(ctx.testDb.db, overrides));
  });
  afterAll(async () => {
    await ctx.app?.close();
    await ctx.testDb?.drop();
  });
  return ctx;
}
