import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isForbiddenAddress, type DestinationPolicy } from '../lib/destination.js';

/**
 * What a UCP platform's profile (named in UCP-Agent) tells the business: where it wants order events, and the version
 * it speaks. Fetched as webhooks are sent (the destination guard checks every address the name resolves to; no
 * redirects; at most 64 KB; a timeout) and kept for a while per URL, so a platform's every request does not cost a
 * fetch. Any failure reads as "said nothing": the checkout goes on without order events.
 */
export interface AgentProfile {
  webhookUrl: string | null;
  version: string | null;
}

const NOTHING: AgentProfile = { webhookUrl: null, version: null };
const MAX_BYTES = 64 * 1024;
const ORDER_CAPABILITY = 'dev.ucp.shopping.order';

/** The members read from a profile: `ucp.version`, and `config.webhook_url` of its order capability (else of any). */
export function readAgentProfile(json: unknown): AgentProfile {
  const ucp = (json as { ucp?: { version?: unknown; capabilities?: unknown } } | null)?.ucp;
  if (!ucp || typeof ucp !== 'object') return NOTHING;
  const version = typeof ucp.version === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(ucp.version) ? ucp.version : null;
  const capabilities = Array.isArray(ucp.capabilities) ? (ucp.capabilities as { name?: unknown; config?: { webhook_url?: unknown } }[]) : [];
  const withHook = capabilities.filter((c) => typeof c?.config?.webhook_url === 'string');
  const chosen = withHook.find((c) => c.name === ORDER_CAPABILITY) ?? withHook[0];
  let webhookUrl: string | null = null;
  if (chosen) {
    try {
      const url = new URL(chosen.config!.webhook_url as string);
      if (url.protocol === 'https:' || url.protocol === 'http:') webhookUrl = url.href;
    } catch {
      // not a URL: no order events
    }
  }
  return { webhookUrl, version };
}

export function createAgentProfiles({
  policy,
  timeoutMs = 2000,
  ttlMs = 5 * 60_000,
  maxEntries = 1000,
}: {
  policy: DestinationPolicy;
  timeoutMs?: number;
  ttlMs?: number;
  maxEntries?: number;
}) {
  const cache = new Map<string, { at: number; profile: Promise<AgentProfile> }>();

  function fetchJson(url: URL): Promise<unknown> {
    return new Promise((resolve) => {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (!policy.allowPrivate && isIP(host) && isForbiddenAddress(host)) return resolve(undefined);
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) return resolve(undefined);
      const get = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = get(
        url,
        { method: 'GET', headers: { accept: 'application/json', 'user-agent': 'commerce-api-ucp/1' }, lookup: guardedLookup(policy) },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            return resolve(undefined);
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_BYTES) return req.destroy();
            chunks.push(chunk);
          });
          res.on('end', () => {
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
            } catch {
              resolve(undefined);
            }
          });
          res.on('error', () => resolve(undefined));
        },
      );
      const timer = setTimeout(() => req.destroy(), timeoutMs);
      req.on('close', () => clearTimeout(timer));
      req.on('error', () => resolve(undefined));
      req.end();
    });
  }

  return {
    /** The profile at `url` (an http(s) URL from UCP-Agent), fetched at most once per `ttlMs`; nothing on any failure. */
    get(url: string): Promise<AgentProfile> {
      const now = Date.now();
      const hit = cache.get(url);
      if (hit && now - hit.at < ttlMs) return hit.profile;
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return Promise.resolve(NOTHING);
      }
      const profile = fetchJson(target).then(readAgentProfile, () => NOTHING);
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
      cache.set(url, { at: now, profile });
      return profile;
    },
  };
}

export type AgentProfiles = ReturnType<typeof createAgentProfiles>;
