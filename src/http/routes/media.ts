import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../contract/errors.js';
import type { Services } from '../../services.js';
import type { LimitHook } from '../public-rate-limit.js';

const CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.avif': 'image/avif',
};

const forbidden = (message: string) => new AppError('forbidden', message);
const missing = () => new AppError('not_found', 'no such photo');

/** A relative path of plain segments: no "..", ".", empty segment, backslash, NUL or absolute form. */
export function isSafeMediaPath(path: string): boolean {
  if (!path || path.length > 512 || path.startsWith('/') || /[\\\0]/.test(path) || /^[A-Za-z]:/.test(path)) return false;
  return path.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

/**
 * GET /media/<path>?expires=<unix s>&sig=<sig>: photos from MEDIA_DIR for signed links. Outside the
 * API base path and unauthenticated: the signature is the permission.
 */
export function registerMediaRoutes(app: FastifyInstance, { media }: Pick<Services, 'media'>, limit: LimitHook): void {
  const root = resolve(media.mediaDir);

  app.get('/media/*', { onRequest: limit }, async (req, reply) => {
    const path = (req.params as { '*': string })['*'];
    const query = req.query as Record<string, unknown>;
    if (!isSafeMediaPath(path)) throw forbidden('this photo link is not valid');
    const expires = typeof query.expires === 'string' && /^\d{1,12}$/.test(query.expires) ? Number(query.expires) : NaN;
    const sig = typeof query.sig === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(query.sig) ? query.sig : undefined;
    if (!Number.isFinite(expires) || !sig) throw forbidden('this photo link is not valid: it needs expires and sig');
    const verdict = await media.check(path, expires, sig);
    if (verdict === 'bad_signature') throw forbidden('this photo link is not valid');
    if (verdict === 'expired') throw forbidden('this photo link has expired; ask the API for a fresh one');

    const file = resolve(root, path);
    if (!file.startsWith(root + sep)) throw forbidden('this photo link is not valid');
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) throw missing();
    const remaining = Math.max(0, expires - Math.floor(Date.now() / 1000));
    return (
      reply
        .header('content-type', CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream')
        .header('content-length', info.size)
        .header('cache-control', `private, max-age=${remaining}`)
        .header('x-content-type-options', 'nosniff')
        // An uploaded SVG must not run script in our origin.
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
        .send(createReadStream(file))
    );
  });
}
