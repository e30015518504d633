-- The one writer of an event: the event row and a delivery for every active endpoint subscribed to its type, in
-- the caller's transaction. Every statement names p_company (a router statement on Citus). p_whatsapp: an order
-- event's WhatsApp messages (src/orders/whatsapp-messages.ts), sent beside its data; null for other events.
-- plan: postgres=auto citus=custom
CREATE OR REPLACE FUNCTION record_event(p_company text, p_id text, p_type text, p_subject text, p_data json, p_at timestamptz, p_whatsapp json DEFAULT NULL) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_seq bigint;
BEGIN
  INSERT INTO events (company_id, id, type, subject_id, data, created_at, whatsapp)
  VALUES (p_company, p_id, p_type, p_subject, p_data, p_at, p_whatsapp) RETURNING seq INTO v_seq;
  INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id, subject_id, seq, next_attempt_at, created_at, updated_at)
  SELECT p_company, w.id, p_id, p_subject, v_seq, p_at, p_at, p_at
    FROM webhook_endpoints w
   WHERE w.company_id = p_company AND w.status = 'active' AND p_type = ANY (w.events);
END $$;
