import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, errorBody, inputRefusedByDatabase, validationError } from '../contract/errors.js';
import { fieldPath } from '../contract/validation.js';
import { scrubText } from '../lib/log-privacy.js';

const CONTEXT_ROOT: Record<string, string> = { body: '(body)', querystring: '(query)', params: '(path)', headers: '(headers)' };

/** Turns anything thrown by a route, a hook or Fastify itself into the spec's error shape. */
export function toAppError(err: FastifyError | AppError | Error, bodyLimit?: number): AppError {
  if (err instanceof AppError) return err;
  if (hasZodFastifySchemaValidationErrors(err)) {
    const root = CONTEXT_ROOT[(err as FastifyError).validationContext ?? 'body'] ?? '(body)';
    const details = err.validation.map((v) => ({
      path: fieldPath(v.instancePath.split('/').filter(Boolean)) || root,
      message: v.message ?? 'invalid',
    }));
    return validationError(details);
  }
  const code = (err as FastifyError).code;
  switch (code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return validationError(
        [{ path: '(body)', message: 'not valid JSON; check quotes, commas and brackets' }],
        'request body is not valid JSON; check quotes, commas and brackets',
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return validationError([{ path: '(body)', message: 'body is empty; send a JSON object' }], 'request body is empty');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(
        'payload_too_large',
        `request body is larger than the ${bodyLimit ? `${Math.floor(bodyLimit / 1024)} KB` : 'allowed'} limit; send fewer items or shorter notes`,
        [{ path: '(body)', message: 'too large' }],
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'request body must be JSON: send Content-Type: application/json', [
        { path: '(headers).content-type', message: 'must be application/json' },
      ]);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return validationError([{ path: '(headers).content-length', message: 'does not match the body' }]);
  }
  const refused = inputRefusedByDatabase(err);
  if (refused) return refused;
  const status = (err as FastifyError).statusCode;
  if (status === 429) return new AppError('rate_limited', err.message);
  if (status && status >= 400 && status < 500) return validationError([{ path: '(request)', message: err.message }], err.message);
  return new AppError('internal', 'internal error; it is safe to retry (for orders, with the same external_reference)');
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(err, req.routeOptions?.bodyLimit);
    if (appError.kind === 'internal') req.log.error({ err }, 'request failed');
    // A refusal's message may repeat input (an id, a name): phones and e-mails in it are masked in the log line.
    else if (appError.kind !== 'validation_failed') req.log.info({ code: appError.kind }, scrubText(appError.message));
    if (appError.headers) reply.headers(appError.headers);
    return reply.status(appError.status).send(appError.toBody());
  });

  app.setNotFoundHandler((req, reply) => {
    // The path is named only when short: a long one is not echoed back.
    const path = req.url.split('?')[0];
    const named = path.length <= 100 ? `${req.method} ${path}` : `${req.method} for this ${path.length}-character path`;
    reply.status(404).send(errorBody('not_found', `no route ${named}; check the method and the path (the endpoints are listed at <base path>/docs)`));
  });
}
