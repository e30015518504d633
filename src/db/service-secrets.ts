import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { secretBox, type SecretBox } from '../lib/secret-box.js';
import type { Db } from './client.js';
import type { ServiceSecretRow } from './schema/index.js';

/**
 * The service's own secrets (`service_secrets`), by name: not tenant data, so no company id and no domain owns them.
 * Stores `candidate` under `name` unless a value is there (the first writer wins), then reads the value back, so every
 * instance uses the same one.
 */
export async function serviceSecret(db: Db, name: string, candidate: string): Promise<string> {
  await db.query(sql`INSERT INTO service_secrets (name, value) VALUES (${name}, ${candidate})
      ON CONFLICT (name) DO NOTHING`);
  const rows = await db.query<Pick<ServiceSecretRow, 'value'>>(sql`SELECT value FROM service_secrets WHERE name = ${name}`);
  return rows[0].value;
}

/**
 * A box that seals secrets the service must read back (webhook endpoint secrets, payment provider keys) for `purpose`:
 * keyed from SIGNING_SECRET when set, else from the service secret `name`, made on first use and kept in
 * `service_secrets` (the first writer wins, every instance reads it back). Loaded once, again after a failure.
 */
export function serviceSecretBox(db: Db, signingSecret: string | undefined, name: string, purpose: string): () => Promise<SecretBox> {
  let box: Promise<SecretBox> | undefined;
  const load = async () => secretBox(signingSecret ?? (await serviceSecret(db, name, randomBytes(32).toString('base64url'))), purpose);
  return () => {
    box ??= load().catch((err) => {
      box = undefined;
      throw err;
    });
    return box;
  };
}
