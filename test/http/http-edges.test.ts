import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import type { ErrorBody } from '../../src/contract/errors.js';
import { signPath } from '../../src/lib/signing.js';
import { BASE } from '../helpers/security-world.js';
import { SPEC_ROUTES } from '../helpers/routes.js';

/** Signed photo links under attack, header injection, oversized headers and bodies. */
let testDb: TestDatabase;
let ctx: TestApp;
let root: string;
let port: number;
let headers: Record<string, string>;
const SECRET_TEXT = 'TOP-SECRET-OUTSIDE-MEDIA';
const PHOTO = 'JPEGDATA';

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'media-sec-'));
  mkdirSync(join(root, 'media', 'co_1'), { recursive: true });
  writeFileSync(join(root, 'media', 'co_1', 'photo.jpg'), PHOTO);
  writeFileSync(join(root, 'secret.txt'), SECRET_TEXT);
  writeFileSync(join(root, 'media', 'co_1', 'photo.jpg.txt'), SECRET_TEXT);
  testDb = await createTestDatabase();
  ctx = await buildTestApp(testDb.db, { MEDIA_DIR: join(root, 'media') });
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  port = (ctx.app.server.address() as { port: number }).port;
  headers = (await createCompanyWithKey(ctx.services)).headers;
});
afterAll(async () => {
  await ctx?.app.close();
  await testDb?.drop();
  rmSync(root, { recursive: true, force: true });
});

/** Sends bytes as they are (no client-side normalisation of the path or headers) and returns the raw answer. */
function raw(request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', (err) => (chunks.length ? resolve(Buffer.concat(chunks).toString('latin1')) : reject(err)));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    // write, not end: a half-closed client may have its connection closed before a slow answer
    socket.write(request);
  });
}
const statusOf = (response: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
const secretKey = () => ctx.config.SIGNING_SECRET!;
const now = () => Math.floor(Date.now() / 1000);

describe('signed photo links', () => {
  it('a proper link serves the photo (so the refusals below are the signature or the path, not a broken route)', async () => {
    const link = (await ctx.services.media.linker(''))('co_1/photo.jpg');
    const res = await ctx.app.inject({ url: link });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(PHOTO);
  });

  it('path traversal, even with a valid signature for the hostile path: never the file outside, never 500', async () => {
    const exp = now() + 300;
    const hostile = [
      '../secret.txt',
      'co_1/../../secret.txt',
      '%2e%2e/secret.txt',
      'co_1/%2e%2e/%2e%2e/secret.txt',
      '%2E%2E%2Fsecret.txt',
      'co_1%2f..%2f..%2fsecret.txt',
      '..%5csecret.txt',
      '..\\secret.txt',
      `${root}/secret.txt`,
      `/${root}/secret.txt`,
      '%2fetc%2fpasswd',
      '/etc/passwd',
      'co_1/photo.jpg%00.txt',
      'co_1/photo.jpg\u0000.txt',
      'co_1//photo.jpg',
      './co_1/photo.jpg',
      'C:/Windows/win.ini',
      '%252e%252e/secret.txt',
      'co_1/%c0%ae%c0%ae/secret.txt',
    ];
    for (const p of hostile) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(p);
      } catch {
        decoded = p;
      }
      for (const signedFor of [p, decoded]) {
        const url = `/media/${p}?expires=${exp}&sig=${signPath(secretKey(), signedFor, exp)}`;
        const res = await raw(`GET ${url.replaceAll('\u0000', '%00')} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        const status = statusOf(res);
        expect([400, 403, 404], `${p} → ${status} ${res.slice(0, 300)}`).toContain(status);
        expect(res).not.toContain(SECRET_TEXT);
      }
    }
  });

  it('tampered links: altered sig, altered expires, expired, missing parts, another file with the same sig: 403', async () => {
    const exp = now() + 300;
    const good = signPath(secretKey(), 'co_1/photo.jpg', exp);
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    const past = now() - 10;
    const cases = [
      `/media/co_1/photo.jpg?expires=${exp}&sig=${flip(good)}`,
      `/media/co_1/photo.jpg?expires=${exp + 1}&sig=${good}`,
      `/media/co_1/photo.jpg?expires=${past}&sig=${signPath(secretKey(), 'co_1/photo.jpg', past)}`,
      `/media/co_1/photo.jpg?expires=${exp}`,
      `/media/co_1/photo.jpg?sig=${good}`,
      `/media/co_1/photo.jpg`,
      `/media/co_1/photo.jpg.txt?expires=${exp}&sig=${good}`,
      `/media/co_1/photo.jpg?expires=${exp}&sig=${good}&sig=${good}`,
      `/media/co_1/photo.jpg?expires=1e12&sig=${good}`,
      `/media/co_1/photo.jpg?expires=-1&sig=${good}`,
      `/media/co_1/photo.jpg?expires=${exp}&sig=${good.slice(0, 10)}`,
      `/media/co_1/photo.jpg?expires=${exp}&sig=${'A'.repeat(5000)}`,
      `/media/co_1/photo.jpg?expires=${'9'.repeat(400)}&sig=${good}`,
      `/media/co_1/photo.jpg?expires=${exp}&sig=${good}%00`,
    ];
    for (const url of cases) {
      const res = await ctx.app.inject({ url });
      expect(res.statusCode, `${url} → ${res.statusCode}`).toBe(403);
      expect(res.body).not.toContain(SECRET_TEXT);
      expect(res.body).not.toContain(PHOTO);
    }
  });
});

describe('header injection and oversized headers', () => {
  it('CR/LF or junk in X-Request-Id is never echoed: a fresh id is used and no header is injected', async () => {
    for (const bad of ['abc%0d%0aSet-Cookie:%20a=b', 'abc\u2028x', 'a'.repeat(65), 'id with spaces', '<script>', '../../x']) {
      const res = await ctx.app.inject({ url: '/healthz', headers: { 'x-request-id': bad } });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    // a raw CR LF splits the request header itself: the server sees two headers, answers once, sets no cookie
    const res = await raw('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: abc\r\nSet-Cookie: injected=1\r\nConnection: close\r\n\r\n');
    expect(statusOf(res)).toBe(200);
    expect(res.toLowerCase()).not.toContain('injected=1');
    // a bare CR inside a header value is refused by Node's parser (400), not passed on
    const cr = await raw('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: abc\rSet-Cookie: injected=1\r\nConnection: close\r\n\r\n');
    expect([200, 400]).toContain(statusOf(cr));
    expect(cr.toLowerCase()).not.toContain('set-cookie: injected');
    // CR/LF in the API key header: 401 with the usual body, nothing echoed
    const key = await raw(`GET ${BASE}/catalog/categories HTTP/1.1\r\nHost: x\r\nX-Api-Key: cok_x%0d%0aSet-Cookie:a\r\nConnection: close\r\n\r\n`);
    expect(statusOf(key)).toBe(401);
  });

  it('headers over Node’s limit get 431 in the error shape and the server keeps serving', async () => {
    const big = 'x'.repeat(20_000);
    const res = await raw(`GET ${BASE}/catalog/categories HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${big}\r\nConnection: close\r\n\r\n`);
    expectRefusal(res, 431);
    expect(res).not.toContain('xxxxxxxxxx');
    const many = Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`).join('\r\n');
    expectRefusal(await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\n${many}\r\nConnection: close\r\n\r\n`), 431);
    const after = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(after.status).toBe(200);
  });
});

/** Status, headers (lower-case names) and parsed JSON body of a raw HTTP/1.1 answer. */
function parseAnswer(response: string) {
  const split = response.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = response.slice(0, split).split('\r\n');
  const head: Record<string, string> = {};
  for (const line of lines) head[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
  let body: unknown;
  try {
    body = JSON.parse(response.slice(split + 4));
  } catch {
    body = response.slice(split + 4);
  }
  return { statusLine, head, body };
}

/** A refusal in the API's shape: the status, JSON, `{ error: { code: validation_failed, message } }` and nothing of Fastify's own body. */
function expectRefusal(response: string, status: number, opts: { closes?: boolean } = {}) {
  const { statusLine, head, body } = parseAnswer(response);
  expect(statusLine, response.slice(0, 400)).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expect(head['content-type']).toMatch(/^application\/json/);
  expect(body, response.slice(0, 400)).toMatchObject({ error: { code: 'validation_failed', message: expect.any(String) } });
  expect(Object.keys(body as object)).toEqual(['error']);
  expect(Object.keys((body as { error: object }).error).every((k) => ['code', 'message', 'details'].includes(k))).toBe(true);
  expect(response).not.toContain('statusCode');
  expect(response).not.toContain('Client Error');
  if (opts.closes !== false) expect(head.connection?.toLowerCase()).toBe('close');
}

describe('every refusal before routing is in the error shape', () => {
  const MARK = 'ECHOMARK';
  const orders = (headerLines: string, body = '') =>
    `POST ${BASE}/orders?ref=${MARK} HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${headers['x-api-key']}\r\nContent-Type: application/json\r\n${headerLines}\r\n${body}`;

  it('malformed framing from Node’s parser: 400 validation_failed, JSON, Connection: close, request line not echoed', async () => {
    const cases: Record<string, string> = {
      'non-numeric Content-Length': orders('Content-Length: abc\r\n', '{}'),
      'negative Content-Length': orders('Content-Length: -1\r\n', '{}'),
      'two different Content-Lengths': orders('Content-Length: 2\r\nContent-Length: 3\r\n', '{}'),
      'Content-Length then Transfer-Encoding': orders('Content-Length: 5\r\nTransfer-Encoding: chunked\r\n', '0\r\n\r\n'),
      'Transfer-Encoding then Content-Length': orders('Transfer-Encoding: chunked\r\nContent-Length: 5\r\n', '0\r\n\r\n'),
      'Transfer-Encoding not ending in chunked': orders('Transfer-Encoding: gzip\r\n', '{}'),
      'bad chunk size': orders('Transfer-Encoding: chunked\r\n', 'zz\r\n{}\r\n0\r\n\r\n'),
      'space in a header name': `GET /healthz?${MARK} HTTP/1.1\r\nHost: x\r\nBad Header: v\r\n\r\n`,
      'unknown method': `FROB /healthz?${MARK} HTTP/1.1\r\nHost: x\r\n\r\n`,
      'unknown HTTP version': `GET /healthz?${MARK} HTTP/7.3\r\nHost: x\r\n\r\n`,
    };
    for (const [name, request] of Object.entries(cases)) {
      const res = await raw(request);
      expect(statusOf(res), `${name}: ${res.slice(0, 300)}`).toBe(400);
      expectRefusal(res, 400);
      expect(res, name).not.toContain(MARK);
      expect(res, name).not.toContain(headers['x-api-key']);
    }
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it('a Content-Length fault names the header in details', async () => {
    const { body } = parseAnswer(await raw(orders('Content-Length: 1x\r\n', '{}')));
    expect((body as ErrorBody).error.details).toEqual([{ path: '(headers).content-length', message: expect.any(String) }]);
  });

  it('a too-long URL: 414 validation_failed, never echoed, whether Node’s parser or the app sees it first', async () => {
    const long = (n: number) => `/${MARK}${'a'.repeat(n)}`;
    for (const [what, request] of [
      ['over 16 KB (refused by the parser)', `GET ${long(20_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`],
      ['over 8 KB to an unknown path', `GET ${long(10_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`],
      [
        'over 8 KB in a real route’s query',
        `GET ${BASE}/catalog/products?search=${MARK}${'a'.repeat(10_000)} HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${headers['x-api-key']}\r\nConnection: close\r\n\r\n`,
      ],
      [
        'a path segment over the router’s 1,000 characters',
        `GET ${BASE}/catalog/products/${MARK}${'a'.repeat(1_200)} HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${headers['x-api-key']}\r\nConnection: close\r\n\r\n`,
      ],
    ] as const) {
      const res = await raw(request);
      expect(statusOf(res), `${what}: ${res.slice(0, 300)}`).toBe(414);
      expectRefusal(res, 414);
      expect(res, what).not.toContain(MARK);
      expect(res.length, what).toBeLessThan(2_000);
    }
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it('a 404 for a long path and a malformed %-escape do not echo the URL', async () => {
    const notFound = await raw(`GET /${MARK}${'a'.repeat(7_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(statusOf(notFound)).toBe(404);
    expect(notFound).not.toContain(MARK);
    expect((parseAnswer(notFound).body as ErrorBody).error.code).toBe('not_found');
    const badEscape = await raw(`GET ${BASE}/orders/%zz${MARK} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expectRefusal(badEscape, 400);
    expect(badEscape).not.toContain(MARK);
  });

  it('HTTP/1.1 without Host: 400 in the error shape (Node’s own answer has an empty body)', async () => {
    const res = await raw(`GET /healthz?${MARK} HTTP/1.1\r\nConnection: close\r\n\r\n`);
    expectRefusal(res, 400);
    expect(res).not.toContain(MARK);
    // HTTP/1.0 has no Host requirement
    expect(statusOf(await raw('GET /healthz HTTP/1.0\r\n\r\n'))).toBe(200);
  });
});

describe('oversized bodies', () => {
  it('POST /orders over 32 KB and /mcp over 64 KB: 413 validation_failed; 5 MB: refused without buffering it all; server fine', async () => {
    const order = (n: number) => JSON.stringify({ customer: { name: 'A', phone: '9876543210' }, items: [], external_reference: 'x', notes: 'x'.repeat(n) });
    for (const [url, size] of [
      [`${BASE}/orders`, 33 * 1024],
      [`${BASE}/mcp`, 65 * 1024],
      [`${BASE}/orders`, 5 * 1024 * 1024],
    ] as const) {
      const res = await fetch(`http://127.0.0.1:${port}${url}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: order(size),
      }).catch((err: Error) => ({ status: 0, err }));
      // Fastify may answer 413 and close before the client finished sending 5 MB (then fetch sees a reset)
      if (res.status !== 0) {
        expect(res.status, url).toBe(413);
        expect((await (res as Response).json()).error.code).toBe('validation_failed');
      } else expect(size).toBeGreaterThan(1024 * 1024);
    }
    // a lying Content-Length
    const lie = await raw(
      `POST ${BASE}/orders HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${headers['x-api-key']}\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\nConnection: close\r\n\r\n{}`,
    );
    expect([400, 413]).toContain(statusOf(lie));
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });
});

describe('compressed request bodies', () => {
  const gzipped = (body: unknown) => gzipSync(JSON.stringify(body));
  const expectEncodingRefusal = (status: number, head: Record<string, unknown>, body: unknown, what: string) => {
    expect(status, what).toBe(415);
    expect(head['accept-encoding'], what).toBe('identity');
    expect(body, what).toEqual({
      error: {
        code: 'validation_failed',
        message: expect.stringContaining('Content-Encoding'),
        details: [{ path: '(headers).content-encoding', message: 'must be identity or absent' }],
      },
    });
  };

  it('a body in any content coding but identity is 415 validation_failed naming the header, on every route that takes a body', async () => {
    const co = await createCompanyWithKey(ctx.services);
    const { key } = await ctx.services.keys.create(co.company.id, 'all', ['webhooks', 'catalogue', 'ucp', 'cod', 'privacy']);
    const routes = [
      ...SPEC_ROUTES.filter((r) => r.body !== undefined).map((r) => ({ name: r.name, method: r.method, url: `${BASE}${r.url}`, body: r.body })),
      { name: 'courier callback (public)', method: 'POST' as const, url: `/couriers/${co.company.slug}/callback`, body: { awb: 'X1', status: 'delivered' } },
    ];
    for (const route of routes) {
      const send = (payload: Buffer | string, encoding?: string) =>
        ctx.app.inject({
          method: route.method,
          url: route.url,
          headers: {
            'x-api-key': key,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(encoding ? { 'content-encoding': encoding } : {}),
          },
          payload,
        });
      // a real gzip body, and a plain one that only says it is compressed: both refused before any parsing
      for (const [payload, encoding] of [
        [gzipped(route.body), 'gzip'],
        [gzipped(route.body), 'x-gzip'],
        [JSON.stringify(route.body), 'gzip'],
        [JSON.stringify(route.body), 'deflate'],
        [JSON.stringify(route.body), 'br'],
        [JSON.stringify(route.body), 'identity, gzip'],
        [JSON.stringify(route.body), 'GZIP'],
      ] as const) {
        const res = await send(payload, encoding);
        expectEncodingRefusal(res.statusCode, res.headers, res.json(), `${route.name} ${encoding}`);
      }
      // identity (or nothing) is a plain body: the route answers as it would anyway
      for (const encoding of ['identity', ' Identity ', undefined])
        expect((await send(JSON.stringify(route.body), encoding)).statusCode, route.name).not.toBe(415);
    }
    // no body, no refusal: the header alone on a GET changes nothing
    expect((await ctx.app.inject({ url: `${BASE}/catalog/categories`, headers: { 'x-api-key': key, 'content-encoding': 'gzip' } })).statusCode).toBe(200);
    // nothing refused reached a route: the only webhook endpoints are the three sent plain
    expect((await ctx.app.inject({ url: `${BASE}/webhooks`, headers: { 'x-api-key': key } })).json().data).toHaveLength(3);
  });

  it('over a real socket: a gzip body gets the same 415 in the error shape, and the server goes on serving', async () => {
    const body = gzipped({ customer: { name: 'A', phone: '9876543210' }, items: [{ product_id: 'SKU-1', quantity: 1 }], external_reference: 'gz-1' });
    const res = await raw(
      Buffer.concat([
        Buffer.from(
          `POST ${BASE}/orders HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${headers['x-api-key']}\r\nContent-Type: application/json\r\n` +
            `Content-Encoding: gzip\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
        ),
        body,
      ]),
    );
    expectRefusal(res, 415);
    const { head, body: answer } = parseAnswer(res);
    expectEncodingRefusal(415, head, answer, 'raw socket');
    const viaFetch = await fetch(`http://127.0.0.1:${port}${BASE}/orders`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body,
    });
    expectEncodingRefusal(viaFetch.status, Object.fromEntries(viaFetch.headers), await viaFetch.json(), 'fetch');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });
});
