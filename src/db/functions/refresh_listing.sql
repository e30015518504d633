-- products.listed and catalogue_counts.listed_products, kept by this function and not by triggers (Citus cannot
-- distribute a table that has triggers): every writer of products or variants (import, generator, demo seed, test
-- fixtures) calls refresh_listing(company, product ids) in the same transaction. A product is listed when it is
-- active and has an active variant; each flag that disagrees is flipped, the counters move by the flips (the in-stock
-- counter too when `listed` flips on a product that is in stock), and the catalogue version is bumped on every call
-- (a description or price changes no flag but changes what the in-memory catalogue shows). Catalogue writers of one
-- company serialise on the counter row; orders never touch it.
-- plan: postgres=auto citus=custom
CREATE OR REPLACE FUNCTION refresh_listing(p_company text, p_products text[]) RETURNS integer LANGUAGE plpgsql AS $$
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
