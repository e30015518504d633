import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { Db } from '../src/db/index.js';

/**
 * The soak's webhook receiver: answers 500 to a share of requests (seeded, repeatable) and 200 to the rest, and
 * counts what it got by event id, so "produced vs delivered" can be compared with the outbox afterwards.
 */
export async function failingReceiver(failShare: number, seed = 7) {
  const stats = { attempts: 0, refused: 0, accepted: 0, ids: new Set<string>(), repeats: 0 };
  let s = seed;
  const random = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      stats.attempts++;
      if (random() < failShare) {
        stats.refused++;
        res.writeHead(500).end();
        return;
      }
      const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string };
      stats.accepted++;
      if (stats.ids.has(id)) stats.repeats++;
      stats.ids.add(id);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, stats, close: () => new Promise<void>((r) => server.close(() => r())) };
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
  const { ids, ...counts } = receiver.stats;
  return { ...row, received_distinct: ids.size, ...counts, drain_after_run_ms: Date.now() - started };
}
