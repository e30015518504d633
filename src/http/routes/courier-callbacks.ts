import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { courierStatus, SHIPMENT_STATUSES, type ShipmentStatus } from '../../couriers/index.js';
import { memoryFailureCounter, redisFailureCounter } from '../auth.js';
import { AppError, validationError } from '../../contract/errors.js';
import { issuesToDetails } from '../../contract/validation.js';
import { Decimal } from '../../lib/money.js';
import { courierCallbackBody } from '../../contract/courier-callbacks.js';
import { parseSignatureHeader, SIGNATURE_HEADER, signatureMatches } from '../../couriers/callback-signature.js';
import type { FulfilmentService } from '../../fulfilment/fulfilment.service.js';

const CALLBACK_BODY_LIMIT = 64 * 1024;

const FORMAT = `${SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`;
const unauthorized = (message: string) => new AppError('unauthorized', message);
const retryAfter = (ms: number) => String(Math.max(1, Math.ceil(ms / 1000)));

export interface CallbackDeps {
  fulfilment: FulfilmentService;
  config: Pick<Config, 'COURIER_CALLBACK_TOLERANCE_S' | 'COURIER_CALLBACK_RATE_LIMIT' | 'AUTH_FAILURE_LIMIT' | 'RATE_LIMIT_WINDOW_MS'>;
  redis?: Redis;
  /** Unix seconds now; tests pass their own. */
  now?: () => number;
}

/**
 * POST /couriers/{company}/callback: tracking updates from a courier, outside the API base path and without
 * an API key. The body must be signed (FORMAT above) with the company's callback secret (`courier configure`
 * shows it), the timestamp within COURIER_CALLBACK_TOLERANCE_S of our clock. The body is kept raw (a buffer
 * parser in this scope only) and parsed only after the signature checks out.
 *
 * Throttling: failed signatures count per address and company (the failed-authentication counter, shared in
 * Redis when configured); past AUTH_FAILURE_LIMIT in a window they answer 429 with Retry-After. A valid
 * signature is always served, so a noisy neighbour behind the same address cannot lock a courier out; valid
 * callbacks have their own budget per company (COURIER_CALLBACK_RATE_LIMIT per window).
 *
 * Answers: 200 with `result` applied | repeated (nothing changed) | not_applied (behind the current status,
 * kept as history); 202 with `held: true` when a delivery cannot be applied without staff (cancelled order).
 */
export function registerCourierCallbackRoutes(app: FastifyInstance, deps: CallbackDeps): void {
  const { fulfilment, config, redis } = deps;
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  const failures = redis ? redisFailureCounter(redis, config.RATE_LIMIT_WINDOW_MS) : memoryFailureCounter(config.RATE_LIMIT_WINDOW_MS);
  // (address, company) pairs known to be past the failure limit, until their window ends: a malformed or stale
  // header from them is answered 429 without any I/O.
  const blocked = new Map<string, number>();
  const companyOf = new WeakMap<FastifyRequest, string>();

  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: CALLBACK_BODY_LIMIT }, (_req, body, done) => done(null, body));
    await scope.register(rateLimit, {
      global: false,
      ...(redis ? { redis, nameSpace: 'commerce:rl:courier:' } : {}),
      skipOnError: true, // Redis away: serve without limits, like the API (docs/decisions.md)
    });
    const perCompany = scope.createRateLimit({
      max: config.COURIER_CALLBACK_RATE_LIMIT,
      timeWindow: config.RATE_LIMIT_WINDOW_MS,
      keyGenerator: (req) => companyOf.get(req) ?? '',
    });

    scope.post<{ Params: { company: string } }>('/couriers/:company/callback', { bodyLimit: CALLBACK_BODY_LIMIT }, async (req, reply) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const company = req.params.company.slice(0, 100);
      const failKey = `courier:${company}:${req.ip}`;

      /** A failed signature: counted; past the limit 429 with Retry-After, else 401. */
      const refuse = async (message: string, cheap: boolean): Promise<never> => {
        const until = blocked.get(failKey);
        if (cheap && until !== undefined && until > Date.now()) throw tooMany(until - Date.now());
        const { count, resetMs } = await failures.hit(failKey);
        if (count > config.AUTH_FAILURE_LIMIT) {
          if (blocked.size > 100_000) blocked.clear(); // bounded memory under a flood of addresses
          blocked.set(failKey, Date.now() + resetMs);
          throw tooMany(resetMs);
        }
        throw unauthorized(message);
      };

      const header = req.headers[SIGNATURE_HEADER];
      if (typeof header !== 'string' || header.trim() === '') return refuse(`missing ${FORMAT}`, true);
      const sig = parseSignatureHeader(header);
      if (typeof sig === 'string') return refuse(`malformed ${SIGNATURE_HEADER} (${sig}); expected ${FORMAT}`, true);
      const skew = Math.abs(now() - sig.t);
      if (skew > config.COURIER_CALLBACK_TOLERANCE_S) {
        return refuse(
          `signature timestamp is ${skew} s from the server's clock (tolerance ${config.COURIER_CALLBACK_TOLERANCE_S} s); sign each delivery when it is sent`,
          true,
        );
      }
      const found = await fulfilment.callbackSecret(company);
      // An unknown company and a wrong signature answer alike: the route does not reveal which companies exist.
      if (!found || !signatureMatches(found.secret, raw, sig)) return refuse('signature does not match the body', false);

      companyOf.set(req, found.companyId);
      const limit = await perCompany(req);
      // isAllowed is true only for an allow list; the budget is spent when isExceeded
      if (!limit.isAllowed && limit.isExceeded) {
        throw new AppError(
          'rate_limited',
          `more than ${limit.max} courier updates per ${config.RATE_LIMIT_WINDOW_MS / 1000} s for this company; retry after ${limit.ttlInSeconds} s`,
          undefined,
          {
            'retry-after': String(Math.max(1, limit.ttlInSeconds)),
          },
        );
      }

      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        throw validationError([{ path: '(body)', message: 'not valid JSON' }], 'request body is not valid JSON');
      }
      const parsed = courierCallbackBody.safeParse(json);
      if (!parsed.success) throw validationError(issuesToDetails(parsed.error.issues, '(body)'));
      const b = parsed.data;
      if (!b.awb && !b.order_reference) throw validationError([{ path: 'awb', message: 'send awb or order_reference' }]);
      const text = b.status ?? b.current_status;
      if (!text) throw validationError([{ path: 'status', message: 'required' }]);
      const status: ShipmentStatus | null = (SHIPMENT_STATUSES as readonly string[]).includes(text)
        ? (text as ShipmentStatus)
        : courierStatus(found.adapter, text);
      if (!status) throw validationError([{ path: 'status', message: `unknown status "${text}"; use one of ${SHIPMENT_STATUSES.join(', ')}` }]);
      // false, "0" and "0.00" state no cash; a stated amount is what was collected at this delivery
      const amount = typeof b.cod_collected === 'string' ? new Decimal(b.cod_collected) : undefined;
      const cod = b.cod_collected === true ? true : amount && amount.gt(0) ? amount : undefined;
      const view = await fulfilment.track(found.companyId, { awb: b.awb, reference: b.awb ? undefined : b.order_reference }, status, {
        source: 'callback',
        codCollected: cod,
        note: b.note ?? (b.current_status && b.current_status !== status ? b.current_status : null),
      });
      const held = view.update.result === 'held';
      reply.status(held ? 202 : 200);
      return {
        data: {
          result: view.update.result,
          held,
          message: view.update.message,
          order_number: view.order_number,
          order_status: view.order_status,
          shipment: view.shipment,
        },
      };
    });
  });
}

const tooMany = (ms: number) =>
  new AppError('rate_limited', `too many failed courier signatures from this address for this company; retry after ${retryAfter(ms)} s`, undefined, {
    'retry-after': retryAfter(ms),
  });
