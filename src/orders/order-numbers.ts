import type { Db } from '../db/index.js';
import { allocateOrderNumbers } from './orders.queries.js';

/** Numbers one allocation takes for this process: one counter-row update per this many orders of a company. */
export const ORDER_NUMBER_BLOCK = 20;

export interface OrderNumbers {
  /**
   * The next `ORD-<digits>` number of the company, unique within it. Takes a block from the company's counter
   * (allocate_order_numbers(), src/db/functions/allocate_order_numbers.sql) in a statement of its own when this process has none left, so
   * call it before opening the order's transaction, never inside one (on one connection it would wait for it).
   */
  next(companyId: string): Promise<string>;
}

/**
 * Per-company order numbers handed out from blocks held in memory. A company's numbers from one process are
 * consecutive; several processes interleave their blocks (numbers unique, not in time order); numbers left in
 * a block when the process stops are never used (gaps). Concurrent callers of one company share one refill.
 */
export function createOrderNumbers(db: Db, block: number = ORDER_NUMBER_BLOCK): OrderNumbers {
  const blocks = new Map<string, { next: bigint; end: bigint }>();
  const refills = new Map<string, Promise<void>>();

  async function refill(companyId: string): Promise<void> {
    const first = BigInt(await allocateOrderNumbers(db, companyId, block));
    blocks.set(companyId, { next: first, end: first + BigInt(block) });
  }

  return {
    async next(companyId) {
      for (;;) {
        const b = blocks.get(companyId);
        if (b && b.next < b.end) return `ORD-${b.next++}`;
        let pending = refills.get(companyId);
        if (!pending) {
          pending = refill(companyId).finally(() => refills.delete(companyId));
          refills.set(companyId, pending);
        }
        await pending;
      }
    },
  };
}

const perDatabase = new WeakMap<Db, OrderNumbers>();

/** The process's one allocator for this database handle, so every writer of orders shares its blocks. */
export function orderNumbersFor(db: Db): OrderNumbers {
  let numbers = perDatabase.get(db);
  if (!numbers) {
    numbers = createOrderNumbers(db);
    perDatabase.set(db, numbers);
  }
  return numbers;
}
