import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgliteDatabase } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { serverProcesses } from '../helpers/server-process.js';

const ROOT = join(import.meta.dirname, '../..');
// tsx by its full address: the CLI runs from the caller's folder here, where a bare `--import tsx` would not resolve.
const TSX = import.meta.resolve('tsx');

/**
 * `npm run admin -- …` as a person runs it in a second terminal: its own process, from `cwd`, with the environment of
 * that terminal (no PORT, PUBLIC_URL or secrets of the service), stdout and stderr piped.
 */
function admin(env: Record<string, string>, cwd: string, ...argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base = { ...process.env };
  for (const name of ['PORT', 'HOST', 'PUBLIC_URL', 'DATABASE_URL', 'DATA_DIR']) delete base[name];
  const child = spawn(process.execPath, ['--import', TSX, join(ROOT, 'src/cli/main.ts'), ...argv], {
    cwd,
    env: { ...base, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const exited = (child: ChildProcess) =>
  new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)));

const CATALOGUE = {
  format: 'commerce-catalogue/1',
  locations: [{ code: 'WH', name: 'Warehouse', kind: 'warehouse', ships_orders: true }],
  products: [{ sku: 'TEE', name: 'Cotton Tee', tax_rate: '5', variants: [{ sku: 'TEE-M', selling_price: '499.00', stock: { WH: '10' } }] }],
};

const order = (reference: string) => ({
  external_reference: reference,
  customer: { name: 'Meera Iyer', phone: '9822200011' },
  items: [{ product_id: 'TEE-M', quantity: 2 }],
  delivery_address: { line1: '7 FC Road', city: 'Pune', pincode: '411004' },
  payment: 'cod',
});

describe('the admin CLI while the service runs on the embedded database', () => {
  const servers = serverProcesses();
  const dataDir = mkdtempSync(join(tmpdir(), 'cli-serving-'));
  // the person's own folder: files named on the command line are theirs, not the service's
  const home = mkdtempSync(join(tmpdir(), 'cli-caller-'));
  const env = { DATA_DIR: dataDir };
  let service: { child: ChildProcess; base: string };
  let key: string;

  afterAll(() => {
    servers.killAll();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it('with no service running, the CLI opens the folder itself', { timeout: 180_000 }, async () => {
    const made = await admin(env, home, 'company', 'create', '--name', 'Door Co', '--slug', 'door-co', '--json');
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ slug: 'door-co' });
    expect(existsSync(join(dataDir, 'commerce-api.lock'))).toBe(false);
  });

  it('runs commands inside the service: a new key works over HTTP at once, an order ships, files are the caller’s', { timeout: 300_000 }, async () => {
    service = await servers.start('', { DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    const { origin } = new URL(service.base);
    // Only the service's user can reach its socket; the folder stays locked against a second opener.
    expect(statSync(join(dataDir, 'admin')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, 'admin', 'admin.sock')).mode & 0o777).toBe(0o600);
    await expect(createPgliteDatabase(dataDir)).rejects.toThrow(/in use by process \d+/);

    const created = await admin(env, home, 'key', 'create', '--company', 'door-co', '--json');
    expect(created.code, created.stderr).toBe(0);
    key = JSON.parse(created.stdout).key as string;
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    expect((await fetch(`${service.base}/catalog/products`, { headers })).status).toBe(200);

    writeFileSync(join(home, 'catalogue.json'), JSON.stringify(CATALOGUE));
    const imported = await admin(env, home, 'catalog', 'import', '--company', 'door-co', 'catalogue.json');
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/imported catalogue file into door-co: .*1 products, 1 variants/);
    expect(imported.stderr).toBe('imported: 1/1 products\n');

    const placed = await fetch(`${service.base}/orders`, { method: 'POST', headers, body: JSON.stringify(order('door-1')) });
    expect(placed.status).toBe(201);
    const ref = ((await placed.json()) as { data: { order_number: string } }).data.order_number;

    const shipped = await admin(env, home, 'order', 'ship', ref, '--company', 'door-co', '--awb', 'PNQ-42', '--courier', 'India Post');
    expect(shipped.code, shipped.stderr).toBe(0);
    const seen = (await (await fetch(`${service.base}/orders/${ref}`, { headers })).json()) as { data: Record<string, unknown> };
    expect(seen.data).toMatchObject({ order_status: 'shipped', shipment: { awb: 'PNQ-42', courier: 'India Post' } });

    const shown = await admin(env, home, 'order', 'show', ref, '--company', 'door-co');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^Customer: +Meera Iyer, \+919822200011$/m);
    expect(shown.stdout).toMatch(/^ {2}TEE-M +Cotton Tee +2\.000 +499\.00/m);

    const pdf = await admin(env, home, 'invoice', 'pdf', ref, '--company', 'door-co', '--out', 'invoice.pdf');
    expect(pdf.code, pdf.stderr).toBe(0);
    expect(readFileSync(join(home, 'invoice.pdf')).subarray(0, 5).toString()).toBe('%PDF-');

    // the feed URL names the service as it runs (its port), not the CLI's defaults (port 3000)
    const feed = await admin(env, home, 'catalog', 'feed', '--company', 'door-co', '--template', 'https://shop.example.in/p/{sku}', '--json');
    expect(feed.code, feed.stderr).toBe(0);
    expect(JSON.parse(feed.stdout).url).toMatch(new RegExp(`^${origin}/feeds/meta/co_\\w+/mfd_[\\w-]+\\.csv$`));
    expect(feed.stderr).toMatch(/^note: Meta cannot fetch from http:\/\/127\.0\.0\.1:\d+; set PUBLIC_URL/);

    const refused = await admin(env, home, 'key', 'list', '--company', 'no-such-company');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('error: no company with id or slug "no-such-company"');
    expect((await admin(env, home, 'order', 'move', ref, '--company', 'door-co')).code).toBe(2);
  });

  it('long work inside the service: requests are answered meanwhile, progress comes back a line a step', { timeout: 300_000 }, async () => {
    const headers = { 'x-api-key': key };
    const generating = admin(env, home, 'catalog', 'generate', '--company', 'door-co', '--products', '2500', '--variants', '1');
    let answered = 0;
    let done = false;
    void generating.then(() => (done = true));
    while (!done) {
      const res = await fetch(`${service.base}/catalog/products?limit=5`, { headers });
      expect(res.status).toBe(200);
      answered++;
    }
    const generated = await generating;
    expect(generated.code, generated.stderr).toBe(0);
    expect(generated.stderr).toBe('generated: 1000/2500 products\ngenerated: 2000/2500 products\ngenerated: 2500/2500 products\n');
    expect(answered).toBeGreaterThan(1);
  });

  it('after the service stops the CLI opens the folder itself again; a socket left by a killed service is passed over', { timeout: 300_000 }, async () => {
    service.child.kill('SIGTERM');
    await exited(service.child);
    expect(existsSync(join(dataDir, 'admin', 'admin.sock'))).toBe(false);
    const listed = await admin(env, home, 'key', 'list', '--company', 'door-co', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toHaveLength(1);

    const again = await servers.start('', { DATA_DIR: dataDir });
    again.child.kill('SIGKILL');
    await exited(again.child);
    expect(existsSync(join(dataDir, 'admin', 'admin.sock'))).toBe(true);
    const after = await admin(env, home, 'company', 'list', '--json');
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual([expect.objectContaining({ slug: 'door-co' })]);
  });
});

describe('the admin CLI while the service runs on PostgreSQL', () => {
  const servers = serverProcesses();
  let testDb: TestDatabase | undefined;
  const home = mkdtempSync(join(tmpdir(), 'cli-caller-'));

  beforeAll(async () => {
    testDb = await createTestDatabase();
  });
  afterAll(async () => {
    servers.killAll();
    await testDb?.drop();
    rmSync(home, { recursive: true, force: true });
  });

  it('connects to the server itself: a key made while the service runs works over HTTP at once; an order ships', { timeout: 300_000 }, async (t) => {
    if (!testDb?.url) return t.skip('PGlite: no PostgreSQL server to share');
    const env = { DATABASE_URL: testDb.url };
    const service = await servers.start(testDb.url);
    expect((await admin(env, home, 'company', 'create', '--name', 'Server Co', '--slug', 'server-co')).code).toBe(0);
    const created = await admin(env, home, 'key', 'create', '--company', 'server-co', '--json');
    expect(created.code, created.stderr).toBe(0);
    const headers = { 'x-api-key': JSON.parse(created.stdout).key as string, 'content-type': 'application/json' };
    expect((await fetch(`${service.base}/catalog/products`, { headers })).status).toBe(200);

    writeFileSync(join(home, 'catalogue.json'), JSON.stringify(CATALOGUE));
    expect((await admin(env, home, 'catalog', 'import', '--company', 'server-co', 'catalogue.json')).code).toBe(0);
    const placed = await fetch(`${service.base}/orders`, { method: 'POST', headers, body: JSON.stringify(order('server-1')) });
    expect(placed.status).toBe(201);
    const ref = ((await placed.json()) as { data: { order_number: string } }).data.order_number;
    const shipped = await admin(env, home, 'order', 'ship', ref, '--company', 'server-co', '--awb', 'PNQ-43');
    expect(shipped.code, shipped.stderr).toBe(0);
    const seen = (await (await fetch(`${service.base}/orders/${ref}`, { headers })).json()) as { data: Record<string, unknown> };
    expect(seen.data).toMatchObject({ order_status: 'shipped', shipment: { awb: 'PNQ-43' } });
  });
});
