-- Takes p_count consecutive order numbers for the company and returns the first. Call it in its own statement,
-- outside any long transaction: the counter row stays locked until the caller's transaction ends. The first call
-- for a company reads its highest existing number in a statement of its own, then inserts the counter row (a
-- concurrent first call is absorbed by ON CONFLICT, which adds to its row). Every statement names p_company (a
-- router statement on Citus).
-- plan: postgres=auto citus=custom
CREATE OR REPLACE FUNCTION allocate_order_numbers(p_company text, p_count integer) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  first bigint;
  start bigint;
BEGIN
  IF p_count IS NULL OR p_count < 1 THEN
    RAISE EXCEPTION 'allocate_order_numbers: count must be at least 1';
  END IF;
  UPDATE order_number_counters SET next_number = next_number + p_count
   WHERE company_id = p_company
  RETURNING next_number - p_count INTO first;
  IF FOUND THEN
    RETURN first;
  END IF;
  SELECT greatest(100001, coalesce(max(substring(o.order_number FROM 5)::bigint) + 1, 100001)) INTO start
    FROM orders o
   WHERE o.company_id = p_company AND o.order_number ~ '^ORD-[0-9]{1,18}$';
  INSERT INTO order_number_counters AS n (company_id, next_number)
  VALUES (p_company, start + p_count)
  ON CONFLICT (company_id) DO UPDATE SET next_number = n.next_number + p_count
  RETURNING next_number - p_count INTO first;
  RETURN first;
END $$;
