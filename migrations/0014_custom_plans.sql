-- History: each function's plan mode today is the `-- plan:` line of src/db/functions/<name>.sql, set by migrate()
-- (src/db/functions.ts) after the migrations; a function file repeats no SET clause.
-- Every PL/pgSQL function that writes or reads a company's rows plans each of its statements with the values it
-- was given (issue 21). PL/pgSQL caches a statement's plan and, after five calls on a connection, may switch to a
-- generic plan in which p_company is an unknown parameter. On one PostgreSQL that changes nothing visible; on
-- Citus a generic plan of a statement Citus cannot prune later (an UPDATE … FROM jsonb_array_elements(…) in
-- reserve_stock, for one) is sent to every shard of every company: a multi-shard write inside an order, a
-- distributed lock across companies. force_custom_plan keeps every statement a router statement on the one shard
-- of p_company. The cost on one node is a re-plan of a few small statements per call (measured in
-- docs/scaling.md). A later CREATE OR REPLACE of one of these functions must repeat the SET clause:
-- test/db/schema.test.ts fails otherwise.
ALTER FUNCTION place_order(text, jsonb) SET plan_cache_mode = force_custom_plan;
ALTER FUNCTION reserve_stock(text, text, text, jsonb) SET plan_cache_mode = force_custom_plan;
ALTER FUNCTION upsert_customer(text, jsonb) SET plan_cache_mode = force_custom_plan;
ALTER FUNCTION allocate_order_numbers(text, integer) SET plan_cache_mode = force_custom_plan;
ALTER FUNCTION enqueue_courier_booking(text, text, text) SET plan_cache_mode = force_custom_plan;
ALTER FUNCTION refresh_listing(text, text[]) SET plan_cache_mode = force_custom_plan;
