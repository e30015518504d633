import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runSoak, seedSoakCompany } from '../../bench/soak-run.js';
import { useTestApp } from '../helpers/app.js';

/** The short soak (the long one is `npm run soak`): one listening instance, the full audit. */
const ctx = useTestApp({ RATE_LIMIT_MAX: '1000000' });
const ORDERS = Number(process.env.SOAK_TEST_ORDERS ?? 600);

describe('soak (short)', () => {
  it(`${ORDERS} orders from 20 parallel clients over hot and cold variants, with browse/detail/lookup traffic: nothing lost, oversold or duplicated`, async () => {
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}${ctx.config.BASE_PATH}`;
    const seed = await seedSoakCompany(ctx.db, ctx.services, { hot: 4, cold: 96, hotStock: 30 });
    const report = await runSoak(seed, { db: ctx.db, baseUrls: [base], orders: ORDERS, clients: 20, log: console.log, progressEvery: 5000 });
    const { audit, ...figures } = report;
    console.log(`[soak] ${JSON.stringify({ ...figures, totals: audit.totals })}`);
    expect(report.problems).toEqual([]);
    expect(report.otherStatuses).toEqual({});
    expect(report.created + report.refusedOutOfStock).toBe(ORDERS);
    // the hot variants sold out, so refusals were exercised, and never below zero
    expect(report.refusedOutOfStock).toBeGreaterThan(0);
    expect(report.minAvailableSeen).toBe(0);
    expect(report.samples).toBeGreaterThan(10);
    expect(report.retriesSameOrder).toBe(report.retries);
    expect(audit.totals.orders).toBe(report.created);
  }, 120_000);
});
