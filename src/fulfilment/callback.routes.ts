import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { mapShiprocketStatus, SHIPMENT_STATUSES, type ShipmentStatus } from '../couriers/index.js';
import { AppError, validationError } from '../lib/errors.js';
import { Decimal } from '../lib/money.js';
import type { FulfilmentService } from './lifecycle.service.js';

export const SIGNATURE_HEADER = 'x-courier-signature';
const CALLBACK_BODY_LIMIT = 64 * 1024;

/** HMAC-SHA256 of the raw body with the company's callback secret, hex. */
export const signCallback = (secret: string, rawBody: Buffer | string) => createHmac('sha256', secret).update(rawBody).digest('hex');

function signatureMatches(secret: string, raw: Buffer, header: string): boolean {
  const given = Buffer.from(header.trim().replace(/^sha256=/i, ''), 'hex');
  const expected = Buffer.from(signCallback(secret, raw), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const callbackBody = z.object({
  awb: z.string().trim().min(1).max(64).optional(),
  order_reference: z.string().trim().min(1).max(100).optional(),
  // our status names, or the courier's own words ("OUT FOR DELIVERY") under either key
  status: z.string().trim().min(1).max(60).optional(),
  current_status: z.string().trim().min(1).max(60).optional(),
  cod_collected: z.union([z.boolean(), z.string().regex(/^\d{1,12}(\.\d{1,2})?$/, 'must be true/false or an amount such as "499.00"')]).optional(),
  note: z.string().max(500).optional(),
});

const unauthorized = (message: string) => new AppError('unauthorized', message);

/**
 * POST /couriers/{company}/callback: tracking updates from a courier, outside the API base path and without
 * an API key. The body must be signed: X-Courier-Signature = hex HMAC-SHA256 of the raw body with the
 * company's callback secret (`courier configure` shows it). The body is kept raw (a buffer parser in this
 * scope only) and is parsed only after the signature checks out.
 */
export function registerCourierCallbackRoutes(app: FastifyInstance, { fulfilment }: { fulfilment: FulfilmentService }): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: CALLBACK_BODY_LIMIT }, (_req, body, done) => done(null, body));

    scope.post<{ Params: { company: string } }>('/couriers/:company/callback', { bodyLimit: CALLBACK_BODY_LIMIT }, async (req) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const header = req.headers[SIGNATURE_HEADER];
      if (typeof header !== 'string' || header.trim() === '') throw unauthorized(`missing ${SIGNATURE_HEADER} header (hex HMAC-SHA256 of the body)`);
      const company = req.params.company.slice(0, 100);
      const found = await fulfilment.callbackSecret(company);
      // An unknown company and a wrong signature answer alike: the route does not reveal which companies exist.
      if (!found || !signatureMatches(found.secret, raw, header)) throw unauthorized('signature does not match the body');

      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        throw validationError([{ path: '(body)', message: 'not valid JSON' }], 'request body is not valid JSON');
      }
      const parsed = callbackBody.safeParse(json);
      if (!parsed.success) throw validationError(parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message })));
      const b = parsed.data;
      if (!b.awb && !b.order_reference) throw validationError([{ path: 'awb', message: 'send awb or order_reference' }]);
      const text = b.status ?? b.current_status;
      if (!text) throw validationError([{ path: 'status', message: 'required' }]);
      const status: ShipmentStatus | null = (SHIPMENT_STATUSES as readonly string[]).includes(text) ? (text as ShipmentStatus) : mapShiprocketStatus(text);
      if (!status) throw validationError([{ path: 'status', message: `unknown status "${text}"; use one of ${SHIPMENT_STATUSES.join(', ')}` }]);
      const cod = b.cod_collected === undefined || b.cod_collected === false ? undefined : b.cod_collected === true ? true : new Decimal(b.cod_collected);
      const view = await fulfilment.track(found.companyId, { awb: b.awb, reference: b.awb ? undefined : b.order_reference }, status, {
        source: 'callback',
        codCollected: cod,
        note: b.note ?? (b.current_status && b.current_status !== status ? b.current_status : null),
      });
      return { data: { order_number: view.order_number, order_status: view.order_status, shipment: view.shipment } };
    });
  });
}
