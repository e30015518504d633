import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { keyLookups, recordingDatabase, requestStatements } from '../helpers/round-trips.js';
import { BASE, orderBody, shop } from '../helpers/orders.js';
import { define, TOOLS, type ToolContext } from '../../src/mcp/tools.js';
import { deferKeyCheck, type FullAuthentication } from '../../src/keys/key-check.js';
import type { Services } from '../../src/services.js';
import type { Tenant } from '../../src/keys/keys.service.js';

/**
 * A tool that writes never runs before its key is settled: it cannot opt in to the key checked in its first statement
 * (src/mcp/tools.ts), and is authenticated in full before it runs, like every tool that does not opt in.
 */

const WRITES = { title: 'Writes', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** Services that record which of them a tool reached (a tool that reaches none did not run). */
function tripwire(): { services: Services; reached: string[] } {
  const reached: string[] = [];
  const services = new Proxy({} as Services, {
    get: (_target, name) => {
      reached.push(String(name));
      return new Proxy(() => {}, { get: () => () => Promise.reject(new Error('a tripwire, not a service')) });
    },
  });
  return { services, reached };
}

/** A request's tenant served from memory, whose full authentication answers `outcome`. */
function tenantFromMemory(outcome: FullAuthentication): Tenant {
  const tenant: Tenant = { companyId: 'cmp_test', keyId: 'key_test', keyPrefix: 'cok_test', permissions: ['commerce'] };
  deferKeyCheck(tenant, async () => outcome);
  return tenant;
}

describe('a tool definition', () => {
  it('that writes cannot check its key in its first statement: refused by the compiler and at definition', () => {
    const optingIn = {
      name: 'write_something',
      title: 'Writes',
      description: 'writes',
      input: z.object({}),
      output: z.object({}),
      annotations: WRITES,
      keyInFirstStatement: true,
      run: async () => ({}),
    };
    // @ts-expect-error a tool that writes cannot opt in
    expect(() => define(optingIn)).toThrow(/writes: it cannot check its key in its first statement/);
  });

  it('that only reads may opt in', () => {
    const tool = define({
      name: 'read_something',
      title: 'Reads',
      description: 'reads',
      input: z.object({}),
      output: z.object({}),
      annotations: { ...WRITES, readOnlyHint: true },
      keyInFirstStatement: true,
      run: async () => ({}),
    });
    expect(tool.keyInFirstStatement).toBe(true);
  });

  it('of every tool that writes leaves the opt-in out', () => {
    const writing = TOOLS.filter((t) => !t.annotations.readOnlyHint);
    expect(writing.map((t) => t.name).sort()).toEqual([
      'cancel_checkout',
      'complete_checkout',
      'confirm_cod_order',
      'correct_customer_data',
      'create_checkout',
      'create_payment_link',
      'erase_customer_data',
      'export_customer_data',
      'place_order',
      'set_customer_consent',
      'update_checkout',
    ]);
    expect(writing.filter((t) => t.keyInFirstStatement).map((t) => t.name)).toEqual([]);
  });
});

describe('every tool without the opt-in, each tool that writes among them', () => {
  const inFull = TOOLS.filter((t) => !t.keyInFirstStatement);
  const ctx = (tenant: Tenant, services: Services): ToolContext => ({ services, tenant, origin: 'http://localhost' });

  it.each(inFull.map((t) => [t.name, t] as const))('%s: on a refused key, throws the 401 without reaching any service', async (_name, tool) => {
    const { services, reached } = tripwire();
    const run = tool.run(ctx(tenantFromMemory({ ok: false, reason: 'unauthorized' }), services), {});
    await expect(run).rejects.toMatchObject({ kind: 'unauthorized', status: 401 });
    expect(reached).toEqual([]);
  });

  it.each(inFull.map((t) => [t.name, t] as const))('%s: on a good key, runs once the key is settled', async (_name, tool) => {
    const { services, reached } = tripwire();
    await tool.run(ctx(tenantFromMemory({ ok: true }), services), {}).catch(() => {});
    expect(reached.length).toBeGreaterThan(0);
  });

  it('the tools that opt in run on a key from memory (their first statement settles it)', async () => {
    const optedIn = TOOLS.filter((t) => t.keyInFirstStatement);
    expect(optedIn.map((t) => t.name).sort()).toEqual(['browse_catalog', 'get_order', 'get_product_details', 'list_categories']);
    for (const tool of optedIn) {
      const { services, reached } = tripwire();
      await tool.run(ctx(tenantFromMemory({ ok: false, reason: 'unauthorized' }), services), {}).catch(() => {});
      expect(reached, tool.name).not.toEqual([]);
    }
  });
});

describe('a real /mcp call of a tool that writes', () => {
  let testDb: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  let recorder: ReturnType<typeof recordingDatabase>;
  const UNKNOWN = `cok_${'A'.repeat(12)}_${'B'.repeat(32)}`;
  const TEE = [{ sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', name: 'M', selling_price: '299.00', stock: '5' }] }];

  beforeAll(async () => {
    testDb = await createTestDatabase();
    recorder = recordingDatabase(testDb.db);
    a = await buildTestApp(testDb.db);
    b = await buildTestApp(recorder);
  });
  afterAll(async () => {
    await a?.app.close();
    await b?.app.close();
    await testDb?.drop();
  });

  const placeOrder = (key: string) =>
    b.app.inject({
      method: 'POST',
      url: `${BASE}/mcp`,
      headers: { 'x-api-key': key, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'place_order', arguments: orderBody() } },
    });
  const written = async (companyId: string) =>
    (
      await testDb.db.query<{ n: number }>(
        sql`SELECT (SELECT count(*) FROM orders WHERE company_id = ${companyId}) + (SELECT count(*) FROM customers WHERE company_id = ${companyId})
                 + (SELECT count(*) FROM stock_reservations WHERE company_id = ${companyId}) AS n`,
      )
    )[0].n;

  it('with a key this instance knows: the key is read in full before the tool reads or writes anything', async () => {
    const s = await shop(a, TEE);
    expect((await placeOrder(s.key)).statusCode).toBe(200); // the key is now known to `b`
    recorder.statements.length = 0;
    const res = await placeOrder(s.key);
    expect(res.json().result.structuredContent.data.order_status).toBeDefined();
    const statements = requestStatements(recorder.statements);
    expect(keyLookups(statements)).toHaveLength(1);
    expect(statements[0]).toBe(keyLookups(statements)[0]);
  });

  it('with that key revoked through another instance: the same 401 as an unknown key, and nothing written', async () => {
    const s = await shop(a, TEE);
    expect((await placeOrder(s.key)).statusCode).toBe(200);
    await a.services.keys.revoke(s.companyId, { kind: 'cli', name: 'test' }, s.keyRecord.id);
    const before = await written(s.companyId);
    recorder.statements.length = 0;
    const refused = await placeOrder(s.key);
    const statements = requestStatements(recorder.statements);
    const unknown = await placeOrder(UNKNOWN);
    expect(refused.statusCode).toBe(401);
    expect(refused.body).toBe(unknown.body);
    expect(Object.keys(refused.headers).sort()).toEqual(Object.keys(unknown.headers).sort());
    expect(await written(s.companyId)).toBe(before);
    // the tool never ran: its key's read is the request's only statement
    expect(statements).toEqual(keyLookups(statements));
  });
});
