import { Decimal } from '../lib/money.js';
import type { Db } from '../db/index.js';
import type { Tenant } from '../keys/keys.service.js';
import { notFound } from '../contract/errors.js';
import { searchWords } from './catalogue.queries.js';
import { itemByRef, itemsPage, type ItemRow } from './items.queries.js';
import type { Item, ItemsQuery } from '../contract/items.js';
import type { Page } from '../contract/paging.js';

const toItem = (r: ItemRow): Item => ({ ...r, in_stock: new Decimal(r.available).gt(0) });

export function createItemService({ db }: { db: Db }) {
  return {
    async search(tenant: Tenant, query: ItemsQuery): Promise<Page<Item>> {
      const { rows, total } = await itemsPage(db, tenant.companyId, searchWords(query.search), query.limit, query.offset);
      return { rows: rows.map(toItem), total };
    },

    /** By variant SKU, variant id or barcode. */
    async get(tenant: Tenant, id: string): Promise<Item> {
      const row = await itemByRef(db, tenant.companyId, id);
      if (!row) throw notFound(`no orderable item "${id}"`, [{ path: 'id', message: 'no active variant with this SKU, id or barcode' }]);
      return toItem(row);
    },
  };
}

export type ItemService = ReturnType<typeof createItemService>;
