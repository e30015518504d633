import { z } from 'zod';

/** A page as a service returns it: the rows asked for and the exact total that matched. */
export interface Page<T> {
  rows: T[];
  total: number;
}

/** The spec's paging envelope, added by the doors (REST route, MCP tool) around a service's page. */
export function pageEnvelope<T>(page: Page<T>, { limit, offset }: { limit: number; offset: number }) {
  return { data: page.rows, count: page.rows.length, total: page.total, limit, offset, has_more: offset + page.rows.length < page.total };
}

/** The response schema of a paging envelope of `item`. */
export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    count: z.number().int(),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
    has_more: z.boolean(),
  });
