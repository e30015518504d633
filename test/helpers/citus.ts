import pg from 'pg';

/**
 * Databases on a Citus cluster, for the suite and the benchmarks (no vitest import: bench/run.ts uses it too).
 * Citus' database propagation does not support CREATE DATABASE … TEMPLATE, so every database is created empty on
 * every node and migrated (and distributed, by src/db/migrate.ts) on its own: a few seconds per database.
 */

export interface CitusNode {
  host: string;
  port: number;
}

async function onServer<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * True when `serverUrl` is a Citus coordinator: TEST_CITUS=1, or the extension is installed in that database.
 * (Only "available" is not enough: on this machine the plain PostgreSQL 15 has the files too, but does not preload them.)
 */
export async function isCitusServer(serverUrl: string): Promise<boolean> {
  if (process.env.TEST_CITUS === '1') return true;
  if (process.env.TEST_CITUS === '0') return false;
  return onServer(serverUrl, async (c) => ((await c.query("SELECT 1 FROM pg_extension WHERE extname = 'citus'")).rowCount ?? 0) > 0);
}

/** The active workers, as the coordinator's database `serverUrl` knows them. */
export async function citusWorkers(serverUrl: string): Promise<CitusNode[]> {
  return onServer(serverUrl, async (c) => {
    const rows = await c.query<{ node_name: string; node_port: number }>('SELECT node_name, node_port FROM citus_get_active_worker_nodes() ORDER BY node_port');
    return rows.rows.map((r) => ({ host: r.node_name, port: Number(r.node_port) }));
  });
}

/**
 * An empty database `name` on every node of the cluster, with the extension and the workers registered; returns its
 * URL on the coordinator. Order matters: propagated CREATE DATABASE on the coordinator (outside a transaction), the
 * extension in the new database on each worker first, then on the coordinator, then the nodes.
 */
export async function createCitusDatabase(serverUrl: string, name: string, workers: CitusNode[]): Promise<string> {
  await onServer(serverUrl, async (c) => {
    await c.query('SET citus.enable_create_database_propagation = on');
    await c.query(`CREATE DATABASE "${name}"`);
  });
  for (const w of workers) {
    const u = new URL(serverUrl);
    u.hostname = w.host;
    u.port = String(w.port);
    await onServer(withDatabase(u.toString(), name), (c) => c.query('CREATE EXTENSION IF NOT EXISTS citus'));
  }
  const url = withDatabase(serverUrl, name);
  const coordinator = new URL(serverUrl);
  await onServer(url, async (c) => {
    await c.query('CREATE EXTENSION IF NOT EXISTS citus');
    await c.query('SELECT citus_set_coordinator_host($1, $2)', [coordinator.hostname, Number(coordinator.port || 5432)]);
    for (const w of workers) await c.query('SELECT citus_add_node($1, $2)', [w.host, w.port]);
  });
  return url;
}

/**
 * Drops `name` on the coordinator and, propagated, on every worker. The propagated DROP is not atomic: a worker's
 * Citus maintenance daemon may still be connected ("is being accessed by other users", even WITH (FORCE)) after
 * the coordinator's copy is gone. Then each node's copy is dropped on that node, a few tries each.
 */
export async function dropCitusDatabase(serverUrl: string, name: string, workers: CitusNode[]): Promise<void> {
  try {
    await onServer(serverUrl, async (c) => {
      await c.query('SET citus.enable_create_database_propagation = on');
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    });
    return;
  } catch {
    // below, node by node
  }
  const nodes = [serverUrl, ...workers.map((w) => Object.assign(new URL(serverUrl), { hostname: w.host, port: String(w.port) }).toString())];
  for (const url of nodes) {
    for (let attempt = 1; ; attempt++) {
      try {
        await onServer(url, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
        break;
      } catch (err) {
        if (attempt >= 8) throw err;
        await new Promise((r) => setTimeout(r, 400 * attempt));
      }
    }
  }
}

/**
 * The cross-company guard of the suite: in this database any query the coordinator splits into several shard tasks
 * fails, so a request's query that is not a router query (one company's shards) fails the test that ran it. Named
 * cross-company reads switch it off for themselves (src/db/cross-company.ts); so do the migrator and distribute().
 */
export async function guardCrossCompany(serverUrl: string, name: string): Promise<void> {
  await onServer(serverUrl, (c) => c.query(`ALTER DATABASE "${name}" SET citus.multi_task_query_log_level = 'error'`));
}
