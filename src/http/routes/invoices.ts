import type { FastifyInstance } from 'fastify';
import { AppError } from '../../contract/errors.js';
import { DOCUMENT_PATH } from '../../media/media.service.js';
import type { Services } from '../../services.js';
import type { LimitHook } from '../public-rate-limit.js';

const refused = (message = 'this invoice link is not valid') => new AppError('forbidden', message);

/** `If-None-Match` names `etag` (weak comparison, as RFC 9110 has it for this header), or is `*`. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

/**
 * GET /invoices/<company_id>/<invoice or credit note id>.pdf?expires=<unix s>&sig=<sig>: the PDF a signed link from
 * the order lookup names. Outside the API base path and unauthenticated, like photo links: the signature is the
 * permission, and it names the company, so a link never opens another company's document. The PDF is drawn once and
 * its bytes kept (fulfilment/invoice-files.service.ts); the answer carries their ETag, and a browser revalidates every
 * time (`no-cache`: a payment recorded since changes the PDF), which is a 304 without the bytes while it is unchanged.
 */
export function registerInvoiceRoutes(app: FastifyInstance, { media, fulfilment }: Pick<Services, 'media' | 'fulfilment'>, limit: LimitHook): void {
  app.get('/invoices/*', { onRequest: limit }, async (req, reply) => {
    const path = (req.params as { '*': string })['*'];
    const query = req.query as Record<string, unknown>;
    const match = DOCUMENT_PATH.exec(path);
    if (!match) throw refused();
    const expires = typeof query.expires === 'string' && /^\d{1,12}$/.test(query.expires) ? Number(query.expires) : NaN;
    const sig = typeof query.sig === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(query.sig) ? query.sig : undefined;
    if (!Number.isFinite(expires) || !sig) throw refused('this invoice link is not valid: it needs expires and sig');
    const verdict = await media.checkDocument(path, expires, sig);
    if (verdict === 'bad_signature') throw refused();
    if (verdict === 'expired') throw refused('this invoice link has expired; look the order up again for a fresh one');

    const file = await fulfilment.documentPdf(match[1], match[2]);
    if (!file) throw new AppError('not_found', 'no such invoice');
    reply.header('etag', file.etag).header('cache-control', 'private, no-cache');
    if (matchesEtag(req.headers['if-none-match'], file.etag)) return reply.status(304).send();
    return reply
      .header('content-type', 'application/pdf')
      .header('content-disposition', `inline; filename="${file.filename}"`)
      .header('x-content-type-options', 'nosniff')
      .send(file.pdf);
  });
}
