import { sql } from 'drizzle-orm';
import type { Db } from '../src/db/index.js';
import { webhookReceiver } from '../test/helpers/webhook-receiver.js';

/**
 * The soak's webhook receiver: the tests' receiver (test/helpers/webhook-receiver.ts) answering 500 to a share of
 * requests (seeded, repeatable) and 200 to the rest; `stats()` counts what it got by event id, so "produced vs
 * delivered" can be compared with the outbox afterwards.
 */
export async function failingReceiver(failShare: number, seed = 7) {
  const receiver = await webhookReceiver({ failShare, seed });
  const stats = () => {
    const { attempts, received } = receiver.state;
    const ids = new Set(received.map((r) => r.body.id));
    return { attempts, refused: attempts - received.length, accepted: received.length, repeats: received.length - ids.size, received_distinct: ids.size };
  };
  return { url: receiver.url, stats, close: receiver.close };
}

/** Waits until the company has no pending delivery (or `timeoutMs`), then compares the outbox with what arrived. */
export async function webhookFigures(db: Db, companyId: string, receiver: Awaited<ReturnType<typeof failingReceiver>>, timeoutMs = 120_000) {
  const started = Date.now();
  const pending = async () =>
    (await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE company_id = ${companyId} AND status = 'pending'`))[0].n;
  while ((await pending()) > 0 && Date.now() - started < timeoutMs) await new Promise((r) => setTimeout(r, 200));
  const [row] = await db.query<{ events: number; delivered: number; failed: number; pending: number; attempts: number }>(sql`
    SELECT (SELECT count(*)::int FROM events WHERE company_id = ${companyId}) AS events,
           count(*) FILTER (WHERE d.status = 'delivered')::int AS delivered,
           count(*) FILTER (WHERE d.status = 'failed')::int AS failed,
           count(*) FILTER (WHERE d.status = 'pending')::int AS pending,
           coalesce(sum(d.attempts), 0)::int AS attempts
    FROM webhook_deliveries d WHERE d.company_id = ${companyId}`);
  return { ...row, ...receiver.stats(), drain_after_run_ms: Date.now() - started };
}
