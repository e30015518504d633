// Every table of the migrated database, declared for types (rows as `$inferSelect`). The SQL files in
// migrations/ stay the source of truth; test/db/schema.test.ts proves the two agree.
export * from './companies.js';
export * from './service.js';
export * from './catalogue.js';
export * from './customers.js';
export * from './orders.js';
export * from './fulfilment.js';
export * from './select.js';
export * from './events.js';
export * from './checkout.js';
export * from './payments.js';
export * from './whatsapp.js';
export * from './privacy.js';
