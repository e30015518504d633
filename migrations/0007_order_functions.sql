-- Order placement in one round trip. Pricing, validation and the choice of address stay in the service;
-- these functions are the transactional core, so a call is one statement and one implicit transaction
-- (no BEGIN/COMMIT round trips) and a hot SKU's row lock is held for microseconds, not network time.

-- History: the live body is src/db/functions/reserve_stock.sql (applied by migrate() after the migrations).
-- The one place stock is reserved. Locks the ship-from stock rows of the lines in byte order of variant id
-- (so orders over the same variants cannot deadlock), checks availability, then raises the counter and
-- records one open reservation per line: reserved = sum(open reservations), always.
-- p_lines: [{ "variant_id", "quantity" (decimal text), "product_id" (as the caller sent it), "reservation_id" }]
-- Short stock raises SQLSTATE CS409 with DETAIL = [{ product_id, requested, available }] and changes nothing.
CREATE FUNCTION reserve_stock(p_company text, p_location text, p_order text, p_lines jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  short jsonb;
BEGIN
  PERFORM 1 FROM stock_levels s
   WHERE s.company_id = p_company AND s.location_id = p_location
     AND s.variant_id IN (SELECT l->>'variant_id' FROM jsonb_array_elements(p_lines) l)
   ORDER BY s.variant_id COLLATE "C"
   FOR UPDATE;

  SELECT jsonb_agg(jsonb_build_object(
           'product_id', x.l->>'product_id',
           'requested', x.l->>'quantity',
           'available', greatest(coalesce(s.on_hand - s.reserved, 0), 0)::text) ORDER BY x.ord)
    INTO short
    FROM jsonb_array_elements(p_lines) WITH ORDINALITY AS x(l, ord)
    LEFT JOIN stock_levels s ON s.company_id = p_company AND s.location_id = p_location AND s.variant_id = x.l->>'variant_id'
   WHERE greatest(coalesce(s.on_hand - s.reserved, 0), 0) < (x.l->>'quantity')::numeric;
  IF short IS NOT NULL THEN
    RAISE EXCEPTION 'insufficient stock' USING ERRCODE = 'CS409', DETAIL = short::text;
  END IF;

  UPDATE stock_levels s SET reserved = s.reserved + (l->>'quantity')::numeric, updated_at = now()
    FROM jsonb_array_elements(p_lines) l
   WHERE s.company_id = p_company AND s.location_id = p_location AND s.variant_id = l->>'variant_id';
  INSERT INTO stock_reservations (company_id, id, order_id, variant_id, location_id, quantity)
  SELECT p_company, l->>'reservation_id', p_order, l->>'variant_id', p_location, (l->>'quantity')::numeric
    FROM jsonb_array_elements(p_lines) l;
END $$;

-- History: the live body is src/db/functions/upsert_customer.sql (applied by migrate() after the migrations).
-- Finds or creates the customer with this phone. The record keeps what it knows: name and email on file
-- never change; the address is filled only when the record has none. ON CONFLICT DO UPDATE returns the row
-- even when a concurrent transaction created it after our snapshot (it waits for that transaction), and its
-- row lock serialises one customer's concurrent orders.
-- cust: { id, name, phone_e164, email, address { name, line1, line2, city, state, pincode, phone } | null }
CREATE FUNCTION upsert_customer(p_company text, cust jsonb) RETURNS customers
LANGUAGE sql AS $$
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
    updated_at = CASE WHEN cu.address_line1 IS NULL AND EXCLUDED.address_line1 IS NOT NULL THEN now() ELSE cu.updated_at END
  RETURNING *
$$;

-- History: the live body is src/db/functions/place_order.sql (applied by migrate() after the migrations).
-- POST /orders' writes, all or nothing. p carries what the service decided:
--   customer { id, name, phone_e164, email, address { name, line1, line2, city, state, pincode, phone } | null }
--   order { id, external_reference, payment, payment_reference, notes, amount, delivery_address | null, location_id }
--   lines [{ variant_id, sku, name, quantity, unit_price, line_total, tax_rate }]
--   reservations (as reserve_stock), booking_job_id | null
-- The customer is found or created (upsert_customer). The order insert waits on the external_reference index for a concurrent first
-- attempt; when the reference is taken it raises SQLSTATE CS200 and nothing is kept. Lines and the job are
-- written before the stock rows are locked. Returns the order's columns and the customer's name and phone.
CREATE FUNCTION place_order(p_company text, p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  ord jsonb := p->'order';
  c customers%ROWTYPE;
  o orders%ROWTYPE;
BEGIN
  c := upsert_customer(p_company, p->'customer');

  INSERT INTO orders (company_id, id, order_number, external_reference, customer_id, status, payment, payment_reference, notes, amount, delivery_address, location_id)
  VALUES (p_company, ord->>'id', 'ORD-' || nextval('order_number_seq'), ord->>'external_reference', c.id, 'confirmed', ord->>'payment',
          ord->>'payment_reference', ord->>'notes', (ord->>'amount')::numeric, nullif(ord->'delivery_address', 'null'::jsonb), ord->>'location_id')
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
    INSERT INTO jobs (company_id, id, kind, order_id, status) VALUES (p_company, p->>'booking_job_id', 'book_courier', o.id, 'pending')
    ON CONFLICT DO NOTHING;
  END IF;

  PERFORM reserve_stock(p_company, ord->>'location_id', o.id, p->'reservations');

  RETURN jsonb_build_object(
    'id', o.id, 'order_number', o.order_number, 'status', o.status, 'amount', o.amount::text, 'currency', o.currency,
    'created_at', o.created_at, 'external_reference', o.external_reference, 'payment', o.payment,
    'delivery_address', o.delivery_address, 'customer_name', c.name, 'customer_phone', c.phone_e164);
END $$;
