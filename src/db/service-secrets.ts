import { sql } from 'drizzle-orm';
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
