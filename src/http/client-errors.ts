import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody, type FieldIssue } from '../contract/errors.js';

/**
 * Refusals that happen before a route runs, in the API's error shape `{ error: { code, message } }`:
 *  - Node's HTTP parser (`clientError`): bad framing, oversized request head, slow request;
 *  - Fastify's router (`frameworkErrors`): malformed %-escapes, an over-long path segment;
 *  - a root `onRequest` hook: a request target over MAX_REQUEST_TARGET, HTTP/1.1 without Host;
 *  - a root `preParsing` hook: a body in a content coding other than identity (gzip, deflate, br…).
 * Every 4xx here is `validation_failed` (like 405/413/415 in the spec). None of them echoes the URL,
 * the request line or any header: the message names the rule that was broken.
 */

/** Longest request target (path + query) served; longer answers 414. Our longest real URLs are a few hundred bytes. */
export const MAX_REQUEST_TARGET = 8 * 1024;
/** Fastify router's maxParamLength (set in app.ts); one path segment over it answers 414. */
const MAX_PARAM_LENGTH = 1000;

/** What Node passes to `clientError` (llhttp errors carry `code`, `bytesParsed` and the packet parsed). */
type ParserError = Error & { code?: string; rawPacket?: unknown };

interface ParserRefusal {
  status: number;
  message: string;
  details?: FieldIssue[];
}

const head = (message: string): FieldIssue[] => [{ path: '(headers)', message }];
const contentLength = (message: string): FieldIssue[] => [{ path: '(headers).content-length', message }];
const transferEncoding = (message: string): FieldIssue[] => [{ path: '(headers).transfer-encoding', message }];

/** Node's llhttp error codes (err.code on `clientError`) in words a caller can act on. */
function describe(err: ParserError): ParserRefusal {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      // Node counts the request line and the headers together against one 16 KB limit; when the request
      // line alone filled the packet in which the limit was crossed, it is the URL that is too long.
      return requestLineOverflowed(Buffer.isBuffer(err.rawPacket) ? err.rawPacket : undefined)
        ? {
            status: 414,
            message: `the request URL is too long; the request line and headers together may be at most 16 KB, and the URL at most ${MAX_REQUEST_TARGET} bytes`,
            details: [{ path: '(path)', message: 'too long' }],
          }
        : { status: 431, message: 'the request headers are too large; the request line and headers together may be at most 16 KB', details: head('too large') };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, message: 'the chunked body carries too many chunk extensions', details: transferEncoding('chunk extensions too large') };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { status: 408, message: 'the request was not received in time; send it again' };
    case 'HPE_INVALID_CONTENT_LENGTH':
      return {
        status: 400,
        message: 'Content-Length must be one non-negative decimal number, sent once',
        details: contentLength('not a single decimal number'),
      };
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return {
        status: 400,
        message: 'send either Content-Length or Transfer-Encoding, not both',
        details: contentLength('not allowed together with Transfer-Encoding'),
      };
    case 'HPE_INVALID_TRANSFER_ENCODING':
      // llhttp reports Content-Length together with Transfer-Encoding under this code too
      return {
        status: 400,
        message: 'Transfer-Encoding must end with chunked and must not be sent together with Content-Length',
        details: transferEncoding('invalid, or sent together with Content-Length'),
      };
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_STRICT':
    case 'HPE_INVALID_EOF_STATE':
      return {
        status: 400,
        message: 'the request body is not framed as its headers say (check the chunk sizes and Content-Length)',
        details: [{ path: '(body)', message: 'malformed framing' }],
      };
    case 'HPE_INVALID_METHOD':
      return { status: 400, message: 'the request method is not a valid HTTP method' };
    case 'HPE_INVALID_URL':
      return { status: 400, message: 'the request URL is not valid', details: [{ path: '(path)', message: 'not a valid URL' }] };
    case 'HPE_INVALID_VERSION':
      return { status: 400, message: 'the HTTP version is not supported; use HTTP/1.1' };
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return {
        status: 400,
        message: 'a header name or value contains characters HTTP does not allow, or a line is not ended by CR LF',
        details: head('malformed'),
      };
    default:
      return { status: 400, message: 'the request is not well-formed HTTP/1.1' };
  }
}

/**
 * The packet in which Node found the head too large starts a request line, and that line (to its end or to
 * the end of the packet) is over MAX_REQUEST_TARGET: the URL is what is too long, as the onRequest guard
 * would have said. A head that arrived in several packets is judged by its last one (then it is 431).
 */
function requestLineOverflowed(packet: Buffer | undefined): boolean {
  if (!packet || !/^[A-Z]{3,10} /.test(packet.subarray(0, 12).toString('latin1'))) return false;
  const end = packet.indexOf(0x0a);
  return (end === -1 ? packet.length : end) > MAX_REQUEST_TARGET;
}

/**
 * Fastify's `clientErrorHandler`: answers a request Node's parser refused. The connection is closed after
 * (the parser cannot find the next request in a broken stream), the answer is written only when no other
 * answer has started on this socket (as Node's own handler does), and nothing from the request is logged
 * or echoed (its raw bytes may carry an API key).
 */
export function clientErrorHandler(this: FastifyInstance, err: ParserError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const refusal = describe(err);
  const id = randomUUID();
  this.log.debug({ reqId: id, code: err.code, status: refusal.status }, 'request refused by the HTTP parser');
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify(errorBody('validation_failed', refusal.message, refusal.details));
    socket.write(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${id}\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}

/** Fastify's `frameworkErrors`: router faults, answered without repeating the URL. */
export function frameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', req.id);
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply
      .status(414)
      .send(
        errorBody('validation_failed', `a segment of the request path is longer than ${MAX_PARAM_LENGTH} characters`, [
          { path: '(path)', message: 'too long' },
        ]),
      );
    return;
  }
  const path = err.code === 'FST_ERR_BAD_URL' ? '(path)' : '(request)';
  reply
    .status(400)
    .send(errorBody('validation_failed', 'the request URL is malformed; check its %-escapes', [{ path, message: 'not a valid URL (check its %-escapes)' }]));
}

/**
 * Root `onRequest` hook: a request target over MAX_REQUEST_TARGET is 414, an HTTP/1.1 request without Host
 * is 400 (Node's own check is turned off in app.ts because it answers with an empty body).
 */
export async function requestTargetGuard(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const url = req.raw.url ?? '';
  if (url.length > MAX_REQUEST_TARGET) {
    return reply
      .status(414)
      .send(
        errorBody('validation_failed', `the request URL is ${url.length} bytes long; at most ${MAX_REQUEST_TARGET} are accepted`, [
          { path: '(path)', message: 'too long' },
        ]),
      );
  }
  if (req.raw.httpVersion === '1.1' && !req.headers.host) {
    return reply.status(400).send(errorBody('validation_failed', 'an HTTP/1.1 request must carry a Host header', head('host is missing')));
  }
}

/**
 * Root `preParsing` hook: a request body in a content coding other than identity is 415 on every route. No route
 * decodes one, so a gzip body would be parsed as if it were plain (a body merely labelled gzip accepted, a real one
 * refused as broken JSON); the answer names the header and, as RFC 9110 asks, `Accept-Encoding` says what is taken.
 */
export async function contentEncodingGuard(req: FastifyRequest): Promise<void> {
  const coding = req.headers['content-encoding'];
  if (coding === undefined || !hasBody(req)) return;
  const codings = coding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter(Boolean);
  if (codings.every((c) => c === 'identity')) return;
  throw new AppError(
    'unsupported_media_type',
    'request bodies are accepted uncompressed only: send no Content-Encoding header (or Content-Encoding: identity)',
    [{ path: '(headers).content-encoding', message: 'must be identity or absent' }],
    { 'accept-encoding': 'identity' },
  );
}

const hasBody = (req: FastifyRequest) => req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';

export function registerRequestEdges(app: FastifyInstance): void {
  app.addHook('onRequest', requestTargetGuard);
  app.addHook('preParsing', contentEncodingGuard);
}
