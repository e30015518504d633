import { customType, timestamp } from 'drizzle-orm/pg-core';

// Column kinds typed as the runner (src/db/client.ts) returns them: numeric and int8 as exact strings on both
// drivers, timestamptz as a Date, bytea as a Buffer (pg) or Uint8Array (PGlite).

/** timestamptz, read as a Date. */
export const timestamptz = () => timestamp({ withTimezone: true });

/** int8 read as decimal text: the runner never turns it into a JS number (it could exceed 2^53). */
export const bigintText = customType<{ data: string; driverData: string }>({
  dataType: () => 'bigint',
});

/** bytea: a Buffer from pg, a Uint8Array from PGlite (Buffer is one). */
export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
});
