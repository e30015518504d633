import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { guardedLookup, isForbiddenAddress, type DestinationPolicy } from '../../lib/destination.js';

/** How photos named by URL are fetched (docs/catalogue-import.md). */
export interface PhotoFetchPolicy extends DestinationPolicy {
  timeoutMs: number;
  maxBytes: number;
  concurrency: number;
}

export const DEFAULT_PHOTO_FETCH: PhotoFetchPolicy = {
  allowHttp: false,
  allowPrivate: false,
  timeoutMs: 15_000,
  maxBytes: 10 * 1024 * 1024,
  concurrency: 4,
};

const TYPES: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/jpg': '.jpg',
  'image/webp': '.webp',
  'image/gif': '.gif',
  'image/avif': '.avif',
  'image/svg+xml': '.svg',
};
const MAX_REDIRECTS = 3;

export const isPhotoUrl = (name: string) => /^https?:\/\//i.test(name);

/** A fetched photo (a file in `dir`, named by its content) or why it could not be. */
export type Fetched = { path: string } | { problem: string };

/**
 * Fetches each URL once into `dir` with bounded concurrency: https only (unless the policy allows http), never a
 * loopback, private, link-local or metadata address after DNS resolution (checked when each connection is made,
 * as for webhooks, so redirects are checked too), at most 3 redirects, an image type, at most `maxBytes`, within
 * `timeoutMs`. Progress is reported after each photo.
 */
export async function fetchPhotos(
  urls: Iterable<string>,
  dir: string,
  policy: PhotoFetchPolicy,
  onProgress?: (done: number, total: number, failed: number) => void,
): Promise<Map<string, Fetched>> {
  const todo = [...new Set(urls)];
  const results = new Map<string, Fetched>();
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < todo.length) {
      const url = todo[next++];
      const result = await fetchOne(url, dir, policy).catch((err: Error): Fetched => ({ problem: err.message }));
      if ('problem' in result) failed++;
      results.set(url, result);
      onProgress?.(results.size, todo.length, failed);
    }
  };
  await Promise.all(Array.from({ length: Math.min(policy.concurrency, todo.length) }, worker));
  return results;
}

async function fetchOne(raw: string, dir: string, policy: PhotoFetchPolicy): Promise<Fetched> {
  let url = raw;
  const deadline = Date.now() + policy.timeoutMs;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const res = await get(url, policy, deadline);
    if ('problem' in res) return res;
    const { status, location, type, body } = res;
    if (status >= 300 && status < 400 && location) {
      url = new URL(location, url).toString();
      continue;
    }
    if (status !== 200) return { problem: `could not fetch ${raw}: HTTP ${status}` };
    const ext = TYPES[type];
    if (!ext) return { problem: `${raw} is not an image (content-type ${type || 'none'}; png, jpeg, webp, gif, avif or svg)` };
    const path = join(dir, `${createHash('sha256').update(body!).digest('hex').slice(0, 24)}${ext}`);
    writeFileSync(path, body!);
    return { path };
  }
  return { problem: `${raw} redirects more than ${MAX_REDIRECTS} times` };
}

interface Got {
  status: number;
  location?: string;
  type: string;
  body?: Buffer;
}

function get(raw: string, policy: PhotoFetchPolicy, deadline: number): Promise<Got | { problem: string }> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return resolve({ problem: `${raw} is not a URL` });
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) return resolve({ problem: `${raw}: only https:// photos are fetched` });
    if (url.username || url.password) return resolve({ problem: `${raw}: must not carry a user name or password` });
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!policy.allowPrivate && isIP(host) && isForbiddenAddress(host))
      return resolve({ problem: `${raw}: refused, a loopback, private, link-local or metadata address` });
    let settled = false;
    const done = (r: Got | { problem: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      { method: 'GET', headers: { accept: 'image/*', 'user-agent': 'commerce-api-import/1' }, lookup: guardedLookup(policy) },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        const type = String(res.headers['content-type'] ?? '')
          .split(';')[0]
          .trim()
          .toLowerCase();
        if (status !== 200) {
          res.resume();
          return done({ status, location: res.headers.location, type });
        }
        if (Number(res.headers['content-length'] ?? 0) > policy.maxBytes) {
          req.destroy();
          return done({ problem: `${raw} is larger than ${policy.maxBytes / 1024 / 1024} MB` });
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > policy.maxBytes) {
            req.destroy();
            done({ problem: `${raw} is larger than ${policy.maxBytes / 1024 / 1024} MB` });
          } else chunks.push(chunk);
        });
        res.on('end', () => done({ status, type, body: Buffer.concat(chunks) }));
        res.on('error', (err) => done({ problem: `could not fetch ${raw}: ${err.message}` }));
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${policy.timeoutMs} ms`)), Math.max(1, deadline - Date.now()));
    req.on('error', (err: NodeJS.ErrnoException) =>
      done({
        problem:
          err.code === 'EFORBIDDENADDR'
            ? `${raw}: refused, ${url.hostname} resolves to a loopback, private, link-local or metadata address`
            : `could not fetch ${raw}: ${err.message}`,
      }),
    );
    req.end();
  });
}
