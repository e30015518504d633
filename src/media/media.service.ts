import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { serviceSecret } from '../db/service-secrets.js';
import { signPath, verifyPath } from '../lib/signing.js';
import { trustProxyFn } from '../lib/trust-proxy.js';

/** Signed photo links are valid this long (spec, Limits). */
export const LINK_TTL_SECONDS = 600;
const SECRET_NAME = 'media_signing';

export type PhotoLinker = (path: string) => string;
/** (company id, invoice or credit note id) -> an absolute signed link to its PDF. */
export type DocumentLinker = (companyId: string, documentId: string) => string;
/** What a signed invoice link names: `<company id>/<document id>.pdf`. */
export const DOCUMENT_PATH = /^(co_[A-Za-z0-9]{1,64})\/((?:inv|cn)_[A-Za-z0-9]{1,64})\.pdf$/;

/** What `origin` reads of a request (a FastifyRequest has it all). */
export interface OriginRequest {
  /** Fastify's: X-Forwarded-Proto/Host when the peer is a trusted proxy, else the socket's scheme and `Host`. */
  protocol: string;
  host: string;
  headers: Record<string, string | string[] | undefined>;
  socket?: { remoteAddress?: string; localAddress?: string; localPort?: number; encrypted?: boolean } | null;
}

const FORWARDED_HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Signs and checks photo links. The secret is SIGNING_SECRET, or one generated on first use and kept
 * in `service_secrets` so every instance signs alike (the first writer wins; everyone reads it back).
 */
export function createMediaService({
  db,
  config,
}: {
  db: Db;
  config: Pick<Config, 'SIGNING_SECRET' | 'PUBLIC_URL' | 'MEDIA_DIR' | 'TRUST_PROXY' | 'HOST' | 'PORT' | 'INVOICE_LINK_TTL_SECONDS'>;
}) {
  let secret: Promise<string> | undefined;
  const loadSecret = async (): Promise<string> => {
    if (config.SIGNING_SECRET) return config.SIGNING_SECRET;
    return serviceSecret(db, SECRET_NAME, randomBytes(32).toString('base64url'));
  };
  const getSecret = () => {
    secret ??= loadSecret().catch((err) => {
      secret = undefined; // a database hiccup must not poison every later request
      throw err;
    });
    return secret;
  };
  // Invoice links are signed with a key of their own, derived from the secret: a photo link's signature never opens an invoice.
  // Derived once per secret, not per order lookup (an HMAC each time: 2% of a lookup's CPU in the service).
  let derived: { secret: string; key: string } | undefined;
  const documentKey = async () => {
    const secret = await getSecret();
    if (derived?.secret !== secret) derived = { secret, key: signPath(secret, 'invoice-links', 0) };
    return derived.key;
  };
  const publicUrl = config.PUBLIC_URL?.replace(/\/+$/, '');
  const trust = trustProxyFn(config.TRUST_PROXY);

  /** The local address and port of the connection (a real interface of ours), else HOST:PORT as configured. */
  function listeningOrigin(socket: OriginRequest['socket']): string {
    let host = socket?.localAddress ?? config.HOST;
    const port = socket?.localAddress ? socket.localPort : config.PORT;
    if (host.startsWith('::ffff:') && isIP(host.slice(7)) === 4) host = host.slice(7);
    if (host === '0.0.0.0' || host === '::') host = '127.0.0.1';
    if (isIP(host) === 6) host = `[${host}]`;
    return `${socket?.encrypted ? 'https' : 'http'}://${host}${port ? `:${port}` : ''}`;
  }

  return {
    mediaDir: config.MEDIA_DIR,

    /**
     * scheme://host used in photo links: PUBLIC_URL when set; else X-Forwarded-Proto/Host when the request came
     * through a trusted proxy (TRUST_PROXY) that sent them; else the address this server was reached on. Never the
     * `Host` header: any client can write `Host: evil.example` and would get links pointing there.
     */
    origin(req: OriginRequest): string {
      if (publicUrl) return publicUrl;
      const peer = req.socket?.remoteAddress;
      if (trust && peer && trust(peer, 0) && req.headers['x-forwarded-host']) {
        if ((req.protocol === 'http' || req.protocol === 'https') && FORWARDED_HOST.test(req.host)) return `${req.protocol}://${req.host}`;
      }
      return listeningOrigin(req.socket);
    },

    /** The origin links made outside a request use (the admin CLI): PUBLIC_URL, else HOST:PORT as configured. */
    configuredOrigin(): string {
      return publicUrl ?? listeningOrigin(undefined);
    },

    /** A function turning a media path (`<company_id>/<file>`) into an absolute link valid 10 minutes (or `ttlSeconds`). */
    async linker(origin: string, nowMs: number = Date.now(), ttlSeconds: number = LINK_TTL_SECONDS): Promise<PhotoLinker> {
      const key = await getSecret();
      const expires = Math.floor(nowMs / 1000) + ttlSeconds;
      return (path) => {
        const encoded = path.split('/').map(encodeURIComponent).join('/');
        return `${origin}/media/${encoded}?expires=${expires}&sig=${signPath(key, path, expires)}`;
      };
    },

    /** Signed links to invoice and credit-note PDFs (`/invoices/<company id>/<document id>.pdf`), valid INVOICE_LINK_TTL_SECONDS. */
    async documentLinker(origin: string, nowMs: number = Date.now()): Promise<DocumentLinker> {
      const key = await documentKey();
      const expires = Math.floor(nowMs / 1000) + config.INVOICE_LINK_TTL_SECONDS;
      return (companyId, documentId) => {
        const path = `${companyId}/${documentId}.pdf`;
        return `${origin}/invoices/${path}?expires=${expires}&sig=${signPath(key, path, expires)}`;
      };
    },

    /** 'ok', or why an invoice link is refused. */
    async checkDocument(path: string, expires: number, sig: string, nowMs: number = Date.now()): Promise<'ok' | 'expired' | 'bad_signature'> {
      if (!verifyPath(await documentKey(), path, expires, sig)) return 'bad_signature';
      if (expires * 1000 < nowMs) return 'expired';
      return 'ok';
    },

    /** 'ok', or why the link is refused. */
    async check(path: string, expires: number, sig: string, nowMs: number = Date.now()): Promise<'ok' | 'expired' | 'bad_signature'> {
      const key = await getSecret();
      if (!verifyPath(key, path, expires, sig)) return 'bad_signature';
      if (expires * 1000 < nowMs) return 'expired';
      return 'ok';
    },
  };
}

export type MediaService = ReturnType<typeof createMediaService>;
