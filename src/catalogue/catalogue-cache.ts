import type { Db } from '../db/index.js';
import { ModelBuilder, type CatalogueModel } from './read-model.js';
import { loadCatalogue } from './read-model.queries.js';

export interface CatalogueCacheStats {
  /** models built since start: first use, a version change, or a return after eviction */
  builds: number;
  /** models dropped to stay under the cap: each one is rebuilt (seconds for a large company) when asked for again */
  evictions: number;
  companies: number;
  bytes: number;
  capBytes: number;
}

export interface CatalogueCache {
  /** The company's model: the one held, else built (parallel callers share one build). */
  get(companyId: string): Promise<CatalogueModel>;
  /**
   * A model newer than `stale`: a request saw another version in the database. Callers that saw the same stale model
   * share one rebuild.
   */
  refresh(companyId: string, stale: CatalogueModel): Promise<CatalogueModel>;
  /** Builds and evictions so far, the models held, their estimated size and the cap (tests and metrics). */
  stats(): CatalogueCacheStats;
}

/**
 * Per-company catalogue models held in this process, least recently used first out once their estimated size passes
 * `capBytes` (the model just built always stays, even alone over the cap). Nothing here is shared between instances:
 * each one rebuilds when a request shows it the database's version moved (docs/decisions.md).
 */
export function createCatalogueCache({ db, capBytes }: { db: Db; capBytes: number }): CatalogueCache {
  const held = new Map<string, CatalogueModel>(); // in use order: the first is the least recently used
  const building = new Map<string, Promise<CatalogueModel>>();
  let bytes = 0;
  let builds = 0;
  let evictions = 0;

  function keep(companyId: string, model: CatalogueModel): void {
    const old = held.get(companyId);
    if (old) {
      held.delete(companyId);
      bytes -= old.bytes;
    }
    held.set(companyId, model);
    bytes += model.bytes;
    for (const [id, m] of held) {
      if (bytes <= capBytes || id === companyId) break;
      held.delete(id);
      bytes -= m.bytes;
      evictions++;
    }
  }

  function build(companyId: string): Promise<CatalogueModel> {
    let pending = building.get(companyId);
    if (!pending) {
      builds++;
      const builder = new ModelBuilder();
      pending = loadCatalogue(db, companyId, builder)
        .then(() => {
          const model = builder.finish();
          keep(companyId, model);
          return model;
        })
        .finally(() => building.delete(companyId));
      building.set(companyId, pending);
    }
    return pending;
  }

  return {
    async get(companyId) {
      const model = held.get(companyId);
      if (!model) return build(companyId);
      held.delete(companyId);
      held.set(companyId, model);
      return model;
    },
    async refresh(companyId, stale) {
      const current = held.get(companyId);
      if (current && current !== stale) return current;
      if (current === stale) {
        held.delete(companyId);
        bytes -= stale.bytes;
      }
      return build(companyId);
    },
    stats: () => ({ builds, evictions, companies: held.size, bytes, capBytes }),
  };
}
