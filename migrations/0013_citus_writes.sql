-- Order writes that run unchanged on one PostgreSQL, on PGlite and on Citus (tables distributed by company_id;
-- issue 21). Citus plans every statement of these functions on the coordinator and sends it to the one shard
-- of p_company (a router statement: each filters by company_id = p_company). It refuses, and these replace:
--   * a non-IMMUTABLE function inside CASE or COALESCE (the order number taken inside coalesce(), now() in a
--     CASE of upsert_customer's DO UPDATE SET): the value is computed first, or taken from EXCLUDED;
--   * now() in an ON CONFLICT DO UPDATE SET: the row's own timestamp is EXCLUDED.updated_at (the column default,
--     evaluated once for the statement);
--   * an INSERT … SELECT whose untyped PL/pgSQL parameters reach the shard ("could not determine data type of
--     parameter $1"): allocate_order_numbers reads its starting number in a statement of its own.
-- upsert_customer becomes PL/pgSQL: Citus crashed on the SQL-language version (a composite-returning SQL
-- function whose body is an INSERT … ON CONFLICT on a distributed table). Behaviour is that of 0007/0009/0011.

-- History: the live body is src/db/functions/upsert_customer.sql (applied by migrate() after the migrations).
-- Finds or creates the customer with this phone (as in 0007): name and email on file never change; the address
-- is filled only when the record has none, and then updated_at moves to this statement's time.
CREATE OR REPLACE FUNCTION upsert_customer(p_company text, cust jsonb) RETURNS customers
LANGUAGE plpgsql AS $$
DECLARE
  c customers%ROWTYPE;
BEGIN
  INSERT INTO customers AS cu (company_id, id, name, phone_e164, email, address_name, address_line1, address_line2, city, state, pincode, address_phone)
  VALUES (p_company, cust->>'id', cust->>'name', cust->>'phone_e164', cust->>'email', cust->'address'->>'name', cust->'address'->>'line1',
          cust->'address'->>'line2', cust->'address'->>'city', cust->'address'->>'state', cust->'address'->>'pincode', cust->'address'->>'phone')
  ON CONFLICT (company_id, phone_e164) DO UPDATE SET
    address_name = CASE WHEN cu.address_line1 IS NULL THEN EXCLUDED.address_name ELSE cu.address_name END,
    address_line1 = CASE WHEN cu.address_line1 IS NULL THEN EXCLUDED.address_line1 ELSE cu.address_line1 END,
    address_line2 = CASE WHEN cu.address_line1 IS NULL THEN EXCLUDED.address_line2 ELSE cu.address_line2 END,
    city = CASE WHEN cu.address_line1 IS NULL THEN EXCLUDED.city ELSE cu.city END,
    state = CASE WHEN cu.address_line1 IS NULL THEN EXCLUDED.state ELSE cu.state END,
    pincode = CASE WHEN cu.address_line1 IS NULL THEN EXCLUDED.pincode ELSE cu.pincode END,
    address_phone = CASE WHEN cu.address_line1 IS NULL THEN EXCLUDED.address_phone ELSE cu.address_phone END,
    updated_at = CASE WHEN cu.address_line1 IS NULL AND EXCLUDED.address_line1 IS NOT NULL THEN EXCLUDED.updated_at ELSE cu.updated_at END
  RETURNING * INTO c;
  RETURN c;
END $$;

-- History: the live body is src/db/functions/allocate_order_numbers.sql (applied by migrate() after the migrations).
-- As in 0009. The first call for a company reads its highest existing number in a statement of its own, then
-- inserts the counter row (a concurrent first call is absorbed by ON CONFLICT, which adds to its row).
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

-- History: the live body is src/db/functions/place_order.sql (applied by migrate() after the migrations).
-- place_order() as in 0011; an order without a number from the service (an instance of an older release) takes
-- one before the INSERT instead of inside its coalesce().
CREATE OR REPLACE FUNCTION place_order(p_company text, p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  ord jsonb := p->'order';
  num text := ord->>'order_number';
  c customers%ROWTYPE;
  o orders%ROWTYPE;
BEGIN
  c := upsert_customer(p_company, p->'customer');

  IF num IS NULL THEN
    num := 'ORD-' || allocate_order_numbers(p_company, 1);
  END IF;
  INSERT INTO orders (company_id, id, order_number, external_reference, customer_id, status, payment, payment_reference, notes, amount, delivery_address, location_id)
  VALUES (p_company, ord->>'id', num, ord->>'external_reference', c.id, 'confirmed',
          ord->>'payment', ord->>'payment_reference', ord->>'notes', (ord->>'amount')::numeric, nullif(ord->'delivery_address', 'null'::jsonb), ord->>'location_id')
  ON CONFLICT (company_id, external_reference) DO NOTHING
  RETURNING * INTO o;
  IF o.id IS NULL THEN
    RAISE EXCEPTION 'external_reference already used' USING ERRCODE = 'CS200';
  END IF;

  INSERT INTO order_lines (company_id, order_id, line_no, variant_id, sku, name, quantity, unit_price, line_total, tax_rate)
  SELECT p_company, o.id, x.ord, x.l->>'variant_id', x.l->>'sku', x.l->>'name', (x.l->>'quantity')::numeric,
         (x.l->>'unit_price')::numeric, (x.l->>'line_total')::numeric, (x.l->>'tax_rate')::numeric
    FROM jsonb_array_elements(p->'lines') WITH ORDINALITY AS x(l, ord);
  IF p->>'booking_job_id' IS NOT NULL THEN
    PERFORM enqueue_courier_booking(p_company, p->>'booking_job_id', o.id);
  END IF;

  PERFORM reserve_stock(p_company, ord->>'location_id', o.id, p->'reservations');

  RETURN jsonb_build_object(
    'id', o.id, 'order_number', o.order_number, 'status', o.status, 'amount', o.amount::text, 'currency', o.currency,
    'created_at', o.created_at, 'external_reference', o.external_reference, 'payment', o.payment,
    'delivery_address', o.delivery_address, 'customer_name', c.name, 'customer_phone', c.phone_e164);
END $$;
