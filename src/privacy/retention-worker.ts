import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { pollLoop } from '../lib/poll-loop.js';
import { companyPage } from './retention.queries.js';
import { retentionRules, retentionSettings, type AnonymiseInactiveCustomers, type RetentionRule } from './retention.service.js';

export type RetentionWorkerConfig = Pick<Config, 'RETENTION_POLL_MS' | 'RETENTION_BATCH' | 'RETENTION_PAUSE_MS' | 'RETENTION_DAY_SECONDS'>;

interface WorkerLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Where the worker's own code failed: listing companies or reading one's settings (poll), or one rule of one company (rule). */
export type RetentionWorkerStage = 'poll' | 'rule';

/** Companies read per page of a pass. */
const COMPANY_PAGE = 100;
/**
 * After a full batch the worker rests at least this many times as long as the batch took (and at least
 * RETENTION_PAUSE_MS): a purge works at most a fifth of the time, whatever the machine, so the orders beside it keep
 * their pace (bench:retention measured 0.74x of the baseline's orders/s with a fixed 50 ms pause on a loaded 2-core
 * machine; docs/performance.md).
 */
const REST_PER_WORK = 4;

/**
 * The retention worker of one service process. A pass takes every company in pages of COMPANY_PAGE (by id), reads its
 * privacy settings and runs each rule (retention.service.ts) in batches of RETENTION_BATCH rows: each batch one short
 * statement (its own transaction) found through an index on the company and the rows' age, followed while the batch
 * was full by a rest of four times its duration (at least RETENTION_PAUSE_MS), so POST /orders and the other workers never wait behind a purge (bench
 * retention, docs/performance.md). A company with nothing due costs one indexed probe per rule. Each rule that
 * removed rows logs one line with its counts (never a row's content). A rule that fails is logged and counted, and the
 * pass goes on with the next rule and company; nothing a pass does ends the process (src/lib/poll-loop.ts). Several
 * instances may run it: batches lock their rows with SKIP LOCKED, so two passes share the work.
 */
export function createRetentionWorker(deps: {
  db: Db;
  config: RetentionWorkerConfig;
  log: WorkerLog;
  /** The inactive-customer rule's work; without it that rule is not run. */
  anonymiseInactiveCustomers?: AnonymiseInactiveCustomers;
  /** Rows removed, by rule (metrics). */
  onPurged?: (rule: RetentionRule['name'], rows: number) => void;
  onError?: (stage: RetentionWorkerStage) => void;
  /** The clock (tests move it forward). */
  now?: () => Date;
  /** The rules (tests hand in one that fails); retentionRules() by default. */
  rules?: RetentionRule[];
}) {
  const { db, config, log } = deps;
  const rules = deps.rules ?? retentionRules(deps.anonymiseInactiveCustomers);
  const now = deps.now ?? (() => new Date());
  const dayMs = config.RETENTION_DAY_SECONDS * 1000;
  let stopping = false;
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** Runs one rule for one company until a batch comes back short (or the worker stops); answers the summed counts. */
  async function runRule(rule: RetentionRule, companyId: string, settings: Awaited<ReturnType<typeof retentionSettings>>): Promise<Record<string, number>> {
    const days = rule.days(settings);
    const totals: Record<string, number> = {};
    if (days === null) return totals;
    const at = now();
    const context = { cutoff: new Date(at.getTime() - days * dayMs), after: null, limit: config.RETENTION_BATCH, now: at, settings };
    while (!stopping) {
      const started = performance.now();
      const counts = await rule.batch(db, companyId, context);
      for (const [k, n] of Object.entries(counts)) totals[k] = (totals[k] ?? 0) + n;
      const first = Object.values(counts)[0] ?? 0;
      if (first < config.RETENTION_BATCH) break;
      const rest = Math.max(config.RETENTION_PAUSE_MS, (performance.now() - started) * REST_PER_WORK);
      if (rest > 0) await pause(rest);
    }
    return totals;
  }

  async function purgeCompany(companyId: string): Promise<void> {
    const settings = await retentionSettings(db, companyId);
    for (const rule of rules) {
      if (stopping) return;
      try {
        const counts = await runRule(rule, companyId, settings);
        const rows = Object.values(counts).reduce((a, b) => a + b, 0);
        if (rows === 0) continue;
        deps.onPurged?.(rule.name, rows);
        log.info({ company: companyId, rule: rule.name, ...counts }, "retention: rows past the company's retention removed");
      } catch (err) {
        deps.onError?.('rule');
        log.error({ company: companyId, rule: rule.name, err }, 'retention rule failed; tried again at the next pass');
      }
    }
  }

  /** One pass over every company; false, so the loop waits RETENTION_POLL_MS before the next. */
  async function runOnce(): Promise<boolean> {
    let after = '';
    while (!stopping) {
      const page = await companyPage(db, after, COMPANY_PAGE);
      for (const companyId of page) {
        if (stopping) break;
        try {
          await purgeCompany(companyId);
        } catch (err) {
          deps.onError?.('poll');
          log.error({ company: companyId, err }, "retention: the company's settings could not be read; tried again at the next pass");
        }
      }
      if (page.length < COMPANY_PAGE) break;
      after = page[page.length - 1];
    }
    return false;
  }

  const poller = pollLoop({
    pollMs: config.RETENTION_POLL_MS,
    runOnce,
    onError: (err) => {
      deps.onError?.('poll');
      log.error({ err }, `retention worker: pass failed; trying again in ${config.RETENTION_POLL_MS} ms`);
    },
  });

  return {
    runOnce,
    start: () => {
      stopping = false;
      poller.start();
    },
    /** Stops after the batch in flight (one short statement) and waits for it. */
    stop: () => {
      stopping = true;
      return poller.stop();
    },
  };
}

export type RetentionWorker = ReturnType<typeof createRetentionWorker>;
