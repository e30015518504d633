-- Moves the company's catalogue version (catalogue_counts.version). Every instance holds a company's catalogue
-- (listed products, variants, photos, categories, brands) in memory, tagged with the version it was built from, and
-- rebuilds when a request sees another one; so the version moves in the transaction of every change to what the
-- model holds: refresh_listing() bumps it for products and variants, and the writers of categories, brands and
-- photos (import, generator) call this. Stock is never part of the model: orders never move the version.
-- plan: postgres=auto citus=custom
CREATE OR REPLACE FUNCTION bump_catalogue_version(p_company text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v bigint;
BEGIN
  INSERT INTO catalogue_counts AS cc (company_id, version) VALUES (p_company, 1)
  ON CONFLICT (company_id) DO UPDATE SET version = cc.version + 1
  RETURNING cc.version INTO v;
  RETURN v;
END $$;
