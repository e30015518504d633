-- One definition each (issue 13): what "available" means, and who writes a courier-booking job.

-- History: the live body is src/db/functions/stock_available.sql (applied by migrate() after the migrations).
-- Available stock: on hand less reserved, floored at 0 (a missing stock row, or no rows summed, is 0). Every
-- reader uses this function: reserve_stock() below, the catalogue's browse and detail (over sums of the rows of a
-- variant) and GET /items. A one-expression SQL function, IMMUTABLE, so the planner inlines it: the plans are
-- those of the expression written out.
CREATE FUNCTION stock_available(on_hand numeric, reserved numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT greatest(coalesce(on_hand - reserved, 0), 0)
$$;

-- History: the live body is src/db/functions/enqueue_courier_booking.sql (applied by migrate() after the migrations).
-- The one writer of a courier-booking job (transactional outbox; the fulfilment worker performs it): called by
-- place_order() and by the service (src/orders/orders.queries.ts, insertCourierBookingJob). A second request
-- for the same order while one is pending is absorbed by the unique index on pending bookings.
-- PL/pgSQL so its INSERT is planned once per session (a SQL-language function called from place_order() is
-- planned on every call).
CREATE FUNCTION enqueue_courier_booking(p_company text, p_job text, p_order text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO jobs (company_id, id, kind, order_id, status) VALUES (p_company, p_job, 'book_courier', p_order, 'pending')
  ON CONFLICT DO NOTHING;
END $$;

-- History: the live body is src/db/functions/reserve_stock.sql (applied by migrate() after the migrations).
-- reserve_stock() as in 0007, availability from stock_available().
CREATE OR REPLACE FUNCTION reserve_stock(p_company text, p_location text, p_order text, p_lines jsonb) RETURNS void
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
           'available', stock_available(s.on_hand, s.reserved)::text) ORDER BY x.ord)
    INTO short
    FROM jsonb_array_elements(p_lines) WITH ORDINALITY AS x(l, ord)
    LEFT JOIN stock_levels s ON s.company_id = p_company AND s.location_id = p_location AND s.variant_id = x.l->>'variant_id'
   WHERE stock_available(s.on_hand, s.reserved) < (x.l->>'quantity')::numeric;
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

-- History: the live body is src/db/functions/place_order.sql (applied by migrate() after the migrations).
-- place_order() as in 0009, the job written by enqueue_courier_booking().
CREATE OR REPLACE FUNCTION place_order(p_company text, p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  ord jsonb := p->'order';
  c customers%ROWTYPE;
  o orders%ROWTYPE;
BEGIN
  c := upsert_customer(p_company, p->'customer');

  INSERT INTO orders (company_id, id, order_number, external_reference, customer_id, status, payment, payment_reference, notes, amount, delivery_address, location_id)
  VALUES (p_company, ord->>'id', coalesce(ord->>'order_number', 'ORD-' || allocate_order_numbers(p_company, 1)), ord->>'external_reference', c.id, 'confirmed',
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
