-- Events (issue 14): key permissions, webhook endpoints, the event outbox and its deliveries.

-- Keys gain a permission list. 'commerce' is today's access (catalogue, orders, customers, MCP) and the default;
-- 'webhooks' (manage webhook endpoints) is only ever given at `key create`.
ALTER TABLE api_keys ADD COLUMN permissions text[] NOT NULL DEFAULT '{commerce}';

-- A company's webhook endpoints (at most 10 not removed, checked under the company's row lock). The signing
-- secrets are stored encrypted (AES-256-GCM, key derived from the service's signing secret): the service needs
-- them in clear to sign, so a hash would not do. During a rotation the previous secret signs too until
-- previous_secret_expires_at. A removed endpoint keeps its row (its deliveries point at it) and is never shown.
CREATE TABLE webhook_endpoints (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  url text NOT NULL,
  description text,
  events text[] NOT NULL,
  secret_enc text NOT NULL,
  previous_secret_enc text,
  previous_secret_expires_at timestamptz,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled', 'removed')),
  failing_since timestamptz,
  disabled_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id)
);

-- The outbox: one row per change, written in the transaction of the change. `data` is the order in the
-- GET /orders/{reference} shape (or the customer in the GET /customers shape) as it was at that moment, kept as
-- json so its key order is what the service wrote. `seq` orders the events of one subject (order or customer).
CREATE TABLE events (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  seq bigserial NOT NULL,
  type text NOT NULL,
  subject_id text NOT NULL,
  data json NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (company_id, id)
);

-- One row per event and subscribed endpoint, made with the event. A pending delivery of a subject holds back the
-- later ones of that subject to the same endpoint (in order per order).
CREATE TABLE webhook_deliveries (
  company_id text NOT NULL REFERENCES companies (id),
  endpoint_id text NOT NULL,
  event_id text NOT NULL,
  subject_id text NOT NULL,
  seq bigint NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_status_code integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, endpoint_id, event_id),
  FOREIGN KEY (company_id, endpoint_id) REFERENCES webhook_endpoints (company_id, id),
  FOREIGN KEY (company_id, event_id) REFERENCES events (company_id, id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (company_id, next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_subject ON webhook_deliveries (company_id, endpoint_id, subject_id, seq) WHERE status = 'pending';

-- History: the live body is src/db/functions/record_event.sql (applied by migrate() after the migrations).
-- The one writer of an event: the event row and a delivery for every active endpoint subscribed to its type, in
-- the caller's transaction. Every statement names p_company (a router statement on Citus).
CREATE FUNCTION record_event(p_company text, p_id text, p_type text, p_subject text, p_data json, p_at timestamptz) RETURNS void
LANGUAGE plpgsql SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  v_seq bigint;
BEGIN
  INSERT INTO events (company_id, id, type, subject_id, data, created_at)
  VALUES (p_company, p_id, p_type, p_subject, p_data, p_at) RETURNING seq INTO v_seq;
  INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id, subject_id, seq, next_attempt_at, created_at, updated_at)
  SELECT p_company, w.id, p_id, p_subject, v_seq, p_at, p_at, p_at
    FROM webhook_endpoints w
   WHERE w.company_id = p_company AND w.status = 'active' AND p_type = ANY (w.events);
END $$;

-- History: the live body is src/db/functions/place_order_with_event.sql (applied by migrate() after the migrations).
-- POST /orders with its order.created event in the same statement (one implicit transaction, no extra round trip).
-- The service gives the event's data as it will be; the statement fills in what only it knows: the order's time
-- and the customer as recorded (name on file, phone, opt-out).
CREATE FUNCTION place_order_with_event(p_company text, p jsonb, p_event jsonb) RETURNS jsonb
LANGUAGE plpgsql SET plan_cache_mode = force_custom_plan AS $$
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
                                                         'messaging_opted_out', v_opted IS TRUE));
  PERFORM record_event(p_company, p_event->>'id', 'order.created', o->>'id', v_data::json, v_at);
  RETURN o;
END $$;
