-- pgbench order-mimic: the database work of one order, without the service around it.
-- :hot = 1 sends every transaction to variant 1; otherwise variants are uniform over :nvariants.
\set v random(1, :nvariants)
\if :hot
\set v 1
\endif
BEGIN;
SELECT on_hand, reserved FROM mimic_stock WHERE id = :v FOR UPDATE;
UPDATE mimic_stock SET reserved = reserved + 1 WHERE id = :v;
INSERT INTO mimic_orders (company_id, amount) VALUES ('c1', 199.00) RETURNING id \gset
INSERT INTO mimic_lines (order_id, variant_id, quantity, unit_price) VALUES (:id, :v, 1, 99.50), (:id, :v, 1, 99.50);
COMMIT;
