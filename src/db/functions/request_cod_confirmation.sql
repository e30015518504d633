-- "Confirm COD before booking" (issue 33), decided for a new order on every road: place_order() (POST /orders, MCP
-- place_order, a completed UCP checkout) and a staff draft confirmed (src/fulfilment/lifecycle.service.ts). A COD order
-- of a company with cod_settings.confirm_before_booking on gets cod_confirmation 'pending', due in
-- confirm_within_minutes from p_from (a new order: its created_at; a draft: the moment it is confirmed; on Citus the
-- order's created_at is the worker's clock, so the coordinator's now() would put the due time a few ms off); the caller
-- then books no courier. Returns the due time, or null when nothing is asked (prepaid, or confirmation off, or no
-- settings row).
-- plan: postgres=auto citus=custom
CREATE OR REPLACE FUNCTION request_cod_confirmation(p_company text, p_order text, p_payment text, p_from timestamptz) RETURNS timestamptz
LANGUAGE plpgsql AS $$
DECLARE
  v_due timestamptz;
BEGIN
  IF p_payment IS DISTINCT FROM 'cod' THEN
    RETURN NULL;
  END IF;
  SELECT p_from + make_interval(mins => s.confirm_within_minutes) INTO v_due
    FROM cod_settings s WHERE s.company_id = p_company AND s.confirm_before_booking;
  IF v_due IS NULL THEN
    RETURN NULL;
  END IF;
  UPDATE orders SET cod_confirmation = 'pending', cod_confirmation_due_at = v_due
   WHERE company_id = p_company AND id = p_order;
  RETURN v_due;
END $$;
