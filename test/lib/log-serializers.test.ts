import Fastify from 'fastify';
import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config.js';
import { LOG_SERIALIZERS } from '../../src/lib/log-privacy.js';
import { createServiceLogger } from '../../src/lib/logger.js';

/**
 * Logging can never throw: every serializer the service's logger has is total over any value, through the
 * real pino logger with the options of `npm start` at the default level. A log call with any value under any
 * serializer's key returns, and writes exactly one line of JSON of bounded size. Under `err` the privacy guarantees
 * hold for every shape: no phone number or e-mail address, and no field where PostgreSQL repeats a row.
 */

const DEFAULT_LEVEL = configSchema.parse({}).LOG_LEVEL;
/** The serializers' output budget is 32 K characters; JSON may write a character as six (\u0000) plus the structure. */
const MAX_LINE = 256 * 1024;

function serviceLogger() {
  const lines: string[] = [];
  const logger = createServiceLogger({ level: DEFAULT_LEVEL, destination: { write: (line: string) => void lines.push(line) } });
  return { logger, lines };
}

/** A line written by one call: exactly one, newline-terminated JSON object, of bounded size. */
function oneLine(lines: string[], before: number): Record<string, unknown> {
  expect(lines.length - before).toBe(1);
  const line = lines[lines.length - 1];
  expect(line.endsWith('\n')).toBe(true);
  expect(line.slice(0, -1)).not.toContain('\n');
  expect(line.length).toBeLessThan(MAX_LINE);
  return JSON.parse(line) as Record<string, unknown>;
}

const throwing = () => {
  throw new Error('getter throws');
};

/**
 * Values nobody should log, and some do: every one of them must still make a line. Each is made by the property itself
 * (fast-check reads the values it generates, and a proxy that throws on every read would break fast-check first).
 */
interface Hostile {
  kind: string;
  make: () => unknown;
}
const made = (kind: string, make: () => unknown): fc.Arbitrary<Hostile> => fc.constant({ kind, make });
/** Made once and reused (the serializers must not change what they are given, so one copy serves every run). */
const once = (kind: string, make: () => unknown): fc.Arbitrary<Hostile> => {
  let value: unknown;
  let built = false;
  return made(kind, () => {
    if (!built) [value, built] = [make(), true];
    return value;
  });
};
const given = (kind: string, arb: fc.Arbitrary<unknown>): fc.Arbitrary<Hostile> => arb.map((v) => ({ kind, make: () => v }));

const hostile: fc.Arbitrary<Hostile> = fc.oneof(
  given(
    'anything',
    fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withTypedArray: true,
      withSparseArray: true,
      stringUnit: 'binary',
    }),
  ),
  given('string', fc.string()),
  given('number', fc.double()),
  given(
    'primitive',
    fc.constantFrom(undefined, null, NaN, Infinity, -0, 0n, Symbol('s'), () => 1, 'HTTP 500', ''),
  ),
  given('circular, no prototype', fc.anything({ withNullPrototype: true })).map(({ make }) => ({
    kind: 'circular, no prototype',
    make: () => {
      const o = Object.create(null) as Record<string, unknown>;
      o.inner = make();
      o.self = o;
      return o;
    },
  })),
  made('throwing getter', () => Object.defineProperty({ a: 1 }, 'bad', { get: throwing, enumerable: true })),
  made('error with a throwing message', () => Object.defineProperty(new Error('x'), 'message', { get: throwing })),
  made('throwing conversions', () => ({ toJSON: throwing, toString: throwing, [Symbol.toPrimitive]: throwing })),
  made('proxy that throws', () => new Proxy({}, { get: throwing, ownKeys: throwing, getPrototypeOf: throwing, has: throwing })),
  made('revoked proxy', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  }),
  once('huge string', () => 'x'.repeat(2_000_000)),
  once('huge array', () => Array.from({ length: 200_000 }, (_, i) => ({ i, s: 'y'.repeat(20) }))),
  once('huge object', () => Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, 'z'.repeat(30)]))),
  once('deep object', () => {
    let deep: Record<string, unknown> = { end: true };
    for (let i = 0; i < 10_000; i++) deep = { deep };
    return deep;
  }),
  once('buffer', () => Buffer.alloc(1_000_000)),
  given('circular cause', fc.string()).map(({ make }) => ({
    kind: 'circular cause',
    make: () => {
      const a = new Error(String(make()));
      a.cause = new Error('b', { cause: a });
      return a;
    },
  })),
  given('AggregateError', fc.array(fc.anything(), { maxLength: 5 })).map(({ make }) => ({
    kind: 'AggregateError',
    make: () => new AggregateError([...(make() as unknown[]), new TypeError('inner')], 'several'),
  })),
  given('error with fields', fc.anything()).map(({ make }) => ({
    kind: 'error with fields',
    make: () => Object.assign(new Error('with fields'), { code: 'E1', extra: make(), nested: new RangeError('nested') }),
  })),
  made('error with odd fields', () =>
    Object.assign(new Error('request failed'), { req: { socket: null, headers: null }, errors: 'not an array', stack: undefined }),
  ),
);

describe('the service logger never throws, whatever is logged', () => {
  it('the serializers of the app logger are ours, each one total (Fastify adds none of its own)', () => {
    const app = Fastify({ loggerInstance: createServiceLogger({ level: DEFAULT_LEVEL, destination: { write: () => {} } }) });
    const serializers = (app.log as unknown as Record<symbol, Record<string, unknown>>)[pino.symbols.serializersSym];
    expect(Object.keys(serializers).sort()).toEqual(Object.keys(LOG_SERIALIZERS).sort());
    for (const name of Object.keys(serializers)) expect(serializers[name]).toBe(LOG_SERIALIZERS[name as keyof typeof LOG_SERIALIZERS]);
  });

  it('any value under any serializer key, at every level: the call returns and writes one parseable line of bounded size', () => {
    const { logger, lines } = serviceLogger();
    const names = Object.keys(LOG_SERIALIZERS);
    expect(names).toContain('err');
    fc.assert(
      fc.property(fc.constantFrom(...names), hostile, fc.constantFrom('info', 'warn', 'error', 'fatal') as fc.Arbitrary<'info'>, (name, { make }, level) => {
        const value = make();
        const before = lines.length;
        logger[level]({ [name]: value, company: 'co_1' }, 'something happened');
        const entry = oneLine(lines, before);
        expect(entry.msg).toBe('something happened');
        if (value !== undefined) expect(entry).toHaveProperty(name);
      }),
      { numRuns: 300 },
    );
  });

  it('through a child logger (as the workers have) and with the error as the first argument', () => {
    const { logger, lines } = serviceLogger();
    const child = logger.child({ component: 'webhook-worker' });
    fc.assert(
      fc.property(hostile, ({ kind, make }) => {
        const value = make();
        let before = lines.length;
        child.warn({ err: value }, 'webhook delivery failed; retrying');
        expect(oneLine(lines, before).component).toBe('webhook-worker');
        before = lines.length;
        // an Error as the only argument (pino reads its message itself), anything else under err without a message
        if (kind.includes('error') || kind.includes('cause') || kind === 'AggregateError') child.error(value as Error);
        else child.error({ err: value });
        oneLine(lines, before);
      }),
      { numRuns: 200 },
    );
  });

  it('the shapes that ended the process on d154ba3 come out as objects with their text', () => {
    const { logger, lines } = serviceLogger();
    logger.warn({ err: 'HTTP 500' }, 'webhook delivery failed; retrying');
    expect(JSON.parse(lines[0]).err).toEqual({ type: 'string', message: 'HTTP 500' });
    logger.error({ err: undefined }, 'nothing');
    logger.error({ err: null }, 'null');
    logger.error({ err: 42 }, 'a number');
    expect(lines.slice(1).map((l) => JSON.parse(l).err)).toEqual([undefined, { type: 'null', message: 'null' }, { type: 'number', message: '42' }]);
    const cause = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    logger.error({ err: new Error('poll failed', { cause }) }, 'poll');
    const err = JSON.parse(lines[4]).err;
    expect(err).toMatchObject({ type: 'Error', message: 'poll failed', cause: { type: 'Error', message: cause.message } });
    expect(err.stack).toContain('poll failed');
  });
});

const PHONES = ['+91 98451 23456', '9845123456', '098451-23456', '+919845123456', '(98451) 23456'];
const PHONE_DIGITS = ['9845123456', '98451 23456', '98451-23456', '98451) 23456'];
const EMAILS = ['meera.s+shop@example.in', 'ravi@mail.example.co.in'];
const ROW_VALUE = 'ROW-SENTINEL-Kamala-Nagar-12';

/** Text that holds a phone or an e-mail somewhere among other text. */
const withSecret = fc
  .tuple(fc.string({ maxLength: 20 }), fc.constantFrom(...PHONES, ...EMAILS), fc.string({ maxLength: 20 }), fc.constantFrom(' ', ': ', ', ', ' (', '\n'))
  .map(([before, secret, after, sep]) => `${before}${sep}${secret}${sep === ' (' ? ')' : sep}${after}`);

/** PostgreSQL's fields that repeat a row, holding the row. */
const rowFields = fc
  .subarray(['detail', 'where', 'internalQuery', 'parameters', 'params'], { minLength: 1 })
  .map((keys) => Object.fromEntries(keys.map((k) => [k, k === 'params' || k === 'parameters' ? ['co_1', ROW_VALUE] : `Key (phone)=(${ROW_VALUE})`])));

/** Every shape `err` takes in practice and some it should not, each carrying personal data somewhere. */
const leaky: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, withSecret, tie('error'), tie('object'), fc.array(tie('value'), { maxLength: 3 })),
  object: fc.oneof(
    fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), withSecret), tie('value'), { maxKeys: 4 }),
    fc.tuple(tie('value'), rowFields).map(([v, row]) => ({ message: 'duplicate key', inner: v, ...row })),
    tie('value').map((v) => Object.assign(Object.create(null) as object, { v })),
  ),
  error: fc
    .tuple(withSecret, fc.constantFrom(Error, TypeError, RangeError), fc.option(tie('value'), { nil: undefined }), rowFields, fc.boolean())
    .map(([message, Kind, cause, row, aggregate]) => {
      const err = Object.assign(new Kind(message, { cause }), { code: '23505' }, row);
      return aggregate ? new AggregateError([err, message], message) : err;
    }),
})).value;

describe('under err, whatever its shape, no personal data and no row', () => {
  it('a string, an Error (with cause, AggregateError, pg fields), a plain object, one without a prototype: scrubbed and row fields dropped', () => {
    const { logger, lines } = serviceLogger();
    fc.assert(
      fc.property(leaky, (value) => {
        const before = lines.length;
        logger.error({ err: value }, 'failed');
        oneLine(lines, before);
        const line = lines[lines.length - 1];
        for (const needle of [...PHONE_DIGITS, ...EMAILS, ROW_VALUE]) expect(line, `${needle} in ${line}`).not.toContain(needle);
      }),
      { numRuns: 500 },
    );
  });

  it('a phone written after a date is still masked, the date and a time are kept', () => {
    const { logger, lines } = serviceLogger();
    logger.error({ err: 'order of 2026-11-24 9845123456 at 2026-11-24 10:42:07' }, 'x');
    expect(JSON.parse(lines[0]).err.message).toBe('order of 2026-11-24 *** at 2026-11-24 10:42:07');
  });
});
