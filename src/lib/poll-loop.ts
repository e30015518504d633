/**
 * The polling shared by the service's workers (courier bookings, webhook deliveries): run `runOnce` until it finds
 * nothing, then wait `pollMs` and start again; an error ends that drain (reported through `onError`) and the next poll
 * tries again. Nothing a poll does can end the polling or escape as an unhandled rejection: not `runOnce` throwing
 * (synchronously or not), not `onError` throwing in turn (a logger that throws there, say).
 * `stop()` ends polling and resolves when the drain in flight has returned.
 */
export function pollLoop(opts: { pollMs: number; runOnce: () => Promise<boolean>; onError: (err: unknown) => void }) {
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let loop: Promise<void> | null = null;
  let reportFailed = false;

  function report(err: unknown): void {
    try {
      opts.onError(err);
    } catch {
      // The report failed too: said once per loop, with nothing of the error (it may hold personal data).
      if (!reportFailed) process.emitWarning('a worker poll failed and its error could not be reported', { code: 'POLL_REPORT_FAILED' });
      reportFailed = true;
    }
  }

  async function drain(): Promise<void> {
    while (running) {
      try {
        if (!(await opts.runOnce())) return;
      } catch (err) {
        report(err);
        return;
      }
    }
  }

  function schedule(ms: number): void {
    timer = setTimeout(() => {
      loop = drain().finally(() => {
        loop = null;
        if (running) schedule(opts.pollMs);
      });
    }, ms);
  }

  return {
    start(): void {
      if (running) return;
      running = true;
      schedule(0);
    },
    /** Stops polling; the promise resolves once the drain in flight (if any) has returned. */
    stop(): Promise<void> {
      running = false;
      clearTimeout(timer);
      return loop ?? Promise.resolve();
    },
  };
}

/**
 * Companies taken in turn: `findDue` lists companies with due work (one cross-company read, no locks), `claimIn`
 * claims work within one company (a router statement; undefined when it found none). A company that gave work goes
 * to the back of the list, one that gave none is dropped; the list is read again when empty, so a long drain costs
 * about one statement per claim and no company waits behind another's backlog.
 */
export function companiesInTurn<T>(findDue: () => Promise<string[]>, claimIn: (companyId: string) => Promise<T | undefined>) {
  let due: string[] = [];
  return async function next(): Promise<{ companyId: string; claimed: T } | undefined> {
    if (due.length === 0) due = await findDue();
    while (due.length > 0) {
      const companyId = due.shift()!;
      const claimed = await claimIn(companyId);
      if (claimed !== undefined) {
        due.push(companyId);
        return { companyId, claimed };
      }
    }
    return undefined;
  };
}
