-- products.listed and catalogue_counts.listed_products kept by one function the writers call, not by triggers
-- (issue 21): Citus cannot distribute a table that has triggers, and statement triggers with transition tables
-- fail there ("could not find named tuplestore"). Every writer of products or variants (import, generator,
-- demo seed, test fixtures) calls refresh_listing(company, product ids) in the same transaction.
DROP TRIGGER IF EXISTS products_listed ON products;
DROP TRIGGER IF EXISTS variants_listed_insert ON variants;
DROP TRIGGER IF EXISTS variants_listed_update ON variants;
DROP TRIGGER IF EXISTS variants_listed_delete ON variants;
DROP TRIGGER IF EXISTS products_counts_insert ON products;
DROP TRIGGER IF EXISTS products_counts_update ON products;
DROP TRIGGER IF EXISTS products_counts_delete ON products;
DROP FUNCTION IF EXISTS products_set_listed();
DROP FUNCTION IF EXISTS variants_touch_listed();
DROP FUNCTION IF EXISTS catalogue_counts_apply();

-- History: the live body is src/db/functions/refresh_listing.sql (applied by migrate() after the migrations).
-- The listing rule, its one definition: a product is listed when it is active and has at least one active
-- variant. The flag of each named product of the company that disagrees with the rule is flipped, and the
-- company's counter moves by the flips (+1 listed, -1 unlisted), so the counter stays the exact number of listed
-- rows and costs nothing when nothing changed. `listed` is written nowhere else (a new product starts unlisted);
-- products are never deleted. Every statement filters on company_id = p_company: a router query on Citus.
-- Concurrent writers of one company serialise on its counter row once a flag actually changes.
CREATE FUNCTION refresh_listing(p_company text, p_products text[]) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  gained integer;
  lost integer;
BEGIN
  WITH flipped AS (
    UPDATE products p SET listed = NOT p.listed
    WHERE p.company_id = p_company AND p.id = ANY (p_products)
      AND p.listed <> (p.active AND EXISTS (
        SELECT 1 FROM variants v WHERE v.company_id = p_company AND v.product_id = p.id AND v.active))
    RETURNING p.listed)
  SELECT count(*) FILTER (WHERE listed), count(*) FILTER (WHERE NOT listed) INTO gained, lost FROM flipped;
  IF gained <> lost THEN
    INSERT INTO catalogue_counts (company_id) VALUES (p_company) ON CONFLICT (company_id) DO NOTHING;
    UPDATE catalogue_counts SET listed_products = listed_products + gained - lost WHERE company_id = p_company;
  END IF;
  RETURN gained - lost;
END $$;
