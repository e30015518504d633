-- POST /orders' writes, all or nothing, in one statement (one implicit transaction, no BEGIN/COMMIT round trips).
-- p carries what the service decided:
--   customer { id, name, phone_e164, email, address { name, line1, line2, city, state, pincode, phone } | null }
--   order { id, order_number, external_reference, payment, payment_reference, notes, amount, discount_amount,
--           shipping_amount, delivery_address | null, location_id }
--   lines [{ variant_id, sku, name, quantity, unit_price, line_total, tax_rate, discount, shipping }]
--   (discount and shipping: a UCP checkout's; absent, as from an older release, they are 0)
--   reservations (as reserve_stock), booking_job_id | null, checkout_id (absent but for a completed checkout),
--   checkout_open: true when the checkout must still be open (the buyer completing it: a canceled or completed one
--   raises CS410 and nothing is kept); false for a payment that arrived after its checkout expired;
--   checkout_state: the checkout's lines, buyer, fulfilment and codes as the service read them to price the order: a
--   checkout changed since (an update that committed meanwhile) raises CS410 too, so the order is what was agreed;
--   checkout_payment, checkout_view: what the completed checkout keeps (the instrument it was paid with, its totals);
--   a checkout whose platform named a webhook owes it an order_placed event (ucp_order_deliveries)
-- The customer is found or created (upsert_customer). The order number comes from the caller (taken from a block by
-- the service); an order without one (an instance of an older release) takes one before the INSERT. The order
-- insert waits on the external_reference index for a concurrent first attempt; when the reference is taken it raises
-- SQLSTATE CS200 and nothing is kept. Lines and the job are written before the stock rows are locked
-- (reserve_stock). An order completing a checkout takes the checkout's held stock instead, when it holds these lines
-- (complete_checkout_stock). A COD order of a company that confirms COD before booking gets a pending confirmation
-- and no booking job (request_cod_confirmation). Returns the order's columns and the customer's name and phone.
-- plan: postgres=auto citus=custom
CREATE OR REPLACE FUNCTION place_order(p_company text, p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  ord jsonb := p->'order';
  num text := ord->>'order_number';
  c customers%ROWTYPE;
  o orders%ROWTYPE;
  hook text;
  cod_due timestamptz;
BEGIN
  c := upsert_customer(p_company, p->'customer');

  IF num IS NULL THEN
    num := 'ORD-' || allocate_order_numbers(p_company, 1);
  END IF;
  INSERT INTO orders (company_id, id, order_number, external_reference, customer_id, status, payment, payment_reference, notes, amount,
                      discount_amount, shipping_amount, delivery_address, location_id)
  VALUES (p_company, ord->>'id', num, ord->>'external_reference', c.id, 'confirmed',
          ord->>'payment', ord->>'payment_reference', ord->>'notes', (ord->>'amount')::numeric,
          coalesce((ord->>'discount_amount')::numeric, 0), coalesce((ord->>'shipping_amount')::numeric, 0),
          nullif(ord->'delivery_address', 'null'::jsonb), ord->>'location_id')
  ON CONFLICT (company_id, external_reference) DO NOTHING
  RETURNING * INTO o;
  IF o.id IS NULL THEN
    RAISE EXCEPTION 'external_reference already used' USING ERRCODE = 'CS200';
  END IF;

  INSERT INTO order_lines (company_id, order_id, line_no, variant_id, sku, name, quantity, unit_price, line_total, tax_rate, discount, shipping)
  SELECT p_company, o.id, x.ord, x.l->>'variant_id', x.l->>'sku', x.l->>'name', (x.l->>'quantity')::numeric,
         (x.l->>'unit_price')::numeric, (x.l->>'line_total')::numeric, (x.l->>'tax_rate')::numeric,
         coalesce((x.l->>'discount')::numeric, 0), coalesce((x.l->>'shipping')::numeric, 0)
    FROM jsonb_array_elements(p->'lines') WITH ORDINALITY AS x(l, ord);
  cod_due := request_cod_confirmation(p_company, o.id, o.payment, o.created_at);
  IF p->>'booking_job_id' IS NOT NULL AND cod_due IS NULL THEN
    PERFORM enqueue_courier_booking(p_company, p->>'booking_job_id', o.id);
  END IF;

  IF p->>'checkout_id' IS NULL THEN
    PERFORM reserve_stock(p_company, ord->>'location_id', o.id, p->'reservations');
  ELSE
    IF coalesce((p->>'checkout_open')::boolean, false) THEN
      PERFORM 1 FROM checkout_sessions cs
       WHERE cs.company_id = p_company AND cs.id = p->>'checkout_id' AND cs.status IN ('incomplete', 'requires_escalation', 'ready_for_complete')
         AND (p->'checkout_state' IS NULL
              OR jsonb_build_object('line_items', cs.line_items, 'buyer', cs.buyer, 'fulfillment', cs.fulfillment,
                                    'discount_codes', to_jsonb(cs.discount_codes)) = p->'checkout_state')
         FOR UPDATE;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'checkout % is no longer open, or changed', p->>'checkout_id' USING ERRCODE = 'CS410';
      END IF;
    END IF;
    PERFORM complete_checkout_stock(p_company, ord->>'location_id', p->>'checkout_id', o.id, p->'reservations');
    UPDATE checkout_sessions cs SET payment = coalesce(p->'checkout_payment', cs.payment), completed_view = p->'checkout_view'
     WHERE cs.company_id = p_company AND cs.id = p->>'checkout_id'
     RETURNING cs.platform_webhook_url INTO hook;
    -- the platform that placed it hears of the order (the outbox of UCP order events, migration 0026)
    IF hook IS NOT NULL THEN
      INSERT INTO ucp_order_deliveries (company_id, id, checkout_id, order_id, event_type, url)
      VALUES (p_company, o.id || ':order_placed', p->>'checkout_id', o.id, 'order_placed', hook)
      ON CONFLICT DO NOTHING;
    END IF;
  END IF;

  RETURN jsonb_build_object(
    'id', o.id, 'order_number', o.order_number, 'status', o.status, 'amount', o.amount::text, 'currency', o.currency,
    'created_at', o.created_at, 'external_reference', o.external_reference, 'payment', o.payment,
    'delivery_address', o.delivery_address, 'customer_id', c.id, 'customer_name', c.name, 'customer_phone', c.phone_e164,
    'cod_confirmation', CASE WHEN cod_due IS NULL THEN NULL ELSE 'pending' END, 'cod_confirmation_due_at', cod_due,
    'cod_confirmation_settled_at', NULL, 'cod_confirmation_settled_by', NULL);
END $$;
