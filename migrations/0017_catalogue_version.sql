-- A per-company catalogue version (issue 16). Every instance holds a company's catalogue (listed products, variants,
-- photos, categories, brands) in memory, tagged with the version it was built from; every request reads the version in
-- the same statement as its live stock, and a request that sees another version rebuilds. So the version moves in
-- the same transaction as every change to what the model holds: refresh_listing() (which every writer of products or
-- variants calls after its writes) bumps it, and bump_catalogue_version() is called by the writers of categories,
-- brands and photos (import, generator). Stock is never part of the model, so orders never move the version.
ALTER TABLE catalogue_counts ADD COLUMN version bigint NOT NULL DEFAULT 0;

-- History: the live body is src/db/functions/bump_catalogue_version.sql (applied by migrate() after the migrations).
CREATE FUNCTION bump_catalogue_version(p_company text) RETURNS bigint LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  v bigint;
BEGIN
  INSERT INTO catalogue_counts AS cc (company_id, version) VALUES (p_company, 1)
  ON CONFLICT (company_id) DO UPDATE SET version = cc.version + 1
  RETURNING cc.version INTO v;
  RETURN v;
END $$;

-- History: the live body is src/db/functions/refresh_listing.sql (applied by migrate() after the migrations).
-- refresh_listing as in 0012, and the version bumped on every call (a description or price changes no flag but
-- changes what the model shows). The counter row is now written by every catalogue write of the company: catalogue
-- writers of one company serialise on it, as they did once a flag changed; orders never touch it.
CREATE OR REPLACE FUNCTION refresh_listing(p_company text, p_products text[]) RETURNS integer LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan AS $$
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
  -- a plain INSERT of the default row first: a CHECK is tested on an INSERT's proposed row before ON CONFLICT
  -- resolves, so the (possibly negative) delta goes through an UPDATE
  INSERT INTO catalogue_counts (company_id) VALUES (p_company) ON CONFLICT (company_id) DO NOTHING;
  UPDATE catalogue_counts SET listed_products = listed_products + gained - lost, version = version + 1 WHERE company_id = p_company;
  RETURN gained - lost;
END $$;
