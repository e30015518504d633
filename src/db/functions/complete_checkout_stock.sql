-- Completion: the checkout's held stock becomes the order's, in the transaction that creates the order (place_order()).
-- The checkout's row is locked first (lock order: checkout row, then stock rows), so its expiry, cancel or a change of
-- its lines waits for this or has already happened. When its open holds are the order's reservation lines (per variant
-- at the ship-from location, the same quantity) they are given to the order as they are: reserved does not move and
-- nothing can be sold in between. Otherwise (the holds lapsed, were released, or the lines differ) what is left of them
-- is released and the order's lines reserved afresh under one sorted lock (replace_checkout_holds()), so a completion
-- after expiry still never oversells: short stock raises CS409. The checkout is then completed with its order.
-- plan: postgres=auto citus=custom
CREATE OR REPLACE FUNCTION complete_checkout_stock(p_company text, p_location text, p_checkout text, p_order text, p_lines jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  differing integer;
BEGIN
  PERFORM 1 FROM checkout_sessions c WHERE c.company_id = p_company AND c.id = p_checkout FOR UPDATE;

  SELECT count(*) INTO differing
    FROM (SELECT r.variant_id AS v, r.location_id AS loc, sum(r.quantity) AS q FROM stock_reservations r
           WHERE r.company_id = p_company AND r.checkout_id = p_checkout AND r.order_id IS NULL AND r.status = 'open'
           GROUP BY r.variant_id, r.location_id) held
    FULL JOIN (SELECT l->>'variant_id' AS v, p_location AS loc, sum((l->>'quantity')::numeric) AS q
                 FROM jsonb_array_elements(p_lines) l GROUP BY l->>'variant_id') wanted USING (v, loc)
   WHERE held.q IS DISTINCT FROM wanted.q;

  IF differing = 0 THEN
    UPDATE stock_reservations r SET order_id = p_order
     WHERE r.company_id = p_company AND r.checkout_id = p_checkout AND r.order_id IS NULL AND r.status = 'open';
  ELSE
    PERFORM replace_checkout_holds(p_company, p_location, p_checkout, p_order, p_lines);
  END IF;

  UPDATE checkout_sessions c SET status = 'completed', order_id = p_order, updated_at = now()
   WHERE c.company_id = p_company AND c.id = p_checkout;
END $$;
