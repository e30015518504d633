import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createPgDatabase, type Database } from '../../src/db/client.js';

/**
 * A result is garbage once its caller drops it: `pool.query` left the result of the query that made the
 * pool open a connection reachable for that connection's whole life (through pg-pool's connect callback), which kept
 * a 300,000-variant catalogue load (81 MB) in memory beside the model built from it. PostgreSQL only: PGlite has no pool.
 */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const serverUrl = inject('testDb')?.serverUrl;

let db: Database;
beforeAll(() => {
  if (serverUrl) db = createPgDatabase({ url: serverUrl, poolMax: 4, statementTimeoutMs: 10_000, connectTimeoutMs: 10_000 });
});
afterAll(async () => {
  await db?.close();
});

/** Runs `n` statements at once, each likely to open a connection, and answers weak references to their results. */
async function resultsOf(n: number): Promise<WeakRef<object>[]> {
  const results = await Promise.all(
    Array.from({ length: n }, () => db.query<{ n: number }>(sql`SELECT generate_series(1, 1000) AS n, repeat('x', 100) AS pad`)),
  );
  for (const rows of results) expect(rows).toHaveLength(1000);
  return results.map((rows) => new WeakRef(rows));
}

describe.skipIf(!serverUrl)('results of statements outside a transaction', () => {
  it('are collected once dropped, also those of the statements that opened the pool’s connections', async () => {
    const refs = await resultsOf(4);
    await new Promise((r) => setTimeout(r, 20)); // past the job in which the references were made
    gc();
    expect(refs.filter((r) => r.deref() !== undefined)).toHaveLength(0);
  });
});
