import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { serviceSecret } from '../db/service-secrets.js';
import { secretBox } from '../lib/secret-box.js';

/** The public half as a UCP profile's `signing_keys` lists it (a P-256 JWK). */
export interface UcpPublicKey {
  kid: string;
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  use: 'sig';
  alg: 'ES256';
}

export interface UcpSigningKey {
  publicJwk: UcpPublicKey;
  privateKey: KeyObject;
}

const KEY_NAME = 'ucp_signing_key';
const BOX_NAME = 'ucp_signing_box';
const PURPOSE = 'ucp-signing-key';

/** RFC 7638: the SHA-256 of the key's required members in lexical order, so the kid follows from the key alone. */
function thumbprint(jwk: { crv: string; kty: string; x: string; y: string }): string {
  return createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
    .digest('base64url');
}

/**
 * The deployment's one ES256 key for UCP (webhooks and, later, response signatures), made on first use and kept in
 * `service_secrets` sealed (AES-GCM) under SIGNING_SECRET, else under a box key of its own there, as webhook endpoint
 * secrets are. The first writer wins and every instance reads the same key back, so the kid (its RFC 7638
 * thumbprint) stays the same for the deployment's life.
 */
export function ucpSigningKey(db: Db, config: Pick<Config, 'SIGNING_SECRET'>): () => Promise<UcpSigningKey> {
  let key: Promise<UcpSigningKey> | undefined;
  const load = async (): Promise<UcpSigningKey> => {
    const boxSecret = config.SIGNING_SECRET ?? (await serviceSecret(db, BOX_NAME, randomBytes(32).toString('base64url')));
    const box = secretBox(boxSecret, PURPOSE);
    const candidate = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const privateKey = createPrivateKey(box.open(await serviceSecret(db, KEY_NAME, box.seal(candidate))));
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as { kty: 'EC'; crv: 'P-256'; x: string; y: string };
    return { privateKey, publicJwk: { kid: thumbprint(jwk), kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, use: 'sig', alg: 'ES256' } };
  };
  return () => {
    key ??= load().catch((err) => {
      key = undefined; // a database hiccup must not poison every later request
      throw err;
    });
    return key;
  };
}
