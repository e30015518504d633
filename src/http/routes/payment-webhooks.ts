import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { AppError } from '../../contract/errors.js';
import type { PaymentService } from '../../payments/payments.service.js';
import { RAZORPAY_EVENT_ID_HEADER, RAZORPAY_SIGNATURE_HEADER } from '../../payments/webhook.js';
import type { LimitHook } from '../public-rate-limit.js';

const WEBHOOK_BODY_LIMIT = 64 * 1024;

const companyOf = (req: FastifyRequest) => ((req.params as { company?: string }).company ?? '').slice(0, 100);
const header = (req: FastifyRequest, name: string) => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
};

export interface PaymentWebhookDeps {
  payments: PaymentService;
  config: Pick<Config, 'BASE_PATH' | 'PAYMENT_WEBHOOK_RATE_LIMIT' | 'RATE_LIMIT_WINDOW_MS'>;
  redis?: Redis;
}

/**
 * POST {BASE_PATH}/payments/razorpay/webhook/{company}: Razorpay's webhook deliveries for the company (slug or id),
 * without an API key. The body is kept raw (a buffer parser in this scope only): the service checks X-Razorpay-Signature
 * over those bytes before anything parses them. Answers 200 once the event is recorded (and acted on when a handler is
 * registered), 401 alike for a wrong signature and a company that takes no Razorpay payments, 500 when acting failed
 * (Razorpay delivers it again). Deliveries per client address and company are limited (PAYMENT_WEBHOOK_RATE_LIMIT per
 * window), before the body is read.
 */
export function registerPaymentWebhookRoutes(app: FastifyInstance, { payments, config, redis }: PaymentWebhookDeps): void {
  app.register(
    async function paymentWebhooks(scope) {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) => done(null, body));
      const window = config.RATE_LIMIT_WINDOW_MS;
      await scope.register(rateLimit, {
        global: false,
        timeWindow: window,
        ...(redis ? { redis, nameSpace: 'commerce:rl:payments:' } : {}),
        skipOnError: true, // Redis away: serve without limits, like the API (docs/decisions.md)
        errorResponseBuilder: (_req, ctx) =>
          new AppError(
            'rate_limited',
            `more than ${ctx.max} payment webhooks per ${window / 1000} s for this company from this address; retry after ${Math.max(1, Math.ceil(ctx.ttl / 1000))} s`,
          ),
      });
      const limit = scope.rateLimit({
        max: config.PAYMENT_WEBHOOK_RATE_LIMIT,
        keyGenerator: (req) => `${normalizeIP(req.ip)}:${companyOf(req)}`,
      }) as unknown as LimitHook;

      scope.post<{ Params: { company: string } }>(
        '/payments/razorpay/webhook/:company',
        // Not part of the API's document: no key, and Razorpay is its only caller.
        { onRequest: limit, bodyLimit: WEBHOOK_BODY_LIMIT, schema: { hide: true } },
        async (req) => {
          const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
          const receipt = await payments.receiveWebhook(companyOf(req), raw, {
            signature: header(req, RAZORPAY_SIGNATURE_HEADER),
            eventId: header(req, RAZORPAY_EVENT_ID_HEADER),
          });
          req.log.info({ event_id: receipt.eventId, event_type: receipt.type, status: receipt.status, repeated: receipt.repeated }, 'payment event');
          return { data: { event_id: receipt.eventId, status: receipt.status, repeated: receipt.repeated } };
        },
      );
    },
    { prefix: config.BASE_PATH },
  );
}
