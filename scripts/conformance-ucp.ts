/**
 * npm run conformance:ucp — the official UCP conformance suite (pinned in ../shared/ucp, `run.sh`) against this
 * service as `npm start` runs it, on a fresh database holding our INR fixture (test/fixtures/ucp-conformance: a
 * Delhi florist that also ships abroad, with the suite's item ids, shipping option ids, discount codes, known
 * customers and their addresses). Prints the suite's per-file lines and its last line, `N passed, M failed`; exits 0
 * only when nothing failed. The suite speaks 2026-01-11: it is run against that version's endpoint.
 *
 * Database: with DATABASE_URL, a new database on that server (dropped afterwards unless UCP_KEEP_DB=1); without it,
 * the embedded PGlite in a temporary folder. The service runs with the conformance payment handlers
 * (UCP_TEST_HANDLERS), a simulation secret for the suite's shipping simulation, plain-http loopback webhooks (the
 * suite's agent profile and webhook receiver listen on localhost) not retried (its receiver is up for one file only):
 * settings for this run only, never a default.
 * UCP_SUITE (default ../shared/ucp/run.sh, or $CONFORMANCE_SH) points at the suite's runner; extra arguments name
 * test files (`npm run conformance:ucp -- order_test.py`).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import pg from 'pg';
import { openMigratedDatabase } from '../src/boot.js';
import { addBuyerAddress } from '../src/checkout/checkout.queries.js';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const fixture = join(root, 'test/fixtures/ucp-conformance');
const suite = process.env.UCP_SUITE ?? resolve(root, '../shared/ucp/run.sh');
const log = (msg: string) => process.stdout.write(`[conformance] ${msg}\n`);

interface Business {
  company: { name: string; slug: string };
  tax_profile: Record<string, string>;
  shipping_rates: unknown[];
  discount_codes: unknown[];
}

/** The fixture written into a migrated database: company, catalogue, UCP on, rates, codes, known buyers' addresses. */
async function seed(env: Record<string, string>): Promise<void> {
  const config = loadConfig({ ...process.env, ...env });
  const db = await openMigratedDatabase(config, log);
  try {
    const services = createServices({ db, config });
    const business = JSON.parse(readFileSync(join(fixture, 'business.json'), 'utf8')) as Business;
    const company = await services.companies.create({ kind: 'cli', name: 'bench' }, { ...business.company, auto_courier_booking: false });
    await services.taxProfiles.set(company.id, { kind: 'cli', name: 'bench' }, business.tax_profile);
    await services.catalogueImport.importCatalogue(
      company.id,
      { kind: 'cli', name: 'bench' },
      JSON.parse(readFileSync(join(fixture, 'catalogue.json'), 'utf8')),
      { baseDir: fixture },
    );
    await services.ucpSettings.set(company.id, { kind: 'cli', name: 'bench' }, { enabled: true });
    for (const rate of business.shipping_rates) await services.shippingRates.create(company.id, { kind: 'cli', name: 'bench' }, rate);
    for (const code of business.discount_codes) await services.discountCodes.create(company.id, { kind: 'cli', name: 'bench' }, code);
    // known buyers (matched by e-mail) and the addresses on file the checkout offers them
    const customers = parse<{ id: string; email: string }>(readFileSync(join(fixture, 'customers.csv')), { columns: true });
    const addresses = parse<Record<string, string>>(readFileSync(join(fixture, 'addresses.csv')), { columns: true });
    for (const a of addresses) {
      const email = customers.find((c) => c.id === a.customer_id)?.email;
      if (!email) continue;
      await addBuyerAddress(db, company.id, `email:${email.toLowerCase()}`, a.id, {
        street_address: a.street_address,
        address_locality: a.city,
        address_region: a.state,
        postal_code: a.postal_code,
        address_country: a.country,
      });
    }
    log(
      `seeded "${company.slug}": catalogue, ${business.shipping_rates.length} shipping rates, ${business.discount_codes.length} codes, ${addresses.length} addresses`,
    );
  } finally {
    await db.close();
  }
}

/** The service as `npm start` runs it (src/server.ts), resolved with its base URL once it prints "ready on". */
function startService(env: Record<string, string>): Promise<{ base: string; stop: () => void; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start:\n${out}`)), 60_000);
    child.on('exit', (code) => reject(new Error(`the service exited (${code}):\n${out}`)));
    child.stdout.on('data', () => {
      const m = /ready on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({ base: new URL(m[1]).origin, stop: () => child.kill('SIGTERM'), output: () => out });
    });
  });
}

function runSuite(url: string, files: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('bash', [suite, url, ...files], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

async function main(): Promise<number> {
  if (!existsSync(suite)) {
    log(`the conformance suite's runner is not at ${suite} (set UCP_SUITE)`);
    return 2;
  }
  const serverUrl = process.env.DATABASE_URL;
  const name = `ucp_conformance_${Math.floor(Date.now() / 1000)}_${randomBytes(3).toString('hex')}`;
  let databaseUrl = '';
  let dataDir = '';
  if (serverUrl) {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const u = new URL(serverUrl);
    u.pathname = `/${name}`;
    databaseUrl = u.href;
    log(`fresh database ${name} on the PostgreSQL server`);
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'ucp-conformance-'));
    log(`fresh embedded database in ${dataDir}`);
  }
  const simulationSecret = randomBytes(24).toString('hex');
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir || join(tmpdir(), 'unused'),
    SEED_DEMO: 'false',
    HOST: '127.0.0.1',
    PORT: process.env.UCP_PORT ?? '0',
    REDIS_URL: '',
    UCP_TEST_HANDLERS: 'true',
    UCP_SIMULATION_SECRET: simulationSecret,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
    // The suite's webhook receiver listens only while webhook_test.py runs, and that file counts every event it gets,
    // any order's: an event of an earlier file's order, retried into that window, would be taken for one of its own.
    // So in this run an event that fails is not retried (production retries for 26 hours).
    WEBHOOK_RETRY_FOR_MS: '1',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  };
  let code: number;
  try {
    await seed(env);
    const service = await startService(env);
    try {
      const business = JSON.parse(readFileSync(join(fixture, 'business.json'), 'utf8')) as Business;
      // The suite is a 2026-01-11 platform: it is given the business's 2026-01-11 profile and endpoint, the one the
      // root profile names in `supported_versions` (docs/ucp.md "Versions").
      const url = `${service.base}/ucp/${business.company.slug}/2026-01-11`;
      log(`service on ${service.base}; suite against ${url}`);
      code = await runSuite(url, process.argv.slice(2), {
        UCP_INPUT: join(fixture, 'conformance_input.json'),
        UCP_DATA_DIR: fixture,
        UCP_SIMULATION_SECRET: simulationSecret,
      });
      if (code !== 0 && process.env.UCP_SHOW_LOG) process.stdout.write(service.output());
    } finally {
      service.stop();
    }
  } finally {
    if (serverUrl && !process.env.UCP_KEEP_DB) {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
      await admin.end();
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
  return code;
}

process.exitCode = await main();
