-- History: the live body is src/db/functions/reserve_stock.sql (applied by migrate() after the migrations).
-- reserve_stock() finds the order's stock rows by their primary key (issue 16). Its three statements named the
-- variants through jsonb_array_elements(p_lines), which the planner always estimates at 100 rows, so it hashed them
-- against a sequential scan of every stock row of the company at that location: 3 scans of the company's whole
-- stock per order (3,000 rows and ~2 ms of an order's 4 ms of database CPU for a 1,000-product company; 30,000 rows
-- for the benchmark's 10,000). The variant ids are now an array the statements also match with `= ANY`, which the
-- planner sizes from the actual value (custom plans, 0014) and answers from stock_levels_pkey (company_id,
-- variant_id, location_id). Same rows, same lock order, same results.
CREATE OR REPLACE FUNCTION reserve_stock(p_company text, p_location text, p_order text, p_lines jsonb) RETURNS void
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
  short jsonb;
  v_ids text[] := ARRAY(SELECT l->>'variant_id' FROM jsonb_array_elements(p_lines) l);
BEGIN
  PERFORM 1 FROM stock_levels s
   WHERE s.company_id = p_company AND s.location_id = p_location AND s.variant_id = ANY (v_ids)
   ORDER BY s.variant_id COLLATE "C"
   FOR UPDATE;

  SELECT jsonb_agg(jsonb_build_object(
           'product_id', x.l->>'product_id',
           'requested', x.l->>'quantity',
           'available', stock_available(s.on_hand, s.reserved)::text) ORDER BY x.ord)
    INTO short
    FROM jsonb_array_elements(p_lines) WITH ORDINALITY AS x(l, ord)
    LEFT JOIN stock_levels s ON s.company_id = p_company AND s.location_id = p_location AND s.variant_id = x.l->>'variant_id'
                            AND s.variant_id = ANY (v_ids)
   WHERE stock_available(s.on_hand, s.reserved) < (x.l->>'quantity')::numeric;
  IF short IS NOT NULL THEN
    RAISE EXCEPTION 'insufficient stock' USING ERRCODE = 'CS409', DETAIL = short::text;
  END IF;

  UPDATE stock_levels s SET reserved = s.reserved + (l->>'quantity')::numeric, updated_at = now()
    FROM jsonb_array_elements(p_lines) l
   WHERE s.company_id = p_company AND s.location_id = p_location AND s.variant_id = ANY (v_ids)
     AND s.variant_id = l->>'variant_id';
  INSERT INTO stock_reservations (company_id, id, order_id, variant_id, location_id, quantity)
  SELECT p_company, l->>'reservation_id', p_order, l->>'variant_id', p_location, (l->>'quantity')::numeric
    FROM jsonb_array_elements(p_lines) l;
END $$;
