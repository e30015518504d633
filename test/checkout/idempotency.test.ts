import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { idempotent, requestHash, type Answer } from '../../src/checkout/idempotency.js';
import { useTestApp } from '../helpers/app.js';
import { uid } from '../helpers/orders.js';

/** UCP's Idempotency-Key: one answer per key and body, kept and replayed; another body or a request in flight is refused. */

const ctx = useTestApp();

async function company(): Promise<string> {
  return (await ctx.services.companies.create({ kind: 'cli', name: 'test' }, { name: 'Idem', slug: `idem-${uid()}` })).id;
}

const run = (companyId: string, key: string | undefined, body: unknown, operation: () => Promise<Answer>, scope = 'POST checkout-sessions') =>
  idempotent(ctx.db, { companyId, scope, key, body }, operation);

describe('idempotency records', () => {
  it('answers once per key: a repeat with the same body gets the first answer byte for byte, without running again', async () => {
    const c = await company();
    let runs = 0;
    const op = async () => ({ status: 201, body: `{"id":"chk_${++runs}"}` });
    const first = await run(c, 'k1', { a: 1, b: [1, 2] }, op);
    const again = await run(c, 'k1', { b: [1, 2], a: 1 }, op); // the same request, its keys in another order
    expect(first).toEqual({ kind: 'answered', answer: { status: 201, body: '{"id":"chk_1"}' }, replayed: false });
    expect(again).toEqual({ kind: 'answered', answer: { status: 201, body: '{"id":"chk_1"}' }, replayed: true });
    expect(runs).toBe(1);
  });

  it('refuses the same key with another body, and keeps refused answers (4xx) as answers', async () => {
    const c = await company();
    const refused = await run(c, 'k2', { q: 1 }, async () => ({ status: 400, body: '{"detail":"Insufficient stock"}' }));
    expect(refused.kind).toBe('answered');
    expect(await run(c, 'k2', { q: 2 }, async () => ({ status: 201, body: '{}' }))).toEqual({ kind: 'conflict', reason: 'different_request' });
    expect(await run(c, 'k2', { q: 1 }, async () => ({ status: 201, body: '{}' }))).toEqual({
      kind: 'answered',
      answer: { status: 400, body: '{"detail":"Insufficient stock"}' },
      replayed: true,
    });
  });

  it('scopes a key by company and by operation: the same key elsewhere is another request', async () => {
    const [a, b] = [await company(), await company()];
    const op = (body: string) => async () => ({ status: 200, body });
    await run(a, 'same', {}, op('"a"'));
    expect(await run(b, 'same', {}, op('"b"'))).toMatchObject({ answer: { body: '"b"' }, replayed: false });
    expect(await run(a, 'same', {}, op('"a-put"'), 'PUT checkout-sessions/chk_1')).toMatchObject({ answer: { body: '"a-put"' }, replayed: false });
  });

  it('truly parallel requests with one key: exactly one runs, the others are told it is in progress or get its answer', async () => {
    const c = await company();
    let runs = 0;
    const op = async () => {
      runs++;
      await new Promise((r) => setTimeout(r, 50));
      return { status: 201, body: '{"id":"one"}' };
    };
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => run(c, 'race', { x: 1 }, op)));
    expect(runs).toBe(1);
    expect(outcomes.filter((o) => o.kind === 'answered' && !o.replayed)).toHaveLength(1);
    for (const o of outcomes) expect(o.kind === 'conflict' ? o.reason : o.answer.body).toMatch(/in_progress|"id":"one"/);
  });

  it('frees the key when the operation fails (a fault or a 5xx): a retry runs it again', async () => {
    const c = await company();
    await expect(
      run(c, 'k3', {}, async () => {
        throw new Error('database went away');
      }),
    ).rejects.toThrow('database went away');
    expect(await run(c, 'k3', {}, async () => ({ status: 503, body: '{}' }))).toMatchObject({ replayed: false });
    expect(await run(c, 'k3', {}, async () => ({ status: 201, body: '"ok"' }))).toMatchObject({ answer: { status: 201 }, replayed: false });
    const [row] = await ctx.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM idempotency_records WHERE company_id = ${c} AND key = 'k3'`);
    expect(row.n).toBe(1);
  });

  it('takes over a claim left pending by a request that died, once it is stale', async () => {
    const c = await company();
    const hash = requestHash({});
    await ctx.db.query(sql`
      INSERT INTO idempotency_records (company_id, scope, key, request_hash, status_code, response, created_at)
      VALUES (${c}, 'POST checkout-sessions', 'dead', ${hash}, 0, '', now() - interval '2 minutes'),
             (${c}, 'POST checkout-sessions', 'alive', ${hash}, 0, '', now())`);
    expect(await run(c, 'dead', {}, async () => ({ status: 201, body: '"new"' }))).toMatchObject({ answer: { body: '"new"' }, replayed: false });
    expect(await run(c, 'alive', {}, async () => ({ status: 201, body: '"new"' }))).toEqual({ kind: 'conflict', reason: 'in_progress' });
  });

  it('without a key the operation simply runs', async () => {
    const c = await company();
    let runs = 0;
    const op = async () => ({ status: 201, body: String(++runs) });
    await run(c, undefined, {}, op);
    await run(c, undefined, {}, op);
    expect(runs).toBe(2);
  });
});
