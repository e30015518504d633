-- WhatsApp order messages (issue 33): what a company's order_details and order_status messages need beyond the order.
-- One row per company that set any of it; no row: nothing set (order_status messages still build; order_details needs
-- a catalogue and a way to pay). Keyed by company_id (Citus distributes it).
SET LOCAL statement_timeout = 0;

CREATE TABLE whatsapp_settings (
  company_id text PRIMARY KEY REFERENCES companies (id),
  -- the Meta commerce catalogue the items' retailer_id (the feed's id: the variant SKU) are looked up in
  catalog_id text CHECK (catalog_id ~ '^[0-9]{1,30}$'),
  -- the payment configuration named in WhatsApp Manager (payment gateway deep integration, e.g. Razorpay)
  payment_configuration text CHECK (char_length(payment_configuration) BETWEEN 1 AND 60),
  -- UPI intent: the payee's VPA and name put in the upi://pay link
  upi_vpa text CHECK (upi_vpa ~ '^[A-Za-z0-9._-]{2,255}@[A-Za-z][A-Za-z0-9]{1,63}$'),
  upi_payee_name text CHECK (char_length(upi_payee_name) BETWEEN 1 AND 60),
  -- the approved order details template (an "open order details" button) and its language, for outside the 24-hour window
  template_name text CHECK (template_name ~ '^[a-z0-9_]+$' AND char_length(template_name) <= 512),
  template_language text CHECK (template_language ~ '^[a-z]{2,3}(_[A-Z]{2})?$'),
  -- the approved order status template (outside the 24-hour window)
  status_template_name text CHECK (status_template_name ~ '^[a-z0-9_]+$' AND char_length(status_template_name) <= 512),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- An order event's WhatsApp messages, built when the event is written (a redelivery sends the same bytes); null for
-- other events. Sent as the body's top-level `whatsapp` member beside `data`.
ALTER TABLE events ADD COLUMN whatsapp json;

-- record_event() takes them as a seventh argument (src/db/functions/record_event.sql), so an order event is one
-- INSERT, not an INSERT and an UPDATE of the row just written; the six-argument version goes first (a call with six
-- arguments would otherwise match both).
DROP FUNCTION IF EXISTS record_event(text, text, text, text, json, timestamptz);
