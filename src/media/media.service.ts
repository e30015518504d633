import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { signPath, verifyPath } from '../lib/signing.js';

/** Signed photo links are valid this long (spec, Limits). */
export const LINK_TTL_SECONDS = 600;
const SECRET_NAME = 'media_signing';

export type PhotoLinker = (path: string) => string;

/**
 * Signs and checks photo links. The secret is SIGNING_SECRET, or one generated on first use and kept
 * in `service_secrets` so every instance signs alike (the first writer wins; everyone reads it back).
 */
export function createMediaService({ db, config }: { db: Db; config: Pick<Config, 'SIGNING_SECRET' | 'PUBLIC_URL' | 'MEDIA_DIR'> }) {
  let secret: Promise<string> | undefined;
  const loadSecret = async (): Promise<string> => {
    if (config.SIGNING_SECRET) return config.SIGNING_SECRET;
    await db.query(sql`INSERT INTO service_secrets (name, value) VALUES (${SECRET_NAME}, ${randomBytes(32).toString('base64url')})
      ON CONFLICT (name) DO NOTHING`);
    const rows = await db.query<{ value: string }>(sql`SELECT value FROM service_secrets WHERE name = ${SECRET_NAME}`);
    return rows[0].value;
  };
  const getSecret = () => {
    secret ??= loadSecret().catch((err) => {
      secret = undefined; // a database hiccup must not poison every later request
      throw err;
    });
    return secret;
  };
  const publicUrl = config.PUBLIC_URL?.replace(/\/+$/, '');

  return {
    mediaDir: config.MEDIA_DIR,

    /** scheme://host used in photo links: PUBLIC_URL when set, else what the request came to. */
    origin(req: { protocol: string; host: string }): string {
      return publicUrl ?? `${req.protocol}://${req.host}`;
    },

    /** A function turning a media path (`<company_id>/<file>`) into an absolute link valid 10 minutes. */
    async linker(origin: string, nowMs: number = Date.now()): Promise<PhotoLinker> {
      const key = await getSecret();
      const expires = Math.floor(nowMs / 1000) + LINK_TTL_SECONDS;
      return (path) => {
        const encoded = path.split('/').map(encodeURIComponent).join('/');
        return `${origin}/media/${encoded}?expires=${expires}&sig=${signPath(key, path, expires)}`;
      };
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
