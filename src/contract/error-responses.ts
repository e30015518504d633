import { z } from 'zod';
import { errorCatalogue, wireCode, type ErrorKind } from './errors.js';

export type ErrorStatus = (typeof errorCatalogue)[ErrorKind]['status'];

/**
 * Response schemas for error statuses, derived from the one error catalogue: for each status the
 * `code` values the runtime answers with (wireCode) and the catalogue's description. Route files add
 * them to `schema.response`, so the serializer checks real error bodies against what the document says.
 * Where several codes share a status (409), `kinds` names the ones the route answers; a status none of them
 * has lists all of its codes.
 */
export function errorResponses<S extends ErrorStatus>(statuses: readonly S[], kinds: readonly ErrorKind[] = []) {
  const out = {} as Record<S, ReturnType<typeof errorSchema>>;
  // Every route that can fail inside can also be refused under overload (503 with Retry-After, src/http/overload.ts).
  const all: ErrorStatus[] = statuses.includes(500 as S) ? [...statuses, 503] : [...statuses];
  for (const status of all) out[status as S] = errorSchema(status, kinds);
  return out;
}

/** The catalogue's kinds answering `status`, narrowed to `chosen` when some of them are chosen. */
export function kindsAt(status: ErrorStatus, chosen: readonly ErrorKind[] = []): ErrorKind[] {
  const kinds = (Object.keys(errorCatalogue) as ErrorKind[]).filter((k) => errorCatalogue[k].status === status);
  const picked = kinds.filter((k) => chosen.includes(k));
  return picked.length ? picked : kinds;
}

function errorSchema(status: ErrorStatus, chosen: readonly ErrorKind[]) {
  const kinds = kindsAt(status, chosen);
  if (kinds.length === 0) throw new Error(`errorResponses: no error in the catalogue answers ${status}`);
  const codes = [...new Set(kinds.map(wireCode))] as [string, ...string[]];
  const description = kinds.map((k) => errorCatalogue[k].description).join('; ');
  const meta: Record<string, unknown> = { description };
  if (status === 429 || status === 503) {
    meta.headers = { 'retry-after': { type: 'integer', description: 'Seconds to wait before retrying' } };
  }
  return z
    .object({
      error: z.object({
        code: codes.length === 1 ? z.literal(codes[0]) : z.enum(codes),
        message: z.string(),
        details: z.unknown().optional(),
      }),
    })
    .meta(meta);
}
