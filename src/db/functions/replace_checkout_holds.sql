-- A checkout's held stock replaced in one statement: its open holds (reservations naming the checkout and no order)
-- are released and p_lines reserved in their place, for the order p_order (a completion whose holds lapsed or differ,
-- complete_checkout_stock()) or, p_order null, for the checkout again (its lines changed; each line names it in
-- "checkout_id", as reserve_stock() takes them). The stock rows of both are locked first, together, in the one sorted
-- order (variant id COLLATE "C", then location), so nothing can be sold between the release and the new reservation
-- and this cannot deadlock with an order or another checkout; with holds at more than one location, other pairings of
-- those variants and locations are locked too (more than needed, never out of order). Short stock raises CS409 from
-- reserve_stock() and, the statement failing, the old holds stay. The caller holds the checkout's row (lock order:
-- checkout row, stock rows, products).
-- plan: postgres=auto citus=custom
CREATE OR REPLACE FUNCTION replace_checkout_holds(p_company text, p_location text, p_checkout text, p_order text, p_lines jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_ids text[];
  l_ids text[];
  released text[];
BEGIN
  SELECT array_agg(DISTINCT k.v), array_agg(DISTINCT k.loc) INTO v_ids, l_ids FROM (
    SELECT l->>'variant_id' AS v, p_location AS loc FROM jsonb_array_elements(p_lines) l
    UNION ALL
    SELECT r.variant_id, r.location_id FROM stock_reservations r
     WHERE r.company_id = p_company AND r.checkout_id = p_checkout AND r.order_id IS NULL AND r.status = 'open') k;
  PERFORM 1 FROM stock_levels s
   WHERE s.company_id = p_company AND s.variant_id = ANY (v_ids) AND s.location_id = ANY (l_ids)
   ORDER BY s.variant_id COLLATE "C", s.location_id COLLATE "C"
   FOR UPDATE;

  WITH closed AS (
    UPDATE stock_reservations r SET status = 'released', closed_at = now()
     WHERE r.company_id = p_company AND r.checkout_id = p_checkout AND r.order_id IS NULL AND r.status = 'open'
    RETURNING r.variant_id, r.location_id, r.quantity),
  lowered AS (
    UPDATE stock_levels s SET reserved = s.reserved - c.q, updated_at = now()
      FROM (SELECT variant_id, location_id, sum(quantity) AS q FROM closed GROUP BY variant_id, location_id) c
     WHERE s.company_id = p_company AND s.variant_id = c.variant_id AND s.location_id = c.location_id
    RETURNING s.variant_id)
  SELECT array_agg(variant_id) INTO released FROM lowered;

  PERFORM reserve_stock(p_company, p_location, p_order, p_lines);

  -- a released variant may be available again (reserve_stock() refreshed those it emptied)
  IF released IS NOT NULL THEN
    PERFORM refresh_in_stock(p_company, ARRAY(
      SELECT DISTINCT v.product_id FROM variants v WHERE v.company_id = p_company AND v.id = ANY (released)));
  END IF;
END $$;
