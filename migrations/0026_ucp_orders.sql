-- A UCP checkout may ship abroad (a seller who exports, or the conformance suite's US and Canadian buyers), and a
-- buyer abroad need not give an Indian mobile number, or any number. Such a customer has no phone: each of their
-- orders makes a customer record of its own (NULLs never collide in the (company_id, phone_e164) unique key, so
-- upsert_customer() inserts). Every order placed over POST /orders and MCP place_order still has its Indian mobile,
-- and every order delivered in India still needs one (checkout.service.ts).
SET LOCAL statement_timeout = 0;
ALTER TABLE customers ALTER COLUMN phone_e164 DROP NOT NULL;

-- Order events to the platform that placed the order (UCP's order capability): an outbox of its own, one row per
-- order and event type (order_placed, order_shipped, order_delivered, order_canceled, order_returned), written in
-- the transaction that makes the change and sent by the platform-event worker (src/checkout/order-events-worker.ts),
-- signed with the deployment's UCP key. The body is built when it is sent: the full order as it is then, as UCP asks.
CREATE TABLE ucp_order_deliveries (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  checkout_id text NOT NULL,
  order_id text NOT NULL,
  event_type text NOT NULL,
  url text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  PRIMARY KEY (company_id, id),
  FOREIGN KEY (company_id, order_id) REFERENCES orders (company_id, id)
);
CREATE INDEX ucp_order_deliveries_due ON ucp_order_deliveries (company_id, next_attempt_at) WHERE status = 'pending';

-- What a platform recorded on an order through the conformance harness (PUT …/orders/{id}, served only with a
-- simulation secret configured): its fulfilment events and adjustments, shown after the order's own.
ALTER TABLE checkout_sessions ADD COLUMN order_updates jsonb;
