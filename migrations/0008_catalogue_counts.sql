-- The number of listed products per company, exact, kept by a statement-level trigger on products, so an
-- unfiltered browse page reads its `total` from one row instead of counting the whole catalogue every time
-- (measured: 1.1 ms of PostgreSQL time per page on 10,000 products, vacuumed; 8 ms unvacuumed).
-- Catalogue writes of one company serialise on its row; orders never write products.
SET LOCAL statement_timeout = 0;

CREATE TABLE catalogue_counts (
  company_id text PRIMARY KEY REFERENCES companies (id),
  listed_products integer NOT NULL DEFAULT 0 CHECK (listed_products >= 0)
);

INSERT INTO catalogue_counts (company_id, listed_products)
SELECT company_id, count(*) FILTER (WHERE listed) FROM products GROUP BY company_id;

CREATE FUNCTION catalogue_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO catalogue_counts AS cc (company_id, listed_products)
    SELECT company_id, count(*) FILTER (WHERE listed) FROM new_rows GROUP BY company_id
    ON CONFLICT (company_id) DO UPDATE SET listed_products = cc.listed_products + EXCLUDED.listed_products;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE catalogue_counts cc SET listed_products = cc.listed_products - d.n
    FROM (SELECT company_id, count(*) FILTER (WHERE listed) AS n FROM old_rows GROUP BY company_id) d
    WHERE cc.company_id = d.company_id AND d.n <> 0;
  ELSE
    -- A plain UPDATE: the company's row exists (its products were inserted before), and a CHECK is tested on
    -- an INSERT's proposed row before ON CONFLICT resolves, so a negative delta cannot go through an upsert.
    UPDATE catalogue_counts cc SET listed_products = cc.listed_products + d.delta
    FROM (
      SELECT company_id, sum(delta) AS delta FROM (
        SELECT company_id, CASE WHEN listed THEN 1 ELSE 0 END AS delta FROM new_rows
        UNION ALL
        SELECT company_id, CASE WHEN listed THEN -1 ELSE 0 END FROM old_rows) x
      GROUP BY company_id) d
    WHERE cc.company_id = d.company_id AND d.delta <> 0;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER products_counts_insert AFTER INSERT ON products
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalogue_counts_apply();
CREATE TRIGGER products_counts_update AFTER UPDATE ON products
  REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalogue_counts_apply();
CREATE TRIGGER products_counts_delete AFTER DELETE ON products
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalogue_counts_apply();
