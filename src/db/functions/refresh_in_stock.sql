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
-- plan: postgres=auto citus=custom
CREATE OR REPLACE FUNCTION refresh_in_stock(p_company text, p_products text[]) RETURNS integer LANGUAGE plpgsql AS $$
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
