import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isForbiddenAddress, type DestinationPolicy } from '../lib/destination.js';
import { outboundRequest } from '../lib/tracing.js';

export interface SendResult {
  /** the HTTP status, or null when no response came (refused, network error, timeout) */
  status: number | null;
  error: string | null;
  /** the network's error behind `error` (refused, timed out, certificate refused), kept for the log */
  cause?: Error;
}

/**
 * POSTs one webhook body: the destination's addresses are checked when the connection is made (guardedLookup),
 * redirects are not followed (a 3xx is a failure like any non-2xx), the whole exchange is bounded by
 * `timeoutMs`, and the response body is read and dropped (at most 64 KB looked at).
 */
export function sendWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { policy: DestinationPolicy; timeoutMs: number; signal?: AbortSignal },
): Promise<SendResult> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ status: null, error: 'invalid URL' });
  }
  // Traced as a CLIENT span; the receiver gets its traceparent (docs/operations.md, Traces).
  return outboundRequest('POST', target, (traceHeaders) => post(target, body, { ...headers, ...traceHeaders }, opts));
}

function post(
  target: URL,
  body: string,
  headers: Record<string, string>,
  opts: { policy: DestinationPolicy; timeoutMs: number; signal?: AbortSignal },
): Promise<SendResult> {
  return new Promise((resolve) => {
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!opts.policy.allowPrivate && isIP(host) && isForbiddenAddress(host)) return resolve({ status: null, error: 'refused: forbidden address' });
    if (target.protocol !== 'https:' && !(target.protocol === 'http:' && opts.policy.allowHttp)) return resolve({ status: null, error: 'refused: not https' });
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const done = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = send(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'commerce-api-webhooks/1', ...headers },
        lookup: guardedLookup(opts.policy),
        signal: opts.signal,
      },
      (res) => {
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > 64 * 1024) res.destroy();
        });
        res.on('end', () => done({ status: res.statusCode ?? null, error: null }));
        res.on('close', () => done({ status: res.statusCode ?? null, error: null }));
        res.on('error', () => done({ status: res.statusCode ?? null, error: null }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`timed out after ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    req.on('error', (err) => done({ status: null, error: err.message.slice(0, 300), cause: err }));
    req.end(body);
  });
}
