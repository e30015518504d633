import type { FastifyInstance } from 'fastify';
import { AppError } from '../../contract/errors.js';
import type { Services } from '../../services.js';
import type { LimitHook } from '../public-rate-limit.js';

const COMPANY = /^[A-Za-z0-9_]{1,64}$/;
const FILE = /^(mfd_[A-Za-z0-9_-]{32})\.csv$/;

/**
 * GET /feeds/meta/<company id>/<secret>.csv: the company's Meta (WhatsApp) catalogue feed, for Meta's scheduled fetch.
 * Outside the API base path and without a key: the secret in the URL is the permission (rotated with the admin CLI).
 * An unknown company, a wrong or rotated secret and a feed that is off are the same 404. Never cached: availability is live.
 */
export function registerFeedRoutes(app: FastifyInstance, { media, feeds }: Pick<Services, 'media' | 'feeds'>, limit: LimitHook): void {
  app.get('/feeds/meta/:company/:file', { onRequest: limit }, async (req, reply) => {
    const { company, file } = req.params as { company: string; file: string };
    const token = FILE.exec(file)?.[1];
    const csv = COMPANY.test(company) && token ? await feeds.served(company, token, media.origin(req)) : undefined;
    if (csv === undefined) throw new AppError('not_found', 'no such feed');
    return reply.header('content-type', 'text/csv; charset=utf-8').header('cache-control', 'no-store').send(csv);
  });
}
