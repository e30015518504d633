-- products.in_stock and catalogue_counts.in_stock_products (issue 16): GET /catalog/products?in_stock=true walks a
-- partial index and reads its total from one row, as the unfiltered browse does with `listed`, instead of probing the
-- stock of every listed product (150-630 ms on 100,000 products). Kept like `listed` (0012): by one function the
-- writers call in the same transaction, no triggers (Citus cannot distribute tables that have them).
SET LOCAL statement_timeout = 0;

ALTER TABLE products ADD COLUMN in_stock boolean NOT NULL DEFAULT false;
ALTER TABLE catalogue_counts ADD COLUMN in_stock_products integer NOT NULL DEFAULT 0 CHECK (in_stock_products >= 0);
CREATE INDEX products_in_stock ON products (company_id, sort_name, id) WHERE listed AND in_stock;

-- History: the live body is src/db/functions/refresh_in_stock.sql (applied by migrate() after the migrations).
-- The in-stock rule, its one definition: a product is in stock when at least one of its active variants has
-- stock_available(on_hand, reserved) > 0 on its stock row at the company's active location that ships orders (there
-- is at most one). The named products of the company are locked first, in id order: two writers racing on different
-- variants of one product then take turns, and the second one's next statement (a fresh snapshot under READ
-- COMMITTED) sees the stock the first one committed, so neither leaves a stale flag. Callers lock the stock rows they
-- change before this (stock rows, then products). Each flag that disagrees with the rule is flipped, and the
-- company's counter (listed AND in_stock) moves by the flips among listed products. Every statement filters on
-- company_id = p_company: a router query on Citus. The rule is written as scalar subqueries, not EXISTS over a join (the
-- shape the in_stock filter had, see docs/reliability.md): each is a probe by key whatever the statistics say. As a
-- join, a freshly generated, unanalysed catalogue got a hashed subplan comparing every variant with every stock row
-- (over 20 s per 1,000 products).
CREATE FUNCTION refresh_in_stock(p_company text, p_products text[]) RETURNS integer LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  ship_from text;
  gained integer;
  lost integer;
BEGIN
  PERFORM 1 FROM products p WHERE p.company_id = p_company AND p.id = ANY (p_products) ORDER BY p.id COLLATE "C" FOR UPDATE;
  SELECT loc.id INTO ship_from FROM stock_locations loc WHERE loc.company_id = p_company AND loc.ships_orders AND loc.active;
  WITH flipped AS (
    UPDATE products p SET in_stock = NOT p.in_stock
    WHERE p.company_id = p_company AND p.id = ANY (p_products)
      AND p.in_stock <> coalesce((
        SELECT bool_or((SELECT stock_available(s.on_hand, s.reserved) > 0 FROM stock_levels s
                        WHERE s.company_id = p_company AND s.variant_id = v.id AND s.location_id = ship_from))
        FROM variants v WHERE v.company_id = p_company AND v.product_id = p.id AND v.active), false)
    RETURNING p.in_stock, p.listed)
  SELECT count(*) FILTER (WHERE listed AND in_stock), count(*) FILTER (WHERE listed AND NOT in_stock) INTO gained, lost FROM flipped;
  IF gained <> lost THEN
    INSERT INTO catalogue_counts (company_id) VALUES (p_company) ON CONFLICT (company_id) DO NOTHING;
    UPDATE catalogue_counts SET in_stock_products = in_stock_products + gained - lost WHERE company_id = p_company;
  END IF;
  RETURN gained - lost;
END $$;

-- History: the live body is src/db/functions/refresh_listing.sql (applied by migrate() after the migrations).
-- refresh_listing as in 0017, and the in-stock counter moved too when `listed` flips on a product that is in stock.
CREATE OR REPLACE FUNCTION refresh_listing(p_company text, p_products text[]) RETURNS integer LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  gained integer;
  lost integer;
  gained_in_stock integer;
  lost_in_stock integer;
BEGIN
  WITH flipped AS (
    UPDATE products p SET listed = NOT p.listed
    WHERE p.company_id = p_company AND p.id = ANY (p_products)
      AND p.listed <> (p.active AND EXISTS (
        SELECT 1 FROM variants v WHERE v.company_id = p_company AND v.product_id = p.id AND v.active))
    RETURNING p.listed, p.in_stock)
  SELECT count(*) FILTER (WHERE listed), count(*) FILTER (WHERE NOT listed),
         count(*) FILTER (WHERE listed AND in_stock), count(*) FILTER (WHERE NOT listed AND in_stock)
    INTO gained, lost, gained_in_stock, lost_in_stock FROM flipped;
  -- a plain INSERT of the default row first: a CHECK is tested on an INSERT's proposed row before ON CONFLICT
  -- resolves, so the (possibly negative) delta goes through an UPDATE
  INSERT INTO catalogue_counts (company_id) VALUES (p_company) ON CONFLICT (company_id) DO NOTHING;
  UPDATE catalogue_counts SET listed_products = listed_products + gained - lost,
                              in_stock_products = in_stock_products + gained_in_stock - lost_in_stock,
                              version = version + 1
   WHERE company_id = p_company;
  RETURN gained - lost;
END $$;

-- History: the live body is src/db/functions/reserve_stock.sql (applied by migrate() after the migrations).
-- reserve_stock as in 0019, and the in-stock flag refreshed for the products whose stock row at the location is no
-- longer positive after the reservation: a reservation only lowers availability, so a row still positive leaves its
-- product in stock, and the common order touches no product row. The stock rows are locked first (lock order: stock
-- rows, then products).
CREATE OR REPLACE FUNCTION reserve_stock(p_company text, p_location text, p_order text, p_lines jsonb) RETURNS void
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
  short jsonb;
  v_ids text[] := ARRAY(SELECT l->>'variant_id' FROM jsonb_array_elements(p_lines) l);
  emptied text[];
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

  WITH reserved AS (
    UPDATE stock_levels s SET reserved = s.reserved + (l->>'quantity')::numeric, updated_at = now()
      FROM jsonb_array_elements(p_lines) l
     WHERE s.company_id = p_company AND s.location_id = p_location AND s.variant_id = ANY (v_ids)
       AND s.variant_id = l->>'variant_id'
    RETURNING s.variant_id, s.on_hand, s.reserved)
  SELECT array_agg(variant_id) INTO emptied FROM reserved WHERE stock_available(on_hand, reserved) <= 0;
  IF emptied IS NOT NULL THEN
    PERFORM refresh_in_stock(p_company, ARRAY(
      SELECT DISTINCT v.product_id FROM variants v WHERE v.company_id = p_company AND v.id = ANY (emptied)));
  END IF;

  INSERT INTO stock_reservations (company_id, id, order_id, variant_id, location_id, quantity)
  SELECT p_company, l->>'reservation_id', p_order, l->>'variant_id', p_location, (l->>'quantity')::numeric
    FROM jsonb_array_elements(p_lines) l;
END $$;

-- Backfill: every product's flag by the rule, then every company's counter.
UPDATE products p SET in_stock = true
WHERE EXISTS (
  SELECT 1 FROM stock_locations loc
  JOIN stock_levels s ON s.company_id = loc.company_id AND s.location_id = loc.id
  JOIN variants v ON v.company_id = s.company_id AND v.id = s.variant_id
  WHERE loc.company_id = p.company_id AND loc.ships_orders AND loc.active
    AND v.product_id = p.id AND v.active AND stock_available(s.on_hand, s.reserved) > 0);

UPDATE catalogue_counts c SET in_stock_products = (
  SELECT count(*) FROM products p WHERE p.company_id = c.company_id AND p.listed AND p.in_stock);
