-- Available stock: on hand less reserved, floored at 0 (a missing stock row, or no rows summed, is 0). Every
-- reader uses this function: reserve_stock(), the catalogue's browse and detail (over sums of the rows of a
-- variant) and GET /items. A one-expression SQL function, IMMUTABLE, so the planner inlines it: the plans are
-- those of the expression written out, and it has no plan of its own to set.
-- plan: postgres=auto citus=auto
CREATE OR REPLACE FUNCTION stock_available(on_hand numeric, reserved numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT greatest(coalesce(on_hand - reserved, 0), 0)
$$;
