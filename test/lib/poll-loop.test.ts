import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pollLoop } from '../../src/lib/poll-loop.js';

/**
 * The workers' polling: a poll that fails is reported and the loop polls again; a report that fails in turn
 * (a logger that threw, as on d154ba3) neither ends the polling nor escapes as an unhandled rejection, which would
 * have ended the process.
 */
const escaped: unknown[] = [];
const onRejection = (reason: unknown) => escaped.push(reason);
beforeEach(() => {
  escaped.length = 0;
  process.on('unhandledRejection', onRejection);
});
afterEach(() => {
  process.off('unhandledRejection', onRejection);
});

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('pollLoop', () => {
  it('a poll that throws is reported, and polling goes on', async () => {
    let polls = 0;
    const reported: unknown[] = [];
    const loop = pollLoop({
      pollMs: 10,
      runOnce: async () => {
        polls++;
        throw new Error('database away');
      },
      onError: (err) => reported.push(err),
    });
    loop.start();
    await settle(200);
    await loop.stop();
    expect(polls).toBeGreaterThanOrEqual(5);
    expect(reported).toHaveLength(polls);
    expect(escaped).toEqual([]);
  });

  it('when the report itself throws (poll after poll), polling goes on and nothing escapes', async () => {
    let polls = 0;
    let reports = 0;
    const loop = pollLoop({
      pollMs: 10,
      runOnce: () => {
        polls++;
        if (polls % 2) throw new Error('thrown before any promise');
        return Promise.reject(new Error('rejected'));
      },
      onError: () => {
        reports++;
        throw new TypeError("Cannot assign to read only property '0' of string 'HTTP 500'");
      },
    });
    loop.start();
    await settle(200);
    await loop.stop();
    await settle(20);
    expect(polls).toBeGreaterThanOrEqual(5);
    expect(reports).toBe(polls);
    expect(escaped).toEqual([]);
  });

  it('after failures, work found is drained again and stop() waits for the drain in flight', async () => {
    let polls = 0;
    let work = 0;
    const loop = pollLoop({
      pollMs: 10,
      runOnce: async () => {
        polls++;
        if (polls <= 3) throw new Error('not yet');
        await settle(5);
        work++;
        return work < 20;
      },
      onError: () => {
        throw new Error('report failed');
      },
    });
    loop.start();
    while (work < 20) await settle(5);
    await loop.stop();
    expect(work).toBe(20);
    expect(escaped).toEqual([]);
  });
});
