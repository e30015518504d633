import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { serviceSecretBox } from '../db/service-secrets.js';
import { randomAlnum } from '../lib/ids.js';
import type { SecretBox } from '../lib/secret-box.js';

const SECRET_NAME = 'webhook_secrets';

/** A new endpoint signing secret: `whsec_` + 32 letters and digits (190 bits). The HMAC key is the whole string. */
export const newWebhookSecret = () => `whsec_${randomAlnum(32)}`;

/**
 * The box that seals endpoint secrets at rest: keyed from SIGNING_SECRET, else from a service secret made on
 * first use and kept in `service_secrets` (the first writer wins, every instance reads it back).
 */
export function webhookSecretBox(db: Db, config: Pick<Config, 'SIGNING_SECRET'>): () => Promise<SecretBox> {
  return serviceSecretBox(db, config.SIGNING_SECRET, SECRET_NAME, 'webhook-endpoint-secrets');
}
