-- POST /orders with its order.created event in the same statement (one implicit transaction, no extra round trip).
-- The service gives the event's data as it will be; the statement fills in what only it knows: the order's time
-- and the customer as recorded (name on file, phone, opt-out), and the COD confirmation place_order() asked for: then
-- an order.cod_confirmation_requested event follows (p_event's cod_requested_id), with the same data. The
-- order.created event's WhatsApp messages (p_event.whatsapp) are stored beside its data.
-- plan: postgres=auto citus=custom
CREATE OR REPLACE FUNCTION place_order_with_event(p_company text, p jsonb, p_event jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  o jsonb;
  v_opted boolean;
  v_at timestamptz;
  v_data jsonb;
BEGIN
  o := place_order(p_company, p);
  v_at := (o->>'created_at')::timestamptz;
  SELECT c.messaging_opted_out INTO v_opted FROM customers c
   WHERE c.company_id = p_company AND c.phone_e164 = p->'customer'->>'phone_e164';
  v_data := p_event->'data'
    || jsonb_build_object('order_date', to_char(v_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
    || jsonb_build_object('customer', jsonb_build_object('name', o->'customer_name', 'phone', o->'customer_phone',
                                                         'messaging_opted_out', v_opted IS TRUE))
    || jsonb_build_object('cod_confirmation', CASE WHEN o->>'cod_confirmation' IS NULL THEN NULL ELSE jsonb_build_object(
         'status', o->>'cod_confirmation',
         'due_at', to_char((o->>'cod_confirmation_due_at')::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         'settled_at', NULL, 'settled_by', NULL) END);
  -- with its WhatsApp messages, built by the service (orders/whatsapp-messages.ts), sent beside data
  PERFORM record_event(p_company, p_event->>'id', 'order.created', o->>'id', v_data::json, v_at, (p_event->'whatsapp')::json);
  IF o->>'cod_confirmation' = 'pending' THEN
    PERFORM record_event(p_company, p_event->>'cod_requested_id', 'order.cod_confirmation_requested', o->>'id', v_data::json, v_at, NULL);
  END IF;
  RETURN o;
END $$;
