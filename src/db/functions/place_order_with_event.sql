-- POST /orders with its order.created event in the same statement (one implicit transaction, no extra round trip).
-- The service gives the event's data as it will be; the statement fills in what only it knows: the order's time
-- and the customer as recorded (name on file, phone, opt-out), and the COD confirmation place_order() asked for: then
-- an order.cod_confirmation_requested event follows (p_event's cod_requested_id), with the same data. The
-- order.created event's WhatsApp messages (p_event.whatsapp) are stored beside its data.
-- The customer's marketing answers given while ordering (p.consents: [{ id, purpose, channel, state, source, actor }])
-- are recorded here, before the event, each only when it changes the customer's state, so the event's
-- customer.may_send already counts them; a repeated order never gets here (CS200 rolls everything back).
-- may_send is the rule of src/customers/consents.ts maySend, written out once more in SQL (see the test there).
-- plan: postgres=auto citus=custom
CREATE OR REPLACE FUNCTION place_order_with_event(p_company text, p jsonb, p_event jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  o jsonb;
  v_opted boolean;
  v_at timestamptz;
  v_data jsonb;
  v_customer text;
  v_erased boolean;
  v_states jsonb;
  v_may jsonb;
  r jsonb;
BEGIN
  o := place_order(p_company, p);
  v_at := (o->>'created_at')::timestamptz;
  v_customer := o->>'customer_id';
  FOR r IN SELECT x FROM jsonb_array_elements(coalesce(p->'consents', '[]'::jsonb)) x LOOP
    IF (SELECT cc.state FROM customer_consents cc
         WHERE cc.company_id = p_company AND cc.customer_id = v_customer AND cc.purpose = r->>'purpose' AND cc.channel = r->>'channel'
         ORDER BY cc.recorded_at DESC, cc.id DESC LIMIT 1) IS DISTINCT FROM r->>'state' THEN
      INSERT INTO customer_consents (company_id, id, customer_id, purpose, channel, state, source, actor, recorded_at)
      VALUES (p_company, r->>'id', v_customer, r->>'purpose', r->>'channel', r->>'state', r->>'source', r->>'actor', v_at);
    END IF;
  END LOOP;
  SELECT c.messaging_opted_out, c.erased_at IS NOT NULL INTO v_opted, v_erased FROM customers c
   WHERE c.company_id = p_company AND c.id = v_customer;
  SELECT coalesce(jsonb_object_agg(x.purpose || '.' || x.channel, x.state), '{}'::jsonb) INTO v_states
    FROM (SELECT DISTINCT ON (cc.purpose, cc.channel) cc.purpose, cc.channel, cc.state FROM customer_consents cc
           WHERE cc.company_id = p_company AND cc.customer_id = v_customer
           ORDER BY cc.purpose, cc.channel, cc.recorded_at DESC, cc.id DESC) x;
  v_may := jsonb_build_object(
    'order_updates', jsonb_build_object(
      'messaging', NOT v_erased AND v_states->>'order_updates.messaging' IS DISTINCT FROM 'withdrawn' AND v_opted IS NOT TRUE,
      'email', NOT v_erased AND v_states->>'order_updates.email' IS DISTINCT FROM 'withdrawn'),
    'marketing', jsonb_build_object(
      'messaging', NOT v_erased AND v_states->>'marketing.messaging' IS NOT DISTINCT FROM 'given',
      'email', NOT v_erased AND v_states->>'marketing.email' IS NOT DISTINCT FROM 'given'));
  v_data := p_event->'data'
    || jsonb_build_object('order_date', to_char(v_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
    || jsonb_build_object('customer', jsonb_build_object('name', o->'customer_name', 'phone', o->'customer_phone',
                                                         'messaging_opted_out', v_opted IS TRUE, 'may_send', v_may))
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
