/**
 * The checks of .ci/docker.sh, run through the reverse proxy in front of two containers of the image:
 *   a. browses and orders are answered, and both containers served some of each (read from their request log lines);
 *   b. the per-key limit holds across both: 80 requests with one key, exactly 60 answered, 20 refused with 429;
 *   c. the health check is quiet: it has run and passed, and no probe wrote a request line;
 *   d. one container stopped (SIGTERM, `docker stop`) while orders are being placed loses no order: clients retry a
 *      failed request with the same external_reference, and at the end every intended order is in the database
 *      exactly once, whole, and the stock reserved is the sum of the ordered quantities.
 * Environment (set by .ci/docker.sh): DOCKER_CHECK_PROXY, DOCKER_CHECK_CONTAINERS (two names),
 * DOCKER_CHECK_KEYS (five keys of one company: browse, limit, three for orders), DOCKER_CHECK_DATABASE_URL.
 * Exits 1 when a check fails.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';

const exec = promisify(execFile);
const BASE_PATH = '/api/v1/commerce';
const RATE_LIMIT = 60;
const ORDERS_PER_CLIENT = 40;
const ORDER_INTERVAL_MS = 200;
const STOP_AFTER_MS = 2_500;
const SKUS = ['CI-TEE-M', 'CI-TEE-L', 'CI-CAP-1'];

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run .ci/docker.sh)`);
  return value;
}
const proxy = setting('DOCKER_CHECK_PROXY');
const base = `${proxy}${BASE_PATH}`;
const containers = setting('DOCKER_CHECK_CONTAINERS').split(',');
const [browseKey, limitKey, ...orderKeys] = setting('DOCKER_CHECK_KEYS').split(',');
const databaseUrl = setting('DOCKER_CHECK_DATABASE_URL');
const run = `ci-${randomBytes(4).toString('hex')}`;
const prefixOf = (key: string) => key.split('_').slice(0, 2).join('_');

const failures: string[] = [];
function check(ok: boolean, what: string): void {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- what each container served, from its own log (pino JSON lines: "incoming request" has the URL, "request
// completed" the status and, after authentication, the key's visible prefix; both carry reqId)
interface LogLine {
  msg?: string;
  reqId?: string;
  key?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
}
interface Served {
  method: string;
  url: string;
  key?: string;
  status?: number;
}
async function logLines(container: string): Promise<{ lines: LogLine[]; raw: string }> {
  const { stdout, stderr } = await exec('docker', ['logs', container], { maxBuffer: 256 * 1024 * 1024 });
  const raw = `${stdout}\n${stderr}`;
  const lines: LogLine[] = [];
  for (const text of raw.split('\n')) {
    if (!text.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(text) as LogLine);
    } catch {
      // not a log line
    }
  }
  return { lines, raw };
}
async function served(container: string): Promise<Served[]> {
  const { lines } = await logLines(container);
  const byId = new Map<string, Served>();
  for (const line of lines) {
    if (!line.reqId) continue;
    if (line.msg === 'incoming request' && line.req?.url) byId.set(line.reqId, { method: line.req.method ?? '?', url: line.req.url });
    if (line.msg === 'request completed') {
      const entry = byId.get(line.reqId);
      if (entry) Object.assign(entry, { key: line.key, status: line.res?.statusCode });
    }
  }
  return [...byId.values()];
}
const isOrder = (s: Served) => s.method === 'POST' && s.url === `${BASE_PATH}/orders`;
const isBrowse = (s: Served) => s.method === 'GET' && s.url.startsWith(`${BASE_PATH}/catalog/`);

// ---- HTTP through the proxy
async function call(key: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  try {
    return { status: res.status, json: JSON.parse(text) as unknown };
  } catch {
    return { status: res.status, json: text };
  }
}
async function inParallel<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

interface Line {
  product_id: string;
  quantity: number;
}
function randomLines(): Line[] {
  const picked = SKUS.filter(() => Math.random() < 0.5);
  const skus = picked.length ? picked : [SKUS[Math.floor(Math.random() * SKUS.length)]];
  return skus.map((sku) => ({ product_id: sku, quantity: 1 + Math.floor(Math.random() * 3) }));
}
function orderBody(ref: string, lines: Line[], n: number) {
  return {
    customer: { name: `CI Customer ${n}`, phone: `98${String(10_000_000 + n).padStart(8, '0')}` },
    items: lines,
    external_reference: ref,
    payment: 'prepaid',
    delivery_address: { line1: '12 MG Road', city: 'Bengaluru', pincode: '560001' },
  };
}

interface Intended {
  ref: string;
  lines: Line[];
}
const intended: Intended[] = [];
const tally = { created: 0, duplicate: 0, retries: 0, failedAttempts: new Map<string, number>(), gaveUp: 0 };

/** Places one order, retrying a lost answer (connection error, 502/503/504, 429 after Retry-After) with the same external_reference. */
async function placeOrder(key: string, ref: string, lines: Line[], n: number): Promise<void> {
  intended.push({ ref, lines });
  for (let attempt = 1; attempt <= 20; attempt++) {
    let status: number;
    let json: unknown;
    try {
      ({ status, json } = await call(key, 'POST', '/orders', orderBody(ref, lines, n)));
    } catch (err) {
      const why = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      tally.failedAttempts.set(`error: ${why}`, (tally.failedAttempts.get(`error: ${why}`) ?? 0) + 1);
      tally.retries++;
      await sleep(200);
      continue;
    }
    if (status === 201) {
      tally.created++;
      return;
    }
    if (status === 200 && (json as { duplicate?: boolean }).duplicate === true) {
      tally.duplicate++;
      return;
    }
    tally.failedAttempts.set(`HTTP ${status}`, (tally.failedAttempts.get(`HTTP ${status}`) ?? 0) + 1);
    if (status === 429 || status === 502 || status === 503 || status === 504) {
      tally.retries++;
      await sleep(status === 429 ? 5_000 : 200);
      continue;
    }
    console.log(`order ${ref}: HTTP ${status} ${JSON.stringify(json)}`);
    break;
  }
  tally.gaveUp++;
}

async function main(): Promise<void> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const company = (await db.query<{ id: string }>(`SELECT id FROM companies WHERE slug = 'ci-docker'`)).rows[0];
    if (!company) throw new Error('company ci-docker is missing');

    // a. browses and orders through the proxy reach both containers
    console.log(`\na. browses and orders through ${proxy} (key ${prefixOf(browseKey)}…)`);
    // In a shuffled order: with a fixed sequence, round robin could send every order to the same container.
    const paths = ['/catalog/products?limit=5', '/catalog/products/CI-TEE-M', '/catalog/categories'];
    const tasks = shuffle<string | number>([...Array.from({ length: 30 }, (_, i) => paths[i % 3]), ...Array.from({ length: 15 }, (_, i) => i)]);
    const statuses: number[] = [];
    await inParallel(tasks, 3, async (task) => {
      if (typeof task === 'string') {
        statuses.push((await call(browseKey, 'GET', task)).status);
        return;
      }
      const ref = `${run}-a-${task}`;
      const lines = randomLines();
      intended.push({ ref, lines });
      statuses.push((await call(browseKey, 'POST', '/orders', orderBody(ref, lines, 1000 + task))).status);
    });
    check(
      statuses.filter((s) => s === 200).length === 30 && statuses.filter((s) => s === 201).length === 15,
      `30 browses answered 200 and 15 orders 201 (got ${JSON.stringify(count(statuses))})`,
    );
    for (const container of containers) {
      const mine = (await served(container)).filter((s) => s.key === prefixOf(browseKey));
      const browses = mine.filter(isBrowse).length;
      const orders = mine.filter(isOrder).length;
      check(browses > 0 && orders > 0, `${container} served ${browses} browses and ${orders} orders of them`);
    }

    // b. the per-key limit holds across both containers (counters in the shared Redis)
    console.log(`\nb. ${RATE_LIMIT + 20} requests with one key (${prefixOf(limitKey)}…), 8 at a time`);
    const limited: number[] = [];
    await inParallel(
      Array.from({ length: RATE_LIMIT + 20 }, (_, i) => i),
      8,
      async () => {
        limited.push((await call(limitKey, 'GET', '/catalog/categories')).status);
      },
    );
    const accepted = limited.filter((s) => s === 200).length;
    const refused = limited.filter((s) => s === 429).length;
    check(accepted === RATE_LIMIT && refused === 20, `${accepted} answered 200, ${refused} refused with 429 (expected ${RATE_LIMIT} and 20)`);
    for (const container of containers) {
      const mine = (await served(container)).filter((s) => s.key === prefixOf(limitKey));
      const ok = mine.filter((s) => s.status === 200).length;
      const no = mine.filter((s) => s.status === 429).length;
      check(ok > 0 && no > 0, `${container} answered ${ok} and refused ${no} of them`);
    }

    // c. the health check ran and passed, and wrote no request line
    console.log('\nc. the health check is quiet');
    for (const container of containers) {
      let health: { Status: string; Log: { ExitCode: number }[] } = { Status: 'none', Log: [] };
      for (let i = 0; i < 40; i++) {
        const { stdout } = await exec('docker', ['inspect', '-f', '{{json .State.Health}}', container]);
        health = JSON.parse(stdout) as typeof health;
        if (health.Status === 'healthy' && health.Log.length >= 2) break;
        await sleep(1000);
      }
      const passed = health.Log.filter((l) => l.ExitCode === 0).length;
      check(health.Status === 'healthy' && passed >= 2, `${container} is ${health.Status} after ${passed} passed health checks`);
      const { raw } = await logLines(container);
      const probeLines = raw.split('\n').filter((l) => l.includes('/readyz') || l.includes('/healthz')).length;
      check(probeLines === 0, `${container} logged ${probeLines} lines about /readyz or /healthz`);
    }

    // d. one container stopped mid-traffic loses no order
    const victim = containers[1];
    console.log(
      `\nd. ${orderKeys.length} clients place ${ORDERS_PER_CLIENT} orders each (one every ${ORDER_INTERVAL_MS} ms); docker stop ${victim} after ${STOP_AFTER_MS} ms`,
    );
    const before = await Promise.all(containers.map(async (c) => (await served(c)).filter(isOrder).length));
    const started = Date.now();
    let stopTook = 0;
    let servedByVictimBeforeStop = 0;
    const stopping = (async () => {
      await sleep(STOP_AFTER_MS);
      servedByVictimBeforeStop = (await served(victim)).filter(isOrder).length - before[1];
      const t = Date.now();
      console.log(`docker stop ${victim} at ${t - started} ms, ${tally.created + tally.duplicate} orders placed so far`);
      await exec('docker', ['stop', '-t', '30', victim]);
      stopTook = Date.now() - t;
    })();
    await Promise.all([
      stopping,
      ...orderKeys.map(async (key, client) => {
        for (let i = 0; i < ORDERS_PER_CLIENT; i++) {
          const next = started + i * ORDER_INTERVAL_MS;
          if (next > Date.now()) await sleep(next - Date.now());
          await placeOrder(key, `${run}-d-${client}-${i}`, randomLines(), client * 1000 + i);
        }
      }),
    ]);
    const trafficMs = Date.now() - started;
    const { stdout: exitCode } = await exec('docker', ['inspect', '-f', '{{.State.ExitCode}}', victim]);
    const { raw: victimLog } = await logLines(victim);
    check(exitCode.trim() === '0' && victimLog.includes('"msg":"stopped"'), `${victim} stopped cleanly in ${stopTook} ms (exit code ${exitCode.trim()})`);
    const after = await Promise.all(containers.map(async (c) => (await served(c)).filter(isOrder).length));
    const perContainer = containers.map((c, i) => `${c} ${after[i] - before[i]}`).join(', ');
    check(
      servedByVictimBeforeStop > 0 && after[0] - before[0] > 0,
      `orders served per container: ${perContainer} (${servedByVictimBeforeStop} by ${victim} before the stop)`,
    );
    const placed = ORDERS_PER_CLIENT * orderKeys.length;
    const attempts = [...tally.failedAttempts].map(([why, n]) => `${n} × ${why}`).join(', ') || 'none';
    console.log(
      `${placed} orders in ${trafficMs} ms: ${tally.created} created, ${tally.duplicate} answered as duplicates of a lost answer, ${tally.retries} retries (failed attempts: ${attempts})`,
    );
    check(
      tally.gaveUp === 0 && tally.created + tally.duplicate === placed,
      `every order was answered 201 or 200 duplicate in the end (${tally.gaveUp} gave up)`,
    );

    // The database: every intended order exactly once, whole; reserved stock = ordered quantities.
    const rows = (
      await db.query<{ ref: string; orders: number; status: string; lines: { sku: string; quantity: string }[] | null }>(
        `SELECT o.external_reference AS ref, count(*) OVER (PARTITION BY o.external_reference)::int AS orders, o.status,
                (SELECT json_agg(json_build_object('sku', l.sku, 'quantity', l.quantity)) FROM order_lines l
                  WHERE l.company_id = o.company_id AND l.order_id = o.id) AS lines
           FROM orders o WHERE o.company_id = $1`,
        [company.id],
      )
    ).rows;
    const byRef = new Map(rows.map((r) => [r.ref, r]));
    const missing = intended.filter((o) => !byRef.has(o.ref)).map((o) => o.ref);
    const doubled = rows.filter((r) => r.orders !== 1).map((r) => r.ref);
    const unexpected = rows.filter((r) => !intended.some((o) => o.ref === r.ref)).map((r) => r.ref);
    const wrong = intended.filter((o) => {
      const row = byRef.get(o.ref);
      if (!row) return false;
      const got = new Map((row.lines ?? []).map((l) => [l.sku, Number(l.quantity)]));
      return row.status !== 'confirmed' || got.size !== o.lines.length || o.lines.some((l) => got.get(l.product_id) !== l.quantity);
    });
    check(
      missing.length === 0 && doubled.length === 0 && unexpected.length === 0 && rows.length === intended.length,
      `the database holds ${rows.length} orders for ${intended.length} intended: ${missing.length} missing, ${doubled.length} doubled, ${unexpected.length} unexpected`,
    );
    check(wrong.length === 0, `every order is confirmed with exactly its lines (${wrong.length} differ)`);
    const ordered = new Map<string, number>();
    for (const o of intended) for (const l of o.lines) ordered.set(l.product_id, (ordered.get(l.product_id) ?? 0) + l.quantity);
    const stock = (
      await db.query<{ sku: string; reserved: string; open: string }>(
        `SELECT v.sku, sum(s.reserved)::text AS reserved,
                (SELECT coalesce(sum(r.quantity), 0) FROM stock_reservations r
                  WHERE r.company_id = v.company_id AND r.variant_id = v.id AND r.status = 'open')::text AS open
           FROM variants v JOIN stock_levels s ON s.company_id = v.company_id AND s.variant_id = v.id
          WHERE v.company_id = $1 GROUP BY v.company_id, v.id, v.sku ORDER BY v.sku`,
        [company.id],
      )
    ).rows;
    for (const s of stock) {
      const want = ordered.get(s.sku) ?? 0;
      check(
        Number(s.reserved) === want && Number(s.open) === want,
        `${s.sku}: reserved ${Number(s.reserved)}, open reservations ${Number(s.open)}, ordered ${want}`,
      );
    }
  } finally {
    await db.end();
  }
  console.log(failures.length ? `\n${failures.length} check(s) failed` : '\nall checks passed');
  process.exitCode = failures.length ? 1 : 0;
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

function count(values: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

await main();
